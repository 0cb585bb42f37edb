import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { PipelinePage } from "@/components/pipeline/pipeline-page";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Transformations" };

/** The pipeline's first queries take only the project: the same `{ projectId }` as pipeline-page.tsx's. */
export default async function Page() {
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [trpc.transformations.list.queryOptions({ projectId }), trpc.transformations.plugins.queryOptions({ projectId })])}
    >
      <PipelinePage />
    </PageHydration>
  );
}
