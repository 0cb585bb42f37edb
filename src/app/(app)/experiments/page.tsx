import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { ExperimentsPage } from "@/components/experiments/experiments-list";
import { experimentsListInput } from "@/components/experiments/page-queries";
import { prefetchPage } from "@/trpc/server";

export const metadata: Metadata = { title: "Experiments" };

export default async function ExperimentsRoute() {
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [
        trpc.experiments.list.queryOptions(experimentsListInput(projectId)),
        // The shared metrics section (shared-metrics.tsx).
        trpc.experiments.savedMetrics.queryOptions({ projectId }),
      ])}
    >
      <ExperimentsPage />
    </PageHydration>
  );
}
