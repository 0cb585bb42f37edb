/**
 * The events explorer's first queries, built here for both sides: its server page prefetches
 * them (src/trpc/server.ts) and the client explorer asks for them, so the query keys match and
 * the HTML holds the newest events. The applied filters live in the URL (filter-params.ts).
 */
import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { EventFilters } from "@/server/events/contract";
import type { AppRouter } from "@/server/http/trpc/root";

export const EVENTS_PAGE_SIZE = 50;

/** The list, newest first, a page at a time: each page names the cursor of the next. */
export function eventsListOptions(trpc: TRPCOptionsProxy<AppRouter>, projectId: number, applied: EventFilters) {
  return trpc.events.list.infiniteQueryOptions(
    { projectId, ...applied, limit: EVENTS_PAGE_SIZE },
    { getNextPageParam: (page) => page.next ?? undefined, initialCursor: null },
  );
}

/** How many events the filters match (the footer's "of N"). */
export function eventsCountInput(projectId: number, applied: EventFilters) {
  return { projectId, ...applied };
}
