/**
 * The first query of the saved-insights list, built here for both sides: its server page
 * prefetches it (src/trpc/server.ts) and the client list asks for it, so the query keys
 * match and the HTML holds the list.
 */
export const INSIGHTS_PAGE_SIZE = 50;

/** The list's input: its search (already trimmed) and the page (from 0). */
export function insightsListInput(projectId: number, search = "", page = 0) {
  return { projectId, saved: "true" as const, search: search || undefined, limit: INSIGHTS_PAGE_SIZE, offset: page * INSIGHTS_PAGE_SIZE };
}
