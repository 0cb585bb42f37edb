/**
 * PostHog's TrendsQuery (schema-general.ts), checked, and reduced to the answer-deciding
 * `TrendsSpec` (the cache key and the SQL are made from it).
 */
import { z } from "zod";
import type { PropertyGroup } from "@/server/properties/contract";
import type { Interval } from "@/server/analytics/date-range";
import {
  actionIdField,
  actionOfNode,
  andGroups,
  MAX_SERIES,
  breakdownFilterSchema,
  breakdownSpec,
  dateRangeSchema,
  intervalSchema,
  notSupported,
  overriddenBreakdown,
  overriddenDateRange,
  propertiesField,
  shown,
  type BreakdownSpec,
  type FiltersOverride,
} from "@/server/analytics/nodes";

import { COMPARE_TO, COMPARE_TO_MESSAGE } from "@/server/analytics/compare-to";
import { QueryNodeError } from "@/server/analytics/kind";
import { FormulaError, maxSeriesIndex, parseFormula } from "./formula";
import { PROPERTY_MATHS, SESSION_MATH_PROPERTIES, type PropertyMath, type SessionMathProperty } from "@/server/db/events/trend/query";
import { WEB_TREND_EVENTS } from "@/server/db/events/web/query";

/** PostHog's BaseMathType maths Burrow computes, and the PropertyMathType ones (with `math_property`). */
export const BASE_MATHS = ["total", "dau", "weekly_active", "monthly_active", "unique_session"] as const;
export const MATHS = [...BASE_MATHS, ...PROPERTY_MATHS] as const;
export type Math = (typeof MATHS)[number];
export const isPropertyMath = (math: Math): math is PropertyMath => (PROPERTY_MATHS as readonly string[]).includes(math);

/** Displays that chart one value per bucket (PostHog's bars: ActionsBar and ActionsStackedBar stack, ActionsUnstackedBar groups). */
export const TIME_SERIES_DISPLAYS = ["ActionsLineGraph", "ActionsBar", "ActionsStackedBar", "ActionsUnstackedBar", "ActionsAreaGraph", "ActionsLineGraphCumulative"] as const;
/** Displays of one value for the whole range (PostHog's NON_TIME_SERIES_DISPLAY_TYPES): the number insight is `BoldNumber`. */
export const TOTAL_VALUE_DISPLAYS = ["BoldNumber", "ActionsPie", "ActionsBarValue", "ActionsTable", "WorldMap"] as const;
export const DISPLAYS = [...TIME_SERIES_DISPLAYS, ...TOTAL_VALUE_DISPLAYS] as const;
export type Display = (typeof DISPLAYS)[number];

export { MAX_SERIES } from "@/server/analytics/nodes";


const eventsNodeSchema = z.looseObject({
  kind: z.literal("EventsNode", { error: (issue) => `Series kind ${shown(issue.input)} is not supported; use EventsNode or ActionsNode.` }).optional(),
  /** The event; null (or absent) means all events. */
  event: z.string({ error: "event must be a string or null." }).min(1, "event must not be empty; use null for all events.").max(200).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  math: z.enum(MATHS, { error: (issue) => `math ${shown(issue.input)} is not supported; use one of ${MATHS.join(", ")}.` }).nullish(),
  properties: propertiesField,
  math_property: z.string({ error: "math_property must be a property name." }).min(1).max(400).nullish(),
  math_property_type: z
    .enum(["event_properties", "session_properties"], {
      error: (issue) => `math_property_type ${shown(issue.input)} is not supported; property maths read event_properties or session_properties.`,
    })
    .nullish(),
  action_id: actionIdField,
  math_hogql: notSupported("math_hogql"),
  math_group_type_index: notSupported("math_group_type_index"),
}).superRefine((node, ctx) => {
  if (node.math && isPropertyMath(node.math) && !node.math_property) {
    ctx.addIssue({ code: "custom", message: `math '${node.math}' needs math_property (the numeric event property it aggregates).`, path: ["math_property"] });
  }
  if (node.math_property_type === "session_properties" && node.math_property && !isSessionMathProperty(node.math_property)) {
    ctx.addIssue({
      code: "custom",
      message: `Session property ${shown(node.math_property)} is not supported; property maths read the session properties ${SESSION_MATH_PROPERTIES.join(", ")}.`,
      path: ["math_property"],
    });
  }
});

