/**
 * The query API: runs any insight kind (query/kinds.ts) for a project, answering from a
 * per-process cache while the result is fresh — the one path for `POST …/query/`, saved
 * insights, dashboards and shared pages.
 */
import { createHash } from "node:crypto";
import type { KindAnswer, QueryEnv, QueryKind } from "@/server/analytics/kind";
import type { FiltersOverride } from "@/server/analytics/nodes";
import { canonicalJson, INSIGHT_CACHE_LIMITS, ResultCache, type CacheMode } from "@/server/analytics/cache";
import { knownZone } from "@/server/analytics/date-range";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db/client";
import type { DbClient } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { knownKinds, runnableNode, type QueryRequest } from "./contract";
import { QUERY_KINDS } from "./kinds";
import { queryResponse, type QueryResponse } from "./present";
import { findProjectTimezone } from "./store";

/** Answers of this process, by project, time zone, kind and spec (see analytics/cache.ts). */
const resultCache = new ResultCache<KindAnswer>(INSIGHT_CACHE_LIMITS);

/** Forgets every cached result (tests; nothing else needs to). */
export function clearQueryCache(): void {
  resultCache.clear();
}

/** The project's time zone (a known IANA name), or 404 for no such project. */
export async function projectZone(client: DbClient, projectId: number): Promise<string> {
  const timezone = await findProjectTimezone(client, projectId);
  if (timezone === null) throw new AppError("not_found", "Not found.");
  return knownZone(timezone);
}

/** A query's kind and spec: the node to run (a wrapper's `source`) must be a known kind, else a 400 on `query`. */
export function resolveQuery(query: unknown, override: FiltersOverride | null = null): { kind: QueryKind<unknown>; spec: unknown } {
  const runnable = runnableNode(query);
  if (!runnable) throw new AppError("invalid_input", "query must be an object: a query node (such as a TrendsQuery) or an InsightVizNode around one.", "query");
  const kind = QUERY_KINDS.get(String(runnable.node.kind));
  if (!kind) throw new AppError("invalid_input", `Query kind '${String(runnable.node.kind).slice(0, 60)}' is not supported; use one of ${knownKinds()}.`, "query");
  return { kind, spec: kind.spec(runnable.node, override) };
}

export interface QueryOptions {
  /** `force` recomputes; `blocking` (default) answers from a fresh cache entry or computes; `cache_only` never computes. */
  refresh?: CacheMode;
  /** A dashboard's (or tile's) filters laid over the query. */
  filtersOverride?: FiltersOverride | null;
  /** The time relative dates count back from (tests). */
  now?: Date;
}

export interface ComputedQuery {
  /** Null only for `cache_only` with nothing cached. */
  answer: KindAnswer | null;
  cached: boolean;
  computedAt: Date | null;
  /** Until when the cache serves this answer. */
  freshUntil: Date | null;
  zone: string;
  cacheKey: string;
}

/** The answer of `query` for the project, from the cache while fresh, else computed (and cached). */
export async function computeQuery(db: Database, projectId: number, query: unknown, options: QueryOptions = {}): Promise<ComputedQuery> {
  const { kind, spec } = resolveQuery(query, options.filtersOverride ?? null);
  const zone = await projectZone(db.prisma, projectId);
  const env: QueryEnv = { db, projectId, zone, now: options.now ?? new Date() };
  const key = `${projectId}|${zone}|${kind.kind}|${canonicalJson(spec)}`;
  const cacheKey = `cache_${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
  const cached = await resultCache.get(key, options.refresh ?? "blocking", async () => {
    const answer = await kind.compute(env, spec);
    return { value: answer, weight: answer.weight };
  });
  if (!cached) return { answer: null, cached: false, computedAt: null, freshUntil: null, zone, cacheKey };
  return {
    answer: cached.value,
    cached: cached.cached,
    computedAt: cached.computedAt,
    freshUntil: new Date(cached.computedAt.getTime() + INSIGHT_CACHE_LIMITS.ttlMs),
    zone,
    cacheKey,
  };
}

/** Before storing a query: it parses, and what only the data can refuse (regular expressions, cohorts) passes. */
export async function checkQuery(db: Database, projectId: number, query: unknown): Promise<void> {
  const { kind, spec } = resolveQuery(query);
  const zone = await projectZone(db.prisma, projectId);
  await kind.check({ db, projectId, zone, now: new Date() }, spec);
}

/** `POST …/query/`: the request's query run for the caller's project. */
export async function runQuery(ctx: Context, request: QueryRequest): Promise<QueryResponse> {
  const computed = await computeQuery(ctx.db, ctx.project.id, request.query, { refresh: request.refresh, filtersOverride: request.filters_override ?? null });
  return queryResponse(computed);
}
