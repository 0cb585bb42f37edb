/**
 * Request shapes of the insights API, shared by REST (`/api/…/insights/`), tRPC and forms:
 * the insight query (PostHog's query nodes: a `TrendsQuery`, bare or inside an
 * `InsightVizNode`), dashboard filter overrides, and the insight's own fields.
 *
 * A query keeps fields Burrow does not read (chart settings such as `showLegend`), but a
 * field that would change the answer and is not supported (actions, other maths, formulas,
 * comparisons, multiple breakdowns, …) is a 400 rather than silently ignored.
 */
import { z } from "zod";
import { INT4_MAX, recordId } from "@/server/input/record-id";
import { drfBoolean } from "@/server/input/drf";
import { propertiesParamSchema, type PropertyGroup } from "@/server/properties/contract";
import { pageQuery } from "@/server/input/page";
import { checkDateValue, INTERVALS, type Interval } from "./date-range";

export const MATHS = ["total", "dau"] as const;
export type Math = (typeof MATHS)[number];

/** Displays that chart one value per bucket. */
export const TIME_SERIES_DISPLAYS = ["ActionsLineGraph", "ActionsBar", "ActionsAreaGraph"] as const;
/** Displays of one value for the whole range (PostHog's `is_total_value`): the number insight is `BoldNumber`. */
export const TOTAL_VALUE_DISPLAYS = ["BoldNumber", "ActionsPie", "ActionsBarValue", "ActionsTable"] as const;
export const DISPLAYS = [...TIME_SERIES_DISPLAYS, ...TOTAL_VALUE_DISPLAYS] as const;
export type Display = (typeof DISPLAYS)[number];

export const BREAKDOWN_TYPES = ["event", "person", "cohort"] as const;
/** A cohort breakdown's values: cohort ids, or "all" (everyone; PostHog's ALL_USERS_COHORT_ID, 0, reads as "all"). */
export type CohortBreakdownValue = number | "all";
/** The most cohorts one breakdown may name: each is one pass over the events. */
export const MAX_COHORT_BREAKDOWN = 25;
/** PostHog's breakdown limit was 10 for years (now 25); the issue asks for top 10 plus "other". */
export const DEFAULT_BREAKDOWN_LIMIT = 10;
export const MAX_BREAKDOWN_LIMIT = 100;
export const MAX_SERIES = 20;

const shown = (input: unknown) => (typeof input === "string" ? `'${input.slice(0, 60)}'` : JSON.stringify(input)?.slice(0, 60) ?? String(input));

/** Property filters: PostHog's list of filters, or a group (`{type: "AND", values}`); null or [] is none. */
const propertiesField = z
  .unknown()
  .transform((input, ctx): PropertyGroup | null => {
    if (input === null || input === undefined) return null;
    const result = propertiesParamSchema.safeParse(input);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return result.data.values.length === 0 ? null : result.data;
  })
  .optional();

