/**
 * Request shapes of the insights API, shared by REST (`/api/…/insights/`), tRPC and forms:
 * the insight's own fields, its query (any kind the query API runs, bare or inside an
 * `InsightVizNode`: query/contract.ts) and how a result is asked for.
 */
import { z } from "zod";
import { INT4_MAX, recordId } from "@/server/input/record-id";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { filtersOverrideSchema } from "@/server/analytics/nodes";
import { queryNodeSchema } from "@/server/query/contract";
import { userBasicSchema } from "@/server/accounts/contract";

export { filtersOverrideSchema, type FiltersOverride } from "@/server/analytics/nodes";

// ---------------------------------------------------------------------------------------
// The insight resource

const tagList = z.array(z.string({ error: "Not a valid string." }).max(255, "Ensure this field has no more than 255 characters."), {
  error: "Expected a list of items.",
});

/** Kept as the client sent it (to store); its kind is checked here, its fields by the kind when the insight is saved. */
const storedQuery = queryNodeSchema;

const writableFields = {
  name: z.string({ error: "Not a valid string." }).max(400, "Ensure this field has no more than 400 characters.").nullable(),
  derived_name: z.string({ error: "Not a valid string." }).max(400, "Ensure this field has no more than 400 characters.").nullable(),
  description: z.string({ error: "Not a valid string." }).max(10_000, "Ensure this field has no more than 10000 characters."),
  query: storedQuery,
  saved: drfBoolean,
  favorited: drfBoolean,
  deleted: drfBoolean,
  tags: tagList,
  /** Dashboards (ids) the insight is on: new ones get a tile, ones left out lose theirs. */
  dashboards: z.array(recordId(), { error: "Expected a list of items." }).max(100),
};

export const insightUpdateBody = z.object(writableFields).partial();
export type InsightUpdateBody = z.output<typeof insightUpdateBody>;

export const insightCreateBody = insightUpdateBody.refine((body) => body.query !== undefined && body.query !== null, {
  message: "This field is required.",
  path: ["query"],
});
export type InsightCreateBody = z.output<typeof insightCreateBody>;

/** `GET …/insights/`: newest change first; `short_id`, `saved`, `favorited`, `search`. */
export const insightListQuery = pageQuery.extend({
  short_id: z.string().max(100).optional(),
  saved: drfBoolean.optional(),
  favorited: drfBoolean.optional(),
  /** Case-insensitive text in the name, derived name or description. */
  search: z.string().max(400, "search must be at most 400 characters.").optional(),
});
export type InsightListQuery = z.output<typeof insightListQuery>;

/**
 * `refresh` as PostHog takes it: `true`/`force_blocking` recompute; `false`/`blocking`
 * (the default) answer from the cache while it is fresh and compute otherwise;
 * `force_cache` only answers from the cache (`result: null` when nothing is cached).
 */
export const refreshSchema = z
  .enum(["true", "false", "blocking", "force_blocking", "force_cache"], {
    error: "refresh must be one of true, false, blocking, force_blocking, force_cache.",
  })
  .transform((value): RefreshMode => (value === "true" || value === "force_blocking" ? "force" : value === "force_cache" ? "cache_only" : "blocking"));
export type RefreshMode = "force" | "blocking" | "cache_only";

const filtersOverrideParam = z
  .string()
  .max(100_000)
  .transform((text, ctx) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: "custom", message: "filters_override must be a JSON object." });
      return z.NEVER;
    }
    const result = filtersOverrideSchema.safeParse(json);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return result.data;
  });

/** `GET …/insights/:id/`: `refresh`, `from_dashboard` (its filters and the tile's apply), `filters_override` (JSON). */
export const insightRetrieveQuery = z.object({
  refresh: refreshSchema.optional(),
  from_dashboard: z.coerce.number({ error: "from_dashboard must be a dashboard id." }).int("from_dashboard must be a dashboard id.").positive().max(INT4_MAX).optional(),
  filters_override: filtersOverrideParam.optional(),
});
export type InsightRetrieveQuery = z.output<typeof insightRetrieveQuery>;

// ---------------------------------------------------------------------------------------
// What the insights API answers (the OpenAPI document's schemas; present.ts builds them)

/** A result with when it was computed (null fields: not computed, e.g. `refresh=force_cache` and nothing cached). */
export const computedInsightSchema = z.object({
  /** The kind's `results` (trends: series; funnels: steps; …); null when not computed. */
  result: z.array(z.unknown()).nullable(),
  /** Some breakdown values were folded into "other". */
  hasMore: z.boolean(),
  /** The result's column names where the kind has columns (HogQLQuery), else null: PostHog's `columns`. */
  columns: z.array(z.unknown()).nullable(),
  /**
   * Burrow's, for a LifecycleQuery (else null): the visitors of the range whose events came
   * without a person profile, whom lifecycle leaves out (the query API's `personlessVisitors`).
   */
  personlessVisitors: z.number().int().nonnegative().nullable(),
  is_cached: z.boolean(),
  /** When the result was computed; `last_refresh` is the same time under PostHog's name. */
  computed_at: z.iso.datetime().nullable(),
  last_refresh: z.iso.datetime().nullable(),
  /** Until when the cache serves this result. */
  cache_target_age: z.iso.datetime().nullable(),
  /** The project's time zone, in which buckets and dates are read. */
  timezone: z.string(),
  /** The date range the result covers, ISO 8601 in the project's time zone. */
  resolved_date_range: z.object({ date_from: z.string(), date_to: z.string() }).nullable(),
});
export type ComputedInsight = z.infer<typeof computedInsightSchema>;

export const insightSchema = computedInsightSchema
  .extend({
    id: z.number().int(),
    short_id: z.string(),
    name: z.string().nullable(),
    derived_name: z.string().nullable(),
    description: z.string(),
    query: z.unknown().describe("The insight's query node (InsightVizNode, TrendsQuery, HogQLQuery …), as saved."),
    filters: z.unknown().describe("PostHog's legacy filters; Burrow's insights are queries, so always {}."),
    favorited: z.boolean(),
    saved: z.boolean(),
    deleted: z.boolean(),
    tags: z.array(z.string()),
    /** Ids of the (live) dashboards the insight is on, and its tiles there. */
    dashboards: z.array(z.number().int()),
    dashboard_tiles: z.array(z.object({ id: z.number().int(), dashboard_id: z.number().int(), deleted: z.boolean() })),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
    last_modified_at: z.iso.datetime(),
    last_modified_by: userBasicSchema.nullable(),
    /** When this insight was last computed (kept on the insight, also across restarts). */
    last_refresh: z.iso.datetime().nullable(),
    team_id: z.number().int(),
  })
  .meta({ id: "Insight" });
export type InsightResource = z.infer<typeof insightSchema>;
