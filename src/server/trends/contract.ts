/**
 * PostHog's TrendsQuery (schema-general.ts), checked, and reduced to the answer-deciding
 * `TrendsSpec` (the cache key and the SQL are made from it).
 */
import { z } from "zod";
import type { PropertyGroup } from "@/server/properties/contract";
import type { Interval } from "@/server/analytics/date-range";
import {
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

export const MATHS = ["total", "dau"] as const;
export type Math = (typeof MATHS)[number];

/** Displays that chart one value per bucket. */
export const TIME_SERIES_DISPLAYS = ["ActionsLineGraph", "ActionsBar", "ActionsAreaGraph"] as const;
/** Displays of one value for the whole range (PostHog's `is_total_value`): the number insight is `BoldNumber`. */
export const TOTAL_VALUE_DISPLAYS = ["BoldNumber", "ActionsPie", "ActionsBarValue", "ActionsTable"] as const;
export const DISPLAYS = [...TIME_SERIES_DISPLAYS, ...TOTAL_VALUE_DISPLAYS] as const;
export type Display = (typeof DISPLAYS)[number];

export { MAX_SERIES } from "@/server/analytics/nodes";

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

/** A trends query reduced to what decides its answer: the cache key and the SQL are made from this. */
export interface TrendsSpec {
  interval: Interval;
  dateRange: { date_from: string | null; date_to: string | null };
  totalValue: boolean;
  properties: PropertyGroup | null;
  series: { event: string | null; math: Math; properties: PropertyGroup | null; name: string | null; custom_name: string | null }[];
  breakdown: BreakdownSpec;
}

/** The answer-deciding part of a parsed query, with a dashboard's filters laid over it. */
export function trendsSpec(query: TrendsQueryInput, override: FiltersOverride | null = null): TrendsSpec {
  const display = query.trendsFilter?.display ?? "ActionsLineGraph";
  const totalValue = (TOTAL_VALUE_DISPLAYS as readonly string[]).includes(display);
  const dateRange = overriddenDateRange(query.dateRange, override);
  const breakdownFilter = overriddenBreakdown(query.breakdownFilter, override);
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
