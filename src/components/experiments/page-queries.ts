/**
 * The first queries of the Experiments page, built here for both sides: its server page prefetches
 * them (src/trpc/server.ts) and its client list asks for them, so the query keys match and
 * the HTML holds the list.
 */
export const EXPERIMENTS_PAGE_SIZE = 50;

/** The list's input: its search, and the page (from 0). */
export function experimentsListInput(projectId: number, filters: { search: string } = { search: "" }, page = 0) {
  return { projectId, search: filters.search.trim() || undefined, limit: EXPERIMENTS_PAGE_SIZE, offset: page * EXPERIMENTS_PAGE_SIZE };
}
