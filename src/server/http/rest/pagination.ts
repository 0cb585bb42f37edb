import { serverEnvFrom } from "@/server/env";
import { pageWindow, type PageQuery } from "@/server/input/page";

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
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

/**
 * Offset links without a count (PostHog's persons list): `next` when more rows follow the
 * page, `previous` when it did not start at the top; other query parameters are kept.
 */
export function offsetLinks(request: Request, page: { limit: number; offset: number }, more: boolean): { next: string | null; previous: string | null } {
  const link = (offset: number) => {
    const url = new URL(request.url);
    const out = new URL(url.pathname + url.search, serverEnvFrom().siteUrl);
    out.searchParams.set("limit", String(page.limit));
    if (offset > 0) out.searchParams.set("offset", String(offset));
    else out.searchParams.delete("offset");
    return out.toString();
  };
  return { next: more ? link(page.offset + page.limit) : null, previous: page.offset > 0 ? link(Math.max(0, page.offset - page.limit)) : null };
}
