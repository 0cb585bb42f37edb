/**
 * The first queries of the dashboards list, built here for both sides: its server page
 * prefetches them (src/trpc/server.ts) and the client list asks for them, so the query keys
 * match and the HTML holds the list.
 */
export const DASHBOARDS_PAGE_SIZE = 50;

export type DashboardsView = "active" | "deleted";

/** The list's input: active or deleted, its search (already trimmed) and tag, and the page (from 0). */
export function dashboardsListInput(projectId: number, view: DashboardsView = "active", filters: { search: string; tag: string } = { search: "", tag: "" }, page = 0) {
  return {
    projectId,
    deleted: view === "deleted",
    search: filters.search || undefined,
    tags: filters.tag ? [filters.tag] : undefined,
    limit: DASHBOARDS_PAGE_SIZE,
    offset: page * DASHBOARDS_PAGE_SIZE,
  };
}
