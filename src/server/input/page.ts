/**
 * A list's window, `limit` and `offset` as DRF's LimitOffsetPagination reads them: shared by
 * the contracts, the services (which read a window and return rows and a count) and the REST
 * edge (which wraps them in PostHog's `next`/`previous` envelope, rest/pagination.ts).
 */
import { z } from "zod";

/** Page size when `limit` is not given (PostHog's PAGE_SIZE) and the most one page may hold. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

const nonNegativeInt = (name: string) =>
  z.coerce
    .number({ error: `${name} must be an integer.` })
    .int(`${name} must be an integer.`)
    .min(0, `${name} must not be negative.`);

/** `limit` and `offset` of a list request; merge into a route's own query schema. */
export const pageQuery = z.object({
  limit: nonNegativeInt("limit").max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}.`).optional(),
  offset: nonNegativeInt("offset").default(0),
});
export type PageQuery = z.infer<typeof pageQuery>;

/** `take`/`skip` for the store; a limit of 0 is read as the default, as DRF does. */
export function pageWindow(query: PageQuery): { take: number; skip: number } {
  return { take: query.limit || DEFAULT_PAGE_SIZE, skip: query.offset };
}