const isSessionMathProperty = (name: string): name is SessionMathProperty => (SESSION_MATH_PROPERTIES as readonly string[]).includes(name);

/**
 * The session property a series' math reads, or null for an event property. PostHog reads
 * `$session_duration` from the session whatever math_property_type says (its
 * aggregating_on_session_duration looks at the name alone); other session properties need
 * math_property_type "session_properties".
 */
function sessionPropertyOf(node: { math_property?: string | null; math_property_type?: string | null }): SessionMathProperty | null {
  const name = node.math_property;
  if (!name) return null;
  if (name === "$session_duration") return name;
  return node.math_property_type === "session_properties" && isSessionMathProperty(name) ? name : null;
}

/** Formulas name series by letter: A is the first. */
const formulaText = z.string({ error: "formula must be a string." }).max(1000, "formula must be at most 1000 characters.");
const formulaNodeSchema = z.looseObject({ formula: formulaText, custom_name: z.string().max(400).nullish() });

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
      formula: formulaText.nullish(),
      formulas: z.array(formulaText).max(MAX_SERIES).nullish(),
      formulaNodes: z.array(formulaNodeSchema).max(MAX_SERIES).nullish(),
    })
    .nullish(),
  compareFilter: z
    .looseObject({
      compare: z.boolean({ error: "compareFilter.compare must be a boolean." }).nullish(),
      compare_to: z
        .string()
        .regex(COMPARE_TO, COMPARE_TO_MESSAGE)
        .nullish(),
    })
    .nullish(),
  /** PostHog's QueryLogTags: its productKey says which product sent the query (webTrendsServable). */
  tags: z
    .looseObject(
      { productKey: z.string({ error: "tags.productKey must be a string." }).max(100, "tags.productKey must be at most 100 characters.").nullish() },
      { error: "tags must be an object, such as {\"productKey\": \"web_analytics\"}." },
    )
    .nullish(),
  samplingFactor: z.unknown().refine((value) => value === undefined || value === null || value === 1, "samplingFactor is not supported yet.").optional(),
  /** Burrow has no test-account filters, so this filters nothing (as PostHog with none defined). */
  filterTestAccounts: z.boolean().nullish(),
});
export type TrendsQueryInput = z.output<typeof trendsQuerySchema>;

export interface TrendsFormula {
  formula: string;
  custom_name: string | null;
}

/** A trends query reduced to what decides its answer: the cache key and the SQL are made from this. */
export interface TrendsSpec {
  interval: Interval;
  dateRange: { date_from: string | null; date_to: string | null };
  display: Display;
  totalValue: boolean;
  properties: PropertyGroup | null;
  series: {
    event: string | null;
    math: Math;
    math_property: string | null;
    /** The session property the math reads instead of an event property (math_property names it). */
    session_property: SessionMathProperty | null;
    properties: PropertyGroup | null;
    name: string | null;
    custom_name: string | null;
    /** The action the series reads (an ActionsNode), or null. */
    action: { id: number; name: string } | null;
  }[];
  breakdown: BreakdownSpec;
  /** The formulas shown instead of the series (formulaNodes, else formulas, else formula, as PostHog's runner). */
  formulas: TrendsFormula[];
  /** With the previous period: `true` for the period just before, or a relative date (`-1w`) it starts at. */
  compare: true | string | null;
  /**
   * PostHog's web analytics trends (webTrendsServable): every series counts the sessions
   * starting in each bucket, from the sessions table (by-session-start.ts), not the events
   * falling in it.
   */
  bySessionStart: boolean;
}

/** PostHog's productKey of the queries its web analytics product sends (tags.productKey). */
export const WEB_ANALYTICS_PRODUCT = "web_analytics";

/**
 * Whether PostHog's dispatch would serve a web analytics TrendsQuery from its
 * session-start-attributed overview buckets (web_trends_lazy_precompute.py's
 * trends_precompute_metric): no breakdown, a chart over time that is not cumulative, and
 * every series a `$pageview` or `$screen` counted as events, unique users or sessions, or
 * averaging the session's duration or bounce. PostHog takes one series at a time; Burrow
 * answers several from one read of the sessions.
 */
