/**
 * The first queries of the Cohorts page, built here for both sides: its server page prefetches
 * them (src/trpc/server.ts) and its client list asks for them, so the query keys match and
 * the HTML holds the list.
 */
export const COHORTS_PAGE_SIZE = 50;

export type CohortTypeFilter = "" | "static" | "dynamic";

/** The list's input: its search and type, and the page (from 0). */
export function cohortsListInput(projectId: number, filters: { search: string; type: CohortTypeFilter } = { search: "", type: "" }, page = 0) {
  return { projectId, search: filters.search.trim() || undefined, type: filters.type || undefined, limit: COHORTS_PAGE_SIZE, offset: page * COHORTS_PAGE_SIZE };
}
