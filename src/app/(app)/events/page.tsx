import { PageHydration } from "@/trpc/hydration";
import type { Metadata } from "next";
import { EventsExplorer } from "@/components/events/events-explorer";
import { filtersFromSearch } from "@/components/events/filter-params";
import { eventsCountInput, eventsListOptions } from "@/components/events/page-queries";
import { prefetchPage, searchParamsOf, type PageSearchParams } from "@/trpc/server";

export const metadata: Metadata = { title: "Events" };

export default async function EventsPage({ searchParams }: { searchParams: PageSearchParams }) {
  const applied = filtersFromSearch(await searchParamsOf(searchParams));
  return (
    <PageHydration
      state={await prefetchPage((trpc, projectId) => [
        eventsListOptions(trpc, projectId, applied),
        trpc.events.count.queryOptions(eventsCountInput(projectId, applied)),
        trpc.events.cohorts.queryOptions({ projectId }),
      ])}
    >
      <EventsExplorer />
    </PageHydration>
  );
}