function webTrendsServable(spec: Omit<TrendsSpec, "bySessionStart">): boolean {
  if (spec.breakdown !== null || spec.totalValue || spec.display === "ActionsLineGraphCumulative" || spec.series.length === 0) return false;
  return spec.series.every(
    (series) =>
      (WEB_TREND_EVENTS as readonly (string | null)[]).includes(series.event) &&
      (series.math === "total" || series.math === "dau" || series.math === "unique_session" || (series.math === "avg" && series.session_property !== null)),
  );
}

/** WorldMap breaks down by country (PostHog's world map insight) and keeps up to 250 of them. */
const WORLD_MAP_BREAKDOWN = { breakdown: "$geoip_country_code", breakdown_type: "event" as const, breakdown_limit: 250 };

/**
 * PostHog turns weekly active users into daily ones on charts of weeks or longer, and
 * monthly ones on charts of months (each bucket then is the window).
 */
function activeAsDau(math: Math, interval: Interval): Math {
  if (math === "weekly_active" && (interval === "week" || interval === "month")) return "dau";
  if (math === "monthly_active" && interval === "month") return "dau";
  return math;
}

/** A formula that parses and names only series the query has, else a 400 naming the field. */
function checkFormula(text: string, seriesCount: number, path: string[]): void {
  try {
    const highest = maxSeriesIndex(parseFormula(text));
    if (highest >= seriesCount) {
      const letters = Array.from({ length: seriesCount }, (_, i) => String.fromCharCode(65 + i));
      throw new FormulaError(
        `Formula references series ${String.fromCharCode(65 + highest)}, but only ${seriesCount} ${seriesCount === 1 ? "series is" : "series are"} defined (${letters.join(", ") || "none"}).`,
      );
    }
  } catch (error) {
    if (error instanceof FormulaError) throw new QueryNodeError(error.message, path);
    throw error;
  }
}

/** The answer-deciding part of a parsed query, with a dashboard's filters laid over it. */
export function trendsSpec(query: TrendsQueryInput, override: FiltersOverride | null = null): TrendsSpec {
  const display = query.trendsFilter?.display ?? "ActionsLineGraph";
  const totalValue = (TOTAL_VALUE_DISPLAYS as readonly string[]).includes(display);
  const dateRange = overriddenDateRange(query.dateRange, override);
  let breakdownFilter = overriddenBreakdown(query.breakdownFilter, override);
  if (display === "WorldMap") breakdownFilter = { ...WORLD_MAP_BREAKDOWN, ...(breakdownFilter?.breakdown ? breakdownFilter : {}), breakdown_limit: 250 };
  const trendsFilter = query.trendsFilter;
  const formulas: TrendsFormula[] = trendsFilter?.formulaNodes?.length
    ? trendsFilter.formulaNodes.map((node) => ({ formula: node.formula, custom_name: node.custom_name ?? null }))
    : trendsFilter?.formulas?.length
      ? trendsFilter.formulas.map((formula) => ({ formula, custom_name: null }))
      : trendsFilter?.formula
        ? [{ formula: trendsFilter.formula, custom_name: null }]
        : [];
  const formulaPath = trendsFilter?.formulaNodes?.length ? "formulaNodes" : trendsFilter?.formulas?.length ? "formulas" : "formula";
  for (const { formula } of formulas) checkFormula(formula, query.series.length, ["trendsFilter", formulaPath]);
  const compareFilter = query.compareFilter;
  // PostHog compares nothing against "all time".
  const compare = compareFilter?.compare && dateRange.date_from !== "all" ? (compareFilter.compare_to ?? true) : null;
  const spec: Omit<TrendsSpec, "bySessionStart"> = {
    // PostHog computes total values over days whatever the interval.
    interval: totalValue ? "day" : (override?.interval ?? query.interval ?? "day"),
    dateRange,
    display,
    totalValue,
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    series: query.series.map((node) => ({
      event: node.event ?? null,
      math: activeAsDau(node.math ?? "total", override?.interval ?? query.interval ?? "day"),
      math_property: node.math && isPropertyMath(node.math) ? (node.math_property ?? null) : null,
      session_property: node.math && isPropertyMath(node.math) ? sessionPropertyOf(node) : null,
      properties: node.properties ?? null,
      name: node.name ?? null,
      custom_name: node.custom_name ?? null,
      action: actionOfNode(node),
    })),
    breakdown: breakdownSpec(breakdownFilter),
    formulas,
    compare,
  };
  return { ...spec, bySessionStart: query.tags?.productKey === WEB_ANALYTICS_PRODUCT && webTrendsServable(spec) };
}
