/**
 * The query API: runs any insight kind (query/kinds.ts) for a project, answering from a
 * per-process cache while the result is fresh — the one path for `POST …/query/`, saved
 * insights, dashboards and shared pages.
 */
import { createHash } from "node:crypto";
import { QueryNodeError, type KindAnswer, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { shown, type FiltersOverride } from "@/server/analytics/nodes";
import { canonicalJson, INSIGHT_CACHE_LIMITS, ResultCache, type CacheMode } from "@/server/analytics/cache";
import { knownZone } from "@/server/analytics/date-range";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db/client";
import type { DbClient } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { actionDefinitions } from "@/server/actions/service";
import { actionIdsOf, expandActionNodes } from "./actions-node";
import { queryRequestSchema, runnableNode, type ComputedQuery, type QueryRequest } from "./contract";
import { QUERY_KINDS } from "./kinds";
import { queryResponse, type QueryResponse } from "./present";
import { perDatabase } from "@/server/db/per-database";
import { findProjectQuerySettings } from "./store";
import { asksForTestAccounts, testAccountGroup, withTestAccounts } from "./test-accounts";

/** Whether a query reads without the test accounts (a dashboard's tiles say so in their captions). */
export { asksForTestAccounts, testAccountGroup } from "./test-accounts";

/**
 * Answers of this process, per database, by project, time zone, kind and spec (see
 * analytics/cache.ts). Per database because project ids are only unique within one: test
 * files share a process, each with its own database and its own project 1.
 */
const resultCacheOf = perDatabase((_: Database) => new ResultCache<KindAnswer>(INSIGHT_CACHE_LIMITS));

/** Forgets every cached result of the database (tests; nothing else needs to). */
export function clearQueryCache(db: Database): void {
  resultCacheOf(db).clear();
}

/** What a query of the project reads of it: its time zone (a known IANA name) and its test account filters; 404 for no such project. */
async function projectQuerySettings(client: DbClient, projectId: number): Promise<{ zone: string; testAccountFilters: unknown }> {
  const project = await findProjectQuerySettings(client, projectId);
  if (project === null) throw new AppError("not_found", "Not found.");
  return { zone: knownZone(project.timezone), testAccountFilters: project.testAccountFilters };
}

/** The project's time zone (a known IANA name), or 404 for no such project. */
export async function projectZone(client: DbClient, projectId: number): Promise<string> {
  return (await projectQuerySettings(client, projectId)).zone;
}

/** The kinds `query.kind` may name, for messages. */
const knownKinds = () => [...QUERY_KINDS.keys()].join(", ");

/**
 * A query's kind and spec: the node to run (a wrapper's `source`) must be a known kind and
 * fit it, else a QueryNodeError whose path starts at the query (`source.kind`, …).
 */
export function resolveQuery(query: unknown, override: FiltersOverride | null = null): { kind: QueryKind<unknown>; spec: unknown } {
  const runnable = runnableNode(query);
  if (!runnable) throw new QueryNodeError("query must be an object: a query node (such as a TrendsQuery) or an InsightVizNode around one.", []);
  const kind = QUERY_KINDS.get(String(runnable.node.kind));
  if (!kind) throw new QueryNodeError(`Query kind ${shown(runnable.node.kind)} is not supported; use one of ${knownKinds()}.`, [...runnable.path, "kind"]);
  try {
    return { kind, spec: kind.spec(runnable.node, override) };
  } catch (error) {
    if (error instanceof QueryNodeError) throw new QueryNodeError(error.issue, [...runnable.path, ...error.path], error.rule);
    throw error;
  }
}

/**
 * `POST …/query/`'s body checked as PostHog's QueryViewSet does: anything that does not fit
 * the schema (an unknown kind, a malformed field, an unknown key) is DRF's ParseError, a 400
 * `{"type": "invalid_request", "code": "parse_error", "detail": "JSON parse error - …", "attr": null}`;
 * a kind's rule between valid fields (a funnel's step range) is its runner's ValidationError
 * naming the field; what only running can refuse (a regular expression, a cohort) too.
 */
export function parseQueryRequest(body: unknown): QueryRequest {
  const parseError = (path: readonly PropertyKey[], message: string) =>
    new AppError("parse_error", `JSON parse error - ${path.length > 0 ? `${path.map(String).join(".")}: ` : ""}${message}`);
  const result = queryRequestSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw parseError(issue.path, issue.code === "unrecognized_keys" ? `Extra inputs are not permitted: ${issue.keys.map((key) => shown(key)).join(", ")}.` : issue.message);
  }
  try {
    resolveQuery(expandActionNodes(result.data.query, null));
  } catch (error) {
    if (!(error instanceof QueryNodeError)) throw error;
    const path = ["query", ...error.path];
    throw error.rule ? new AppError("invalid_input", error.issue, path.map(String).join("__")) : parseError(path, error.issue);
  }
  return result.data;
}

