/**
 * The web analytics page's first queries, built here for both sides: its server page
 * prefetches them (src/trpc/server.ts) and the client page asks for them, so the query keys
 * match. The tiles are analytics: those the server has not answered when the HTML goes out
 * stream in the same response.
 */
import { overviewQuery, sessionTrendQuery, statsTableQuery, TABLE_PAGE, topClicksQuery, trendQuery, WEB_TABLE_GROUPS } from "./web-query";
import type { WebFilters } from "./web-filters";

/** Has this project ever had a pageview? Until it has, the page explains how to get one and asks nothing else. */
export function anyPageviewInput(projectId: number) {
  return { projectId, event: "$pageview", limit: 1 };
}

/** One query node through the query API, answered from the server's short result cache when fresh. */
export function webQueryInput(projectId: number, query: object) {
  return { projectId, request: { query, refresh: "blocking" as const } };
}

/** The nodes of what the page shows first: the overview, both graphs, each table's first tab, and the top clicks. */
export function firstWebNodes(filters: WebFilters): object[] {
  return [
    overviewQuery(filters),
    trendQuery(filters),
    sessionTrendQuery(filters),
    ...WEB_TABLE_GROUPS.map((group) => statsTableQuery(filters, group.tabs[0]!.breakdown, TABLE_PAGE)),
    topClicksQuery(filters),
  ];
}
