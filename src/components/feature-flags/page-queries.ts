/**
 * The first queries of the Feature flags page, built here for both sides: its server page prefetches
 * them (src/trpc/server.ts) and its client list asks for them, so the query keys match and
 * the HTML holds the list.
 */
export const FLAGS_PAGE_SIZE = 50;

export type FlagActiveFilter = "" | "true" | "false";

/** The list's input: its search and status, and the page (from 0). */
export function flagsListInput(projectId: number, filters: { search: string; active: FlagActiveFilter } = { search: "", active: "" }, page = 0) {
  return { projectId, search: filters.search.trim() || undefined, active: filters.active || undefined, limit: FLAGS_PAGE_SIZE, offset: page * FLAGS_PAGE_SIZE };
}
