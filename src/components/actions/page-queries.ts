/**
 * The first queries of the Actions page, built here for both sides: its server page prefetches
 * them (src/trpc/server.ts) and its client list asks for them, so the query keys match and
 * the HTML holds the list.
 */
export const ACTIONS_PAGE_SIZE = 50;

/** The list's input: its search, and the page (from 0). */
export function actionsListInput(projectId: number, filters: { search: string } = { search: "" }, page = 0) {
  return { projectId, search: filters.search.trim() || undefined, limit: ACTIONS_PAGE_SIZE, offset: page * ACTIONS_PAGE_SIZE };
}
