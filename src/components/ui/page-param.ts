/**
 * A list's page in the URL (`?page=`, from 0), read alike by the server page that prefetches
 * the list and by the client list: anything unreadable is the first page, and no page past
 * 10,000 (an offset a hand-typed URL could otherwise make huge).
 */
export function pageParam(params: Pick<URLSearchParams, "get">): number {
  return Math.max(0, Math.min(10_000, Number.parseInt(params.get("page") ?? "0", 10) || 0));
}
