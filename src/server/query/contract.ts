/**
 * The query API's request (PostHog's QueryRequest) and the query nodes an insight may
 * store: a kind's node bare, or inside PostHog's InsightVizNode (DataVisualizationNode /
 * DataTableNode for HogQL). Which kinds exist, and each node's fields, are checked on the
 * server (query/service.ts `resolveQuery`): this file is imported by the browser's forms,
 * which must not pull in the kinds and their stores.
 */
import { z } from "zod";
import { filtersOverrideSchema } from "@/server/analytics/nodes";
import { isObject } from "@/server/input/json-object";
import type { KindAnswer } from "@/server/analytics/kind";

/** The wrappers PostHog stores around a query (`{kind, source}`), whose `source` is what runs. */
const WRAPPERS = new Set(["InsightVizNode", "DataVisualizationNode", "DataTableNode"]);

/** The node to run of a stored or sent query: `source` of a wrapper, else the query itself; null when it is no object. */
export function runnableNode(query: unknown): { node: Record<string, unknown>; path: string[] } | null {
  if (!isObject(query)) return null;
  if (typeof query.kind === "string" && WRAPPERS.has(query.kind)) return isObject(query.source) ? { node: query.source, path: ["source"] } : null;
  return { node: query, path: [] };
}

/** A query node, bare or in a wrapper, with a `kind` (whether the kind exists and its fields fit is the server's check). */
export const queryNodeSchema = z.unknown().superRefine((query, ctx) => {
  const runnable = runnableNode(query);
  if (!runnable) {
    ctx.addIssue({ code: "custom", message: "query must be an object: a query node (such as a TrendsQuery) or an InsightVizNode around one." });
  } else if (typeof runnable.node.kind !== "string") {
    ctx.addIssue({ code: "custom", message: "query needs a kind (such as TrendsQuery).", path: [...runnable.path, "kind"] });
  }
});

/**
 * `refresh` as PostHog's QueryRequest takes it: `true` and the `force_*` recompute modes
 * recompute; everything else answers from a fresh cache entry or computes. That includes
 * `force_cache`: PostHog's query endpoint turns cache-only into blocking ("Here in query
 * endpoint we always want to calculate if the cache is stale", posthog/api/query.py);
 * only saved insights read the cache alone. Burrow computes every query before answering,
 * so the async modes block too.
 */
export const queryRefreshSchema = z
  .union([
    z.boolean(),
    z.enum(["blocking", "async", "lazy_async", "force_blocking", "force_async", "force_cache", "async_except_on_cache_miss"], {
      error: "refresh must be one of blocking, async, lazy_async, force_blocking, force_async, force_cache, async_except_on_cache_miss (or true/false).",
    }),
  ])
  .nullish()
  .transform((value): "force" | "blocking" => (value === true || value === "force_blocking" || value === "force_async" ? "force" : "blocking"));

/** `POST …/query/`: PostHog's QueryRequest, whose pydantic model forbids unknown keys (the query node keeps its own). */
export const queryRequestSchema = z.strictObject({
  query: queryNodeSchema,
  refresh: queryRefreshSchema,
  /** PostHog's id of the query, for the status and cancel calls of its async modes; Burrow answers every mode at once, so it is only accepted. */
  client_query_id: z.string().max(200).nullish(),
  async: z.boolean().nullish(),
  filters_override: filtersOverrideSchema.nullish(),
  variables_override: z.record(z.string(), z.unknown()).nullish(),
  name: z.string().max(128).nullish(),
  /** PostHog's row-limit context (posthog_ai, …); Burrow has one set of limits. */
  limit_context: z.string().max(100).nullish(),
});
export type QueryRequest = z.output<typeof queryRequestSchema>;

/**
 * `POST …/query/`'s answer (PostHog's CachedQueryResponse): the kind's result fields
 * (`results`, and its own such as `columns`, `types`, `hasMore`), then the cache's. Null
 * fields are present as null, as PostHog dumps its pydantic models.
 */
export const queryResponseSchema = z
  .looseObject({
    results: z.unknown().describe("The kind's result: trends series, funnel steps, retention cohorts, HogQL rows …"),
    is_cached: z.boolean(),
    last_refresh: z.iso.datetime().nullable(),
    next_allowed_client_refresh: z.iso.datetime().nullable(),
    cache_key: z.string(),
    cache_target_age: z.iso.datetime().nullable(),
    timezone: z.string(),
    resolved_date_range: z.object({ date_from: z.string(), date_to: z.string() }).nullable(),
    timings: z.array(z.object({ k: z.string(), t: z.number() })),
    hogql: z.string().nullable(),
    error: z.string().nullable(),
    modifiers: z.record(z.string(), z.unknown()),
    query_status: z.null(),
    query_metadata: z.null(),
    calculation_trigger: z.null(),
  })
  .meta({ id: "QueryResponse" });
export type QueryResponse = z.infer<typeof queryResponseSchema>;

/** An answer of the query service (service.ts computeQuery), before present.ts shapes it. */
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
