import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { recordingListInput, recordingListParams } from "@/components/replay/page-queries";
import { ReplayPage } from "@/components/replay/replay-list";
import { prefetchPage, searchParamsOf, type PageSearchParams } from "@/trpc/server";

export const metadata: Metadata = { title: "Replay" };

export default async function Replay({ searchParams }: { searchParams: PageSearchParams }) {
  const view = recordingListParams(await searchParamsOf(searchParams));
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [trpc.recordings.list.queryOptions(recordingListInput(projectId, view)), trpc.recordings.usage.queryOptions({ projectId })])}
    >
      <ReplayPage />
    </PageHydration>
  );
}
