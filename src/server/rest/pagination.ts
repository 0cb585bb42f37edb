import { z } from "zod";
import { serverEnvFrom } from "@/server/env";

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

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** `take`/`skip` for the store; a limit of 0 is read as the default, as DRF does. */
export function pageWindow(query: PageQuery): { take: number; skip: number } {
  return { take: query.limit || DEFAULT_PAGE_SIZE, skip: query.offset };
}

/**
 * DRF's LimitOffsetPagination envelope: `next`/`previous` are absolute URLs on SITE_URL
 * with every other query parameter kept.
 */
export function paginate<T>(request: Request, query: PageQuery, count: number, results: T[]): Page<T> {
  const { take, skip } = pageWindow(query);
  const link = (offset: number) => {
    const url = new URL(request.url);
    const out = new URL(url.pathname + url.search, serverEnvFrom().siteUrl);
    out.searchParams.set("limit", String(take));
    if (offset > 0) out.searchParams.set("offset", String(offset));
    else out.searchParams.delete("offset");
    return out.toString();
  };
  return {
    count,
    next: skip + take < count ? link(skip + take) : null,
    previous: skip > 0 ? link(Math.max(0, skip - take)) : null,
    results,
  };
}
