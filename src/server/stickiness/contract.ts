/**
 * PostHog's StickinessQuery (schema-general.ts `StickinessQuery`, `StickinessFilter`),
 * checked, and reduced to the answer-deciding `StickinessSpec`.
 */
import { z } from "zod";
import type { PropertyGroup } from "@/server/properties/contract";
import type { Interval } from "@/server/analytics/date-range";
import {
  andGroups,
  breakdownFilterSchema,
  breakdownSpec,
  dateRangeSchema,
  intervalSchema,
  MAX_SERIES,
  notSupported,
  overriddenBreakdown,
  overriddenDateRange,
  propertiesField,
  shown,
  type FiltersOverride, actionIdField, actionOfNode } from "@/server/analytics/nodes";

export const COMPUTED_AS = ["non_cumulative", "cumulative"] as const;
export const CRITERIA_OPERATORS = ["gte", "lte", "exact"] as const;
export type CriteriaOperator = (typeof CRITERIA_OPERATORS)[number];
/** Maths that choose another actor than the person: not supported. */
const OTHER_ACTOR_MATHS = ["unique_group", "hogql"];
export const MAX_INTERVAL_COUNT = 1000;

const eventsNodeSchema = z.looseObject({
  kind: z.literal("EventsNode", { error: (issue) => `Series kind ${shown(issue.input)} is not supported; use EventsNode or ActionsNode.` }).optional(),
  /** The event; null (or absent) means all events. */
  event: z.string({ error: "event must be a string or null." }).min(1, "event must not be empty; use null for all events.").max(200).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  action_id: actionIdField,
  // Stickiness counts persons whatever the math, unless it names another actor.
  math: z
    .unknown()
    .refine((value) => !OTHER_ACTOR_MATHS.includes(value as string), "math 'unique_group' and 'hogql' are not supported; stickiness counts persons.")
    .optional(),
  math_group_type_index: notSupported("math_group_type_index (groups)"),
  properties: propertiesField,
});

export const stickinessQuerySchema = z.looseObject({
  kind: z.literal("StickinessQuery", { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use StickinessQuery.` }),
  series: z.array(eventsNodeSchema, { error: "series must be a list of EventsNode." }).min(1, "At least one series is required.").max(MAX_SERIES, `At most ${MAX_SERIES} series.`),
  interval: intervalSchema.nullish(),
  intervalCount: z
    .number({ error: "intervalCount must be a number." })
    .int("intervalCount must be an integer.")
    .min(1, "intervalCount must be at least 1.")
    .max(MAX_INTERVAL_COUNT, `intervalCount must be at most ${MAX_INTERVAL_COUNT}.`)
    .nullish(),
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesField,
  filterTestAccounts: z.boolean().nullish(),
  breakdownFilter: breakdownFilterSchema,
  compareFilter: z.looseObject({ compare: notSupported("compareFilter.compare") }).nullish(),
  samplingFactor: z.unknown().refine((value) => value === undefined || value === null || value === 1, "samplingFactor is not supported yet.").optional(),
  stickinessFilter: z
    .looseObject({
      computedAs: z.enum(COMPUTED_AS, { error: (issue) => `computedAs ${shown(issue.input)} is not supported; use non_cumulative or cumulative.` }).nullish(),
      stickinessCriteria: z
        .looseObject({
          operator: z.enum(CRITERIA_OPERATORS, { error: (issue) => `operator ${shown(issue.input)} is not supported; use gte, lte or exact.` }),
          value: z.number({ error: "value must be a number." }).int("value must be an integer.").min(0).max(1_000_000_000),
        })
        .nullish(),
    })
    .nullish(),
});
export type StickinessQueryInput = z.output<typeof stickinessQuerySchema>;

export interface StickinessSeriesSpec {
  event: string | null;
  properties: PropertyGroup | null;
  custom_name: string | null;
  /** The action the series reads (an ActionsNode), or null. */
  action: { id: number; name: string } | null;
}

export interface StickinessSpec {
  interval: Interval;
  intervalCount: number;
  dateRange: { date_from: string | null; date_to: string | null };
  cumulative: boolean;
  /** An interval counts for an actor when their events in it satisfy this (PostHog's HAVING count() op value); null: at least one. */
  criteria: { operator: CriteriaOperator; value: number } | null;
  properties: PropertyGroup | null;
  series: StickinessSeriesSpec[];
}

export function stickinessSpec(query: StickinessQueryInput, override: FiltersOverride | null = null): StickinessSpec {
  return {
    interval: override?.interval ?? query.interval ?? "day",
    intervalCount: query.intervalCount ?? 1,
    dateRange: overriddenDateRange(query.dateRange, override),
    cumulative: query.stickinessFilter?.computedAs === "cumulative",
    criteria: query.stickinessFilter?.stickinessCriteria ? { operator: query.stickinessFilter.stickinessCriteria.operator, value: query.stickinessFilter.stickinessCriteria.value } : null,
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    series: query.series.map((node) => ({ event: node.event ?? null, properties: node.properties ?? null, custom_name: node.custom_name ?? null, action: actionOfNode(node) })),
  };
}

/** Whether the (possibly overridden) breakdown asks for one: stickiness has none. */
export function asksBreakdown(query: StickinessQueryInput, override: FiltersOverride | null): boolean {
  return breakdownSpec(overriddenBreakdown(query.breakdownFilter, override)) !== null;
}
