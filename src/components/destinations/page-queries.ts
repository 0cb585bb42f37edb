/**
 * The first queries of the Destinations page, built here for both sides: its server page prefetches
 * them (src/trpc/server.ts) and its client list asks for them, so the query keys match and
 * the HTML holds the list.
 */
export const DESTINATIONS_PAGE_SIZE = 50;

/** The list's input: its search, and the page (from 0). */
export function destinationsListInput(projectId: number, filters: { search: string } = { search: "" }, page = 0) {
  return { projectId, search: filters.search.trim() || undefined, limit: DESTINATIONS_PAGE_SIZE, offset: page * DESTINATIONS_PAGE_SIZE };
}
