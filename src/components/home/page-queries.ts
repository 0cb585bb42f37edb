/**
 * Home's first queries, built here for both sides: its server page prefetches them
 * (src/trpc/server.ts) and its client cards ask for them, so the query keys match and the
 * HTML holds the cards.
 */

/** The newest event: whether events flow yet, and what the counts are keyed on. */
export function latestEventInput(projectId: number) {
  return { projectId, limit: 1 };
}

/** Events per day and unique visitors over the last 30 days, of every event. */
export const dailyEvents = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: null, name: "All events", math: "total" }], interval: "day", dateRange: { date_from: "-30d" } };
export const uniqueVisitors = {
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: null, name: "All events", math: "dau" }],
  interval: "day",
  dateRange: { date_from: "-30d" },
  trendsFilter: { display: "BoldNumber" },
};

/** The counts' own key: counted again, past the server's short result cache, whenever a newer event arrives. */
export function homeCountKey(projectId: number, newestEventId: string, query: object) {
  return ["home-counts", projectId, newestEventId, query];
}

export function homeCountInput(projectId: number, query: object) {
  return { projectId, request: { query, refresh: "force_blocking" as const } };
}

export const RECENT_SHOWN = 5;

export function recentInsightsInput(projectId: number) {
  return { projectId, saved: "true" as const, limit: RECENT_SHOWN };
}

/** Sorted by last access in the browser (the list has no such order). */
export function recentDashboardsInput(projectId: number) {
  return { projectId, limit: 100 };
}
