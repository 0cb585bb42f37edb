/**
 * The query API's request (PostHog's QueryRequest) and the query nodes an insight may
 * store: a kind's node bare, or inside PostHog's InsightVizNode (DataVisualizationNode /
 * DataTableNode for HogQL). Which kinds exist is query/kinds.ts's business.
 */
import { z } from "zod";
import { filtersOverrideSchema, shown } from "@/server/analytics/nodes";
import { AppError } from "@/server/errors";
import { isRuleIssue, QueryNodeError, RULE } from "@/server/analytics/kind";
import { QUERY_KINDS } from "./kinds";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The wrappers PostHog stores around a query (`{kind, source}`), whose `source` is what runs. */
const WRAPPERS = new Set(["InsightVizNode", "DataVisualizationNode", "DataTableNode"]);

/** The node to run of a stored or sent query: `source` of a wrapper, else the query itself; null when it is no object. */
export function runnableNode(query: unknown): { node: Record<string, unknown>; path: string[] } | null {
  if (!isObject(query)) return null;
  if (typeof query.kind === "string" && WRAPPERS.has(query.kind)) return isObject(query.source) ? { node: query.source, path: ["source"] } : null;
  return { node: query, path: [] };
}

/** The kinds `query.kind` may name, for messages. */
export const knownKinds = () => [...QUERY_KINDS.keys()].join(", ");

/** A query node whose kind is known (its fields are the kind's to check). */
export const queryNodeSchema = z.unknown().superRefine((query, ctx) => {
  const runnable = runnableNode(query);
  if (!runnable) {
    ctx.addIssue({ code: "custom", message: "query must be an object: a query node (such as a TrendsQuery) or an InsightVizNode around one." });
    return;
  }
  const kind = runnable.node.kind;
  const known = typeof kind === "string" ? QUERY_KINDS.get(kind) : undefined;
  if (!known) {
    ctx.addIssue({ code: "custom", message: `Query kind ${shown(kind)} is not supported; use one of ${knownKinds()}.`, path: [...runnable.path, "kind"] });
    return;
  }
  try {
    known.spec(runnable.node, null);
  } catch (error) {
    if (error instanceof QueryNodeError) ctx.addIssue({ code: "custom", message: error.issue, path: [...runnable.path, ...error.path], params: error.rule ? RULE : undefined });
    else if (error instanceof AppError) ctx.addIssue({ code: "custom", message: error.message, path: runnable.path });
    else throw error;
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
 * The request body checked as PostHog's QueryViewSet does: anything that does not fit the
 * schema (an unknown kind, a bad field, an unknown key) is DRF's ParseError, a 400
 * `{"type": "invalid_request", "code": "parse_error", "detail": "JSON parse error - …", "attr": null}`.
 * What only running can refuse (a regular expression, a cohort) and a kind's rules between
 * valid fields (a funnel's step range: PostHog's runner ValidationError) are validation errors.
 */
export function parseQueryRequest(body: unknown): QueryRequest {
  const result = queryRequestSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // A kind's rule between valid fields is PostHog's runner ValidationError, naming the field.
  if (isRuleIssue(issue)) throw new AppError("invalid_input", issue.message, issue.path.map(String).join("__"));
  const where = issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : "";
  const message = issue.code === "unrecognized_keys" ? `Extra inputs are not permitted: ${issue.keys.map((key) => shown(key)).join(", ")}.` : issue.message;
  throw new AppError("parse_error", `JSON parse error - ${where}${message}`);
}
