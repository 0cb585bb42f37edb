"use client";

/**
 * A page's prefetched queries for the browser's cache (TanStack's HydrationBoundary), with one
 * difference: a query the server streams (still pending when the HTML was drawn, its answer
 * following in the same response) is drawn from that answer only once the page has hydrated.
 * Given to TanStack as they come, an answer that had already arrived was read at once, by the
 * server's render of a part that rendered late or by the browser's hydration, and the two
 * disagreed (Home's counts and /web's tiles drawn on one side, skeletons on the other: React's
 * error 418, seen on a slow machine). Here the query stays pending on both sides until then,
 * and takes the streamed answer before any component could ask for it again.
 */
import { HydrationBoundary, useQueryClient, type DehydratedState } from "@tanstack/react-query";
import { useLayoutEffect, useMemo, type ReactNode } from "react";

export function PageHydration({ state, children }: { state: DehydratedState; children: ReactNode }) {
  const queryClient = useQueryClient();
  const { settled, streamed } = useMemo(() => {
    // Fresh from when this page arrived, by the reader's clock: dated by the server's, a clock a
    // minute ahead found every answer stale at hydration, and the lists' "refreshing" marks
    // (useQuery reports the refetch on mount during the render) differed from the server's HTML.
    const arrived = Date.now();
    const queries = state.queries.map((query) => ({
      ...query,
      dehydratedAt: arrived,
      state: query.state.dataUpdatedAt > 0 ? { ...query.state, dataUpdatedAt: arrived } : query.state,
    }));
    return {
      settled: { ...state, queries: queries.map((query) => (query.promise ? { ...query, promise: undefined } : query)) },
      streamed: queries.filter((query) => query.promise),
    };
  }, [state]);
  // Layout effects run before any component's passive ones, where a query with no answer would be fetched.
  useLayoutEffect(() => {
    for (const { queryHash, promise } of streamed) {
      const query = queryClient.getQueryCache().get(queryHash);
      if (query && query.state.data === undefined && query.state.fetchStatus === "idle") {
        void query.fetch(undefined, { initialPromise: Promise.resolve(promise) }).catch(() => undefined);
      }
    }
  }, [queryClient, streamed]);
  return <HydrationBoundary state={settled}>{children}</HydrationBoundary>;
}
