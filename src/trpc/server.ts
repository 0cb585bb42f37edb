/**
 * What a signed-in page's server render prefetches for the browser, so that the HTML holds
 * the content (issue 34, 8). Fetched by the browser these were three round trips in a row
 * after the scripts had run: `account.me`, then `account.project`, then the page's own data.
 *
 * - `prefetchSignedInShell()` (the signed-in layout): the user and their current project.
 * - `prefetchPage(queries)` (each page): the page's first queries, built with the same
 *   options its client components use (each domain's `page-queries.ts`), so the query keys
 *   match and `useQuery` renders with data on the first paint.
 *
 * Both go through the same tRPC procedures with the request's own context (session cookie),
 * so every scope and project check is the one the browser's call would meet. A failing
 * prefetch is left out: the browser asks again and shows its own error state.
 */
import { dehydrate, QueryClient, type DehydratedState, type FetchQueryOptions, type Query, type QueryFunction, type QueryKey } from "@tanstack/react-query";
import { createTRPCOptionsProxy, type TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache } from "react";
import { appRouter, type AppRouter } from "@/server/http/trpc/root";
import { createTRPCContext } from "@/server/http/trpc/trpc";

export type ServerTRPC = TRPCOptionsProxy<AppRouter>;

/**
 * One query of a page: what `trpc.x.y.queryOptions(input)` (or `infiniteQueryOptions`)
 * returns, or a page's own key over a procedure.
 */
export interface PageQuery {
  queryKey: QueryKey;
  queryFn?: unknown;
  /**
   * Analytics (a chart, a count over every event) that may take a while: the HTML waits for
   * it only a moment (STREAM_WAIT_MS), and a later answer follows in the same response's
   * stream. Lists and other quick reads are waited for, so the HTML holds them.
   */
  stream?: boolean;
  /** The queries that need this one's answer (counts keyed on a list's newest row, say). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each query's answer differs; its `after` knows which it reads
  after?: (data: any) => PageQuery[];
}

/**
 * How long the HTML waits for the queries marked `stream`, from the page's first prefetch:
 * those answered by then (a warm result cache answers in a few milliseconds) are drawn in the
 * HTML itself; the rest follow in the stream, their skeletons shown meanwhile.
 */
const STREAM_WAIT_MS = 200;

/** As the browser would have received them: JSON (dates as strings), not React's own serialisation. */
const asJson = (data: unknown) => (data === undefined ? data : JSON.parse(JSON.stringify(data)));

/** One query client and tRPC proxy per request, shared by the layout and the page (one `account.me` between them). */
const requestQueries = cache(async () => {
  // Within one request nothing goes stale: the layout's `account.me` serves the page too.
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  const requestHeaders = await headers();
  const context = createTRPCContext({ headers: requestHeaders });
  const trpc = createTRPCOptionsProxy({ router: appRouter, ctx: () => context, queryClient });
  return { queryClient, trpc };
});

/** The user's current project, or null (signed out, no project, or the lookup failed). */
async function currentProjectId(): Promise<number | null> {
  const { queryClient, trpc } = await requestQueries();
  try {
    return (await queryClient.fetchQuery(trpc.account.me.queryOptions())).current_project_id;
  } catch {
    return null;
  }
}

function dehydrateOnly(queryClient: QueryClient, hashes: Set<string>, withPending: boolean): DehydratedState {
  return dehydrate(queryClient, {
    serializeData: asJson,
    shouldDehydrateQuery: (query: Query) =>
      hashes.has(query.queryHash) && (query.state.status === "success" || (withPending && query.state.status === "pending")),
  });
}

export async function prefetchSignedInShell(): Promise<DehydratedState> {
  const { queryClient, trpc } = await requestQueries();
  const projectId = await currentProjectId();
  const queries: PageQuery[] = [trpc.account.me.queryOptions(), trpc.account.projects.queryOptions()];
  if (projectId !== null) queries.push(trpc.account.project.queryOptions({ projectId }));
  await Promise.allSettled(queries.map((query) => queryClient.fetchQuery(query as FetchQueryOptions)));
  return dehydrateOnly(queryClient, new Set(queries.map((query) => queryClient.getQueryCache().build(queryClient, query as FetchQueryOptions).queryHash)), false);
}

/**
 * Prefetches a page's first queries for the current project and returns them for the page's
 * `<HydrationBoundary>`. `queries` builds them from the tRPC proxy and the project id. The
 * quick ones arrive in the HTML; those marked `stream` too when answered within
 * STREAM_WAIT_MS, else they follow it in the same response.
 */
export async function prefetchPage(queries: (trpc: ServerTRPC, projectId: number) => PageQuery[]): Promise<DehydratedState> {
  const started = Date.now();
  const { queryClient, trpc } = await requestQueries();
  const projectId = await currentProjectId();
  const hashes = new Set<string>();
  const streamed: Promise<unknown>[] = [];
  const prefetch = async ({ after, stream, ...options }: PageQuery): Promise<void> => {
    const query = options as FetchQueryOptions;
    hashes.add(queryClient.getQueryCache().build(queryClient, query).queryHash);
    // tRPC marks an infinite query's key; its first page is what the list shows first.
    const infinite = (query.queryKey[1] as { type?: string } | undefined)?.type === "infinite";
    const fetched: Promise<unknown> = infinite ? queryClient.fetchInfiniteQuery(query as never) : queryClient.fetchQuery(query);
    if (stream) return void streamed.push(fetched.catch(() => undefined));
    const data = await fetched;
    if (after) await Promise.all(after(data).map(prefetch));
  };
  if (projectId !== null) {
    try {
      await Promise.all(queries(trpc, projectId).map((query) => prefetch(query).catch(() => undefined)));
    } catch {
      // A builder that throws prefetches nothing more: the browser asks for the rest.
    }
    const wait = STREAM_WAIT_MS - (Date.now() - started);
    if (streamed.length > 0 && wait > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(streamed), new Promise((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
    }
  }
  return dehydrateOnly(queryClient, hashes, true);
}

/**
 * A procedure's query under a page's own key (Home's counts are keyed on the newest event).
 * tRPC's query function reads the procedure and its input from the key it is called with:
 * it is called with the procedure's own.
 */
export function keyedAs(options: { queryKey: QueryKey; queryFn?: unknown }, queryKey: QueryKey): PageQuery {
  const queryFn = options.queryFn as QueryFunction;
  return { ...options, queryKey, queryFn: (context: Parameters<QueryFunction>[0]) => queryFn({ ...context, queryKey: options.queryKey }) };
}

/** What Next hands a page as `searchParams`. */
export type PageSearchParams = Promise<Record<string, string | string[] | undefined>>;

/** A page's search parameters as the browser's `useSearchParams()` reads them, for the shared query builders. */
export async function searchParamsOf(searchParams: PageSearchParams): Promise<URLSearchParams> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(await searchParams)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, one);
  }
  return params;
}