export interface QueryOptions {
  /** `force` recomputes; `blocking` (default) answers from a fresh cache entry or computes; `cache_only` never computes. */
  refresh?: CacheMode;
  /** A dashboard's (or tile's) filters laid over the query. */
  filtersOverride?: FiltersOverride | null;
  /** The time relative dates count back from (tests). */
  now?: Date;
  /** The caller went away: a computation it started is dropped or cancelled (db/analytics.ts). */
  signal?: AbortSignal;
}

/**
 * Each kind's share of the analytical budget (BURROW_QUERY_TIMEOUT_MS, 30 s by default): the
 * web analytics page's tiles answer well within it or not usefully at all; the others, whose
 * users wait for one answer, may take all of it.
 */
const BUDGET_SHARE: Record<string, number> = {
  WebOverviewQuery: 0.5,
  WebStatsTableQuery: 0.5,
  WebTopClicksQuery: 0.5,
};

/** How long a kind's computation may take, its wait for a turn included. */
export function queryBudgetMs(db: Database, kind: string): number {
  return Math.max(1, Math.round(db.analytics.budgetMs * (BUDGET_SHARE[kind] ?? 1)));
}

/** The query with its ActionsNode (and retention action entities) read from the project's actions (actions-node.ts); an unknown action is a 400. */
async function withActions(db: Database, projectId: number, query: unknown): Promise<unknown> {
  const ids = actionIdsOf(query);
  if (ids.length === 0) return query;
  return expandActionNodes(query, await actionDefinitions(db.prisma, projectId, ids));
}

/** The answer of `query` for the project, from the cache while fresh, else computed (and cached). */
export async function computeQuery(db: Database, projectId: number, query: unknown, options: QueryOptions = {}): Promise<ComputedQuery> {
  const expanded = await withActions(db, projectId, query);
  const { zone, testAccountFilters } = await projectQuerySettings(db.prisma, projectId);
  const dashboard = options.filtersOverride ?? null;
  // Read once per query, laid over it like a dashboard's properties (test-accounts.ts): in the spec, so in the cache key.
  const override = asksForTestAccounts(expanded, dashboard) ? withTestAccounts(dashboard, testAccountGroup(testAccountFilters)) : dashboard;
  const { kind, spec } = resolveQuery(expanded, override);
  const env: QueryEnv = { db, projectId, zone, now: options.now ?? new Date() };
  const version = kind.cacheVersion ? await kind.cacheVersion(env, spec) : "";
  const key = `${projectId}|${zone}|${kind.kind}|${canonicalJson(spec)}${version ? `|${version}` : ""}`;
  const cacheKey = `cache_${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
  const cached = await resultCacheOf(db).get(key, options.refresh ?? "blocking", async () => {
    // On the analytical connections, within the kind's budget (a 429 naming it past that).
    const answer = await db.analytics.run((analytical) => kind.compute({ ...env, db: analytical }, spec), {
      signal: options.signal,
      budgetMs: queryBudgetMs(db, kind.kind),
    });
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

/** Before storing a query: its kind fits (a 400 naming the field, as `query__source__interval`), and what only the data can refuse (regular expressions, cohorts) passes. */
export async function checkQuery(db: Database, projectId: number, query: unknown): Promise<void> {
  let resolved: ReturnType<typeof resolveQuery>;
  try {
    resolved = resolveQuery(await withActions(db, projectId, query));
  } catch (error) {
    if (!(error instanceof QueryNodeError)) throw error;
    throw new AppError("invalid_input", error.issue, ["query", ...error.path].map(String).join("__"));
  }
  const { kind, spec } = resolved;
  const zone = await projectZone(db.prisma, projectId);
  await kind.check({ db, projectId, zone, now: new Date() }, spec);
}

/** `POST …/query/`: the request's query run for the caller's project. */
export async function runQuery(ctx: Context, request: QueryRequest): Promise<QueryResponse> {
  const computed = await computeQuery(ctx.db, ctx.project.id, request.query, { refresh: request.refresh, filtersOverride: request.filters_override ?? null, signal: ctx.signal });
  return queryResponse(computed);
}