const dateValue = (name: string) =>
  z
    .string({ error: `${name} must be a string.` })
    .max(100, `${name} must be at most 100 characters.`)
    .superRefine((value, ctx) => {
      try {
        checkDateValue(name, value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    })
    .nullish();

export const dateRangeSchema = z.looseObject({
  date_from: dateValue("date_from"),
  date_to: dateValue("date_to").refine((value) => value !== "all", "date_to cannot be 'all'."),
});

const intervalSchema = z.enum(INTERVALS, { error: (issue) => `interval ${shown(issue.input)} is not supported; use one of ${INTERVALS.join(", ")}.` });

const COHORT_BREAKDOWN_HELP = `A cohort breakdown takes a cohort id, "all" (all users), or a list of up to ${MAX_COHORT_BREAKDOWN} of them.`;

/** A cohort breakdown's `breakdown` (PostHog: an id, "all", or a list of them; ids may come as digit strings), each value once. */
function cohortBreakdownValues(input: unknown): CohortBreakdownValue[] | null {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0 || list.length > MAX_COHORT_BREAKDOWN) return null;
  const values: CohortBreakdownValue[] = [];
  for (const item of list) {
    let value: CohortBreakdownValue;
    // 0 is PostHog's ALL_USERS_COHORT_ID, which its newer clients send for "all".
    if (item === "all" || item === 0 || item === "0") value = "all";
    else if (typeof item === "number" || (typeof item === "string" && /^\d{1,10}$/.test(item))) value = Number(item);
    else return null;
    if (value !== "all" && !(Number.isInteger(value) && value > 0 && value <= INT4_MAX)) return null;
    if (!values.includes(value)) values.push(value);
  }
  return values;
}

export const breakdownFilterSchema = z
  .looseObject({
    // A property name; for breakdown_type "cohort", cohort ids (both checked below, by type).
    breakdown: z.union([z.string(), z.number(), z.array(z.unknown())], { error: "breakdown must be a property name (a string)." }).nullish(),
    breakdown_type: z
      .enum(BREAKDOWN_TYPES, { error: (issue) => `breakdown_type ${shown(issue.input)} is not supported; use 'event', 'person' or 'cohort'.` })
      .nullish(),
    breakdown_limit: z.number().int("breakdown_limit must be an integer.").min(1).max(MAX_BREAKDOWN_LIMIT).nullish(),
    breakdown_hide_other_aggregation: z.boolean().nullish(),
    breakdowns: z.array(z.unknown()).max(0, "Multiple breakdowns (breakdowns) are not supported; use breakdown.").nullish(),
  })
  .superRefine((filter, ctx) => {
    if (filter.breakdown === null || filter.breakdown === undefined) return;
    if (filter.breakdown_type === "cohort") {
      if (!cohortBreakdownValues(filter.breakdown)) ctx.addIssue({ code: "custom", message: COHORT_BREAKDOWN_HELP, path: ["breakdown"] });
    } else if (typeof filter.breakdown !== "string") {
      ctx.addIssue({ code: "custom", message: "breakdown must be a property name (a string).", path: ["breakdown"] });
    } else if (filter.breakdown.length === 0 || filter.breakdown.length > 400) {
      ctx.addIssue({ code: "custom", message: "breakdown must be a property name of 1 to 400 characters.", path: ["breakdown"] });
    }
  })
  .nullish();

const notSupported = (what: string) => z.unknown().refine((value) => value === undefined || value === null || value === false, `${what} is not supported yet.`).optional();

const eventsNodeSchema = z.looseObject({
  kind: z.literal("EventsNode", { error: (issue) => `Series kind ${shown(issue.input)} is not supported; use EventsNode (Burrow has no actions).` }).optional(),
  /** The event; null (or absent) means all events. */
  event: z.string({ error: "event must be a string or null." }).min(1, "event must not be empty; use null for all events.").max(200).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  math: z.enum(MATHS, { error: (issue) => `math ${shown(issue.input)} is not supported; use 'total' (count of events) or 'dau' (unique users).` }).nullish(),
  properties: propertiesField,
  math_property: notSupported("math_property"),
  math_hogql: notSupported("math_hogql"),
});

export const trendsQuerySchema = z.looseObject({
  kind: z.literal("TrendsQuery", { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use TrendsQuery.` }),
  series: z.array(eventsNodeSchema, { error: "series must be a list of EventsNode." }).max(MAX_SERIES, `At most ${MAX_SERIES} series.`).default([]),
  interval: intervalSchema.nullish(),
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesField,
  breakdownFilter: breakdownFilterSchema,
  trendsFilter: z
    .looseObject({
      display: z.enum(DISPLAYS, { error: (issue) => `display ${shown(issue.input)} is not supported; use one of ${DISPLAYS.join(", ")}.` }).nullish(),
      formula: notSupported("formula"),
      formulas: notSupported("formulas"),
    })
    .nullish(),
  compareFilter: z.looseObject({ compare: notSupported("compareFilter.compare") }).nullish(),
  samplingFactor: z.unknown().refine((value) => value === undefined || value === null || value === 1, "samplingFactor is not supported yet.").optional(),
  /** Burrow has no test-account filters, so this filters nothing (as PostHog with none defined). */
  filterTestAccounts: z.boolean().nullish(),
});
export type TrendsQueryInput = z.output<typeof trendsQuerySchema>;

/** An insight's `query`: a TrendsQuery, or PostHog's InsightVizNode around one. */
export const insightQuerySchema = z.unknown().transform((input, ctx): TrendsQueryInput => {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
  if (!isObject(input)) {
    ctx.addIssue({ code: "custom", message: "query must be an object (a TrendsQuery or an InsightVizNode)." });
    return z.NEVER;
  }
  const wrapped = input.kind === "InsightVizNode";
  const source = wrapped ? input.source : input;
  const result = trendsQuerySchema.safeParse(source);
  if (!result.success) {
    for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: wrapped ? ["source", ...issue.path] : issue.path });
    return z.NEVER;
  }
  return result.data;
});

/**
 * Filters a dashboard (or one of its tiles) lays over its insights, PostHog's
 * DashboardFilter: a date range replaces the insight's, properties are ANDed with its own,
 * an interval or breakdown replaces its own.
 */
export const filtersOverrideSchema = z.looseObject({
  date_from: dateValue("date_from"),
  date_to: dateValue("date_to").refine((value) => value !== "all", "date_to cannot be 'all'."),
  properties: propertiesField,
  interval: intervalSchema.nullish(),
  breakdown_filter: breakdownFilterSchema,
});
export type FiltersOverride = z.output<typeof filtersOverrideSchema>;

/** A trends query reduced to what decides its answer: the cache key and the SQL are made from this. */
export interface TrendsSpec {
  interval: Interval;
  dateRange: { date_from: string | null; date_to: string | null };
  totalValue: boolean;
  properties: PropertyGroup | null;
  series: { event: string | null; math: Math; properties: PropertyGroup | null; name: string | null; custom_name: string | null }[];
  breakdown: { key: string; type: "event" | "person"; limit: number; hideOther: boolean } | { type: "cohort"; cohorts: CohortBreakdownValue[] } | null;
}

/** The breakdown of a parsed filter (its shape per type checked by breakdownFilterSchema). */
function breakdownSpec(filter: z.output<typeof breakdownFilterSchema>): TrendsSpec["breakdown"] {
  const breakdown = filter?.breakdown;
  if (breakdown === null || breakdown === undefined || breakdown === "") return null;
  if (filter!.breakdown_type === "cohort") return { type: "cohort", cohorts: cohortBreakdownValues(breakdown)! };
  return {
    key: String(breakdown),
    type: filter!.breakdown_type ?? "event",
    limit: filter!.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT,
    hideOther: filter!.breakdown_hide_other_aggregation ?? false,
  };
}

function andGroups(a: PropertyGroup | null, b: PropertyGroup | null): PropertyGroup | null {
  if (!a) return b;
  if (!b) return a;
  return { type: "AND", values: [a, b] };
}

/** The answer-deciding part of a parsed query, with a dashboard's filters laid over it. */
export function trendsSpec(query: TrendsQueryInput, override: FiltersOverride | null = null): TrendsSpec {
  const display = query.trendsFilter?.display ?? "ActionsLineGraph";
  const totalValue = (TOTAL_VALUE_DISPLAYS as readonly string[]).includes(display);
  let dateRange = { date_from: query.dateRange?.date_from ?? null, date_to: query.dateRange?.date_to ?? null };
  if (override?.date_from || override?.date_to) dateRange = { date_from: override.date_from ?? null, date_to: override.date_to ?? null };
  const breakdownFilter = override?.breakdown_filter !== undefined && override.breakdown_filter !== null ? override.breakdown_filter : query.breakdownFilter;
  return {
    // PostHog computes total values over days whatever the interval.
    interval: totalValue ? "day" : (override?.interval ?? query.interval ?? "day"),
    dateRange,
    totalValue,
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    series: query.series.map((node) => ({
      event: node.event ?? null,
      math: node.math ?? "total",
      properties: node.properties ?? null,
      name: node.name ?? null,
      custom_name: node.custom_name ?? null,
    })),
    breakdown: breakdownSpec(breakdownFilter),
  };
}

// ---------------------------------------------------------------------------------------
// The insight resource

const tagList = z.array(z.string({ error: "Not a valid string." }).max(255, "Ensure this field has no more than 255 characters."), {
  error: "Expected a list of items.",
});

/** Keeps the query as the client sent it (to store), after checking that it parses. */
const storedQuery = z.unknown().superRefine((value, ctx) => {
  const result = insightQuerySchema.safeParse(value);
  if (!result.success) for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
});

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
