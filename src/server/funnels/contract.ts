/**
 * PostHog's FunnelsQuery (schema-general.ts `FunnelsQuery`, `FunnelsFilter`), checked, and
 * reduced to the answer-deciding `FunnelsSpec` (the cache key and the event read are made
 * from it). The range checks are PostHog's FunnelBase's, with its messages; fields that
 * would change the answer and that Burrow cannot honour (actions, HogQL aggregation, groups,
 * optional steps) are a 400 naming the field, chart settings pass through unread.
 */
import { z } from "zod";
import { RULE } from "@/server/analytics/kind";
import type { PropertyGroup } from "@/server/properties/contract";
import type { Interval } from "@/server/analytics/date-range";
import { canonicalJson } from "@/server/analytics/cache";
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
  type BreakdownSpec,
  type FiltersOverride, actionIdField, actionOfNode } from "@/server/analytics/nodes";

export const FUNNEL_ORDER_TYPES = ["ordered", "strict", "unordered"] as const;
export type FunnelOrderType = (typeof FUNNEL_ORDER_TYPES)[number];
export const FUNNEL_VIZ_TYPES = ["steps", "time_to_convert", "trends"] as const;
export type FunnelVizType = (typeof FUNNEL_VIZ_TYPES)[number];
export const WINDOW_UNITS = ["second", "minute", "hour", "day", "week", "month"] as const;
export type WindowUnit = (typeof WINDOW_UNITS)[number];
export const ATTRIBUTION_TYPES = ["first_touch", "last_touch", "all_events", "step"] as const;
export type AttributionType = (typeof ATTRIBUTION_TYPES)[number];

/** PostHog's DATERANGE_MAP in seconds: a month is 31 days. */
export const WINDOW_UNIT_SECONDS: Record<WindowUnit, number> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 7 * 86_400, month: 31 * 86_400 };
/** PostHog's default conversion window: 14 days. */
export const DEFAULT_WINDOW = { interval: 14, unit: "day" as WindowUnit };
/** The most exclusions one funnel may have (each is a matcher of the event read, beside the steps). */
export const MAX_EXCLUSIONS = 10;
/** PostHog clamps a custom bin count of time to convert to 1..90. */
export const MAX_BIN_COUNT = 90;

const actionsRefused = (issue: { input: unknown }) => `Step kind ${shown(issue.input)} is not supported; use EventsNode or ActionsNode.`;

const eventsNodeSchema = z.looseObject({
  kind: z.literal("EventsNode", { error: actionsRefused }).optional(),
  /** The event; null (or absent) means any event. */
  event: z.string({ error: "event must be a string or null." }).min(1, "event must not be empty; use null for all events.").max(200).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  action_id: actionIdField,
  properties: propertiesField,
  optionalInFunnel: notSupported("optionalInFunnel"),
  math_hogql: notSupported("math_hogql"),
});

const exclusionSchema = z.looseObject({
  kind: z.literal("EventsNode", { error: (issue) => `Exclusion kind ${shown(issue.input)} is not supported; use EventsNode or ActionsNode.` }).optional(),
  event: z.string({ error: "event must be a string or null." }).min(1).max(200).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  action_id: actionIdField,
  properties: propertiesField,
  funnelFromStep: z.number({ error: "funnelFromStep must be a step index." }).int().min(0),
  funnelToStep: z.number({ error: "funnelToStep must be a step index." }).int().min(0),
});

const stepIndex = (name: string) => z.number({ error: `${name} must be a step index.` }).int(`${name} must be an integer.`).nullish();

export const funnelsFilterSchema = z.looseObject({
  funnelWindowInterval: z.number({ error: "funnelWindowInterval must be a number." }).int("funnelWindowInterval must be an integer.").min(1, "funnelWindowInterval must be at least 1.").max(100_000, "funnelWindowInterval must be at most 100,000.").nullish(),
  funnelWindowIntervalUnit: z
    .enum(WINDOW_UNITS, { error: (issue) => `funnelWindowIntervalUnit ${shown(issue.input)} is not supported; use one of ${WINDOW_UNITS.join(", ")}.` })
    .nullish(),
  funnelOrderType: z.enum(FUNNEL_ORDER_TYPES, { error: (issue) => `funnelOrderType ${shown(issue.input)} is not supported; use ordered, strict or unordered.` }).nullish(),
  funnelVizType: z.enum(FUNNEL_VIZ_TYPES, { error: (issue) => `funnelVizType ${shown(issue.input)} is not supported; use steps, time_to_convert or trends.` }).nullish(),
  exclusions: z.array(exclusionSchema).max(MAX_EXCLUSIONS, `At most ${MAX_EXCLUSIONS} exclusions.`).nullish(),
  breakdownAttributionType: z
    .enum(ATTRIBUTION_TYPES, { error: (issue) => `breakdownAttributionType ${shown(issue.input)} is not supported; use ${ATTRIBUTION_TYPES.join(", ")}.` })
    .nullish(),
  breakdownAttributionValue: z.coerce.number({ error: "breakdownAttributionValue must be a step index." }).int().min(0).nullish(),
  funnelFromStep: stepIndex("funnelFromStep"),
  funnelToStep: stepIndex("funnelToStep"),
  binCount: z.number({ error: "binCount must be a number." }).int().nullish(),
  // The default aggregation (persons) is the only one Burrow has.
  funnelAggregateByHogQL: z
    .unknown()
    .refine((value) => value === undefined || value === null || value === "" || value === "person_id", "funnelAggregateByHogQL is not supported yet.")
    .optional(),
  funnelStepReference: z.enum(["total", "previous"]).nullish(),
});

export const funnelsQuerySchema = z
  .looseObject({
    kind: z.literal("FunnelsQuery", { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use FunnelsQuery.` }),
    series: z
      .array(eventsNodeSchema, { error: "series must be a list of EventsNode steps." })
      .min(1, "A funnel needs at least one step.")
      .max(MAX_SERIES, `At most ${MAX_SERIES} steps.`),
    interval: intervalSchema.nullish(),
    dateRange: dateRangeSchema.nullish(),
    properties: propertiesField,
    breakdownFilter: breakdownFilterSchema,
    funnelsFilter: funnelsFilterSchema.nullish(),
    aggregation_group_type_index: notSupported("aggregation_group_type_index"),
    samplingFactor: z.unknown().refine((value) => value === undefined || value === null || value === 1, "samplingFactor is not supported yet.").optional(),
    /** Burrow has no test-account filters, so this filters nothing (as PostHog with none defined). */
    filterTestAccounts: z.boolean().nullish(),
  })
  .superRefine((query, ctx) => {
    // PostHog's FunnelBase and funnel_udf checks, with their messages.
    const filter = query.funnelsFilter;
    const last = query.series.length - 1;
    const issue = (message: string, path: (string | number)[]) => ctx.addIssue({ code: "custom", message, path: ["funnelsFilter", ...path], params: RULE });
    const from = filter?.funnelFromStep;
    const to = filter?.funnelToStep;
    if (from !== null && from !== undefined && !(0 <= from && from <= last - 1)) {
      issue(`funnelFromStep is out of bounds. It must be between 0 and ${last - 1}.`, ["funnelFromStep"]);
    }
    if (to !== null && to !== undefined) {
      if (!(1 <= to && to <= last)) issue(`funnelToStep is out of bounds. It must be between 1 and ${last}.`, ["funnelToStep"]);
      else if (from !== null && from !== undefined && from >= to) {
        issue("Funnel step range is invalid. funnelToStep should be greater than funnelFromStep.", ["funnelToStep"]);
      }
    }
    const unordered = filter?.funnelOrderType === "unordered";
    (filter?.exclusions ?? []).forEach((exclusion, index) => {
      const at = ["exclusions", index];
      if (exclusion.funnelFromStep >= exclusion.funnelToStep) issue("Exclusion event range is invalid. End of range should be greater than start.", at);
      else if (exclusion.funnelFromStep >= last) issue("Exclusion event range is invalid. Start of range is greater than number of steps.", at);
      else if (exclusion.funnelToStep > last) issue("Exclusion event range is invalid. End of range is greater than number of steps.", at);
      else if (query.series.slice(exclusion.funnelFromStep, exclusion.funnelToStep + 1).some((step) => exclusionCoversStep(exclusion, step))) {
        issue("Exclusion steps cannot contain an event that's part of funnel steps.", at);
      } else if (unordered && (exclusion.funnelFromStep !== 0 || exclusion.funnelToStep !== last)) {
        issue("Partial Exclusions not allowed in unordered funnels", at);
      }
    });
    if ((filter?.breakdownAttributionType ?? "first_touch") === "step") {
      const value = filter?.breakdownAttributionValue ?? 0;
      if (value > last) issue(`breakdownAttributionValue is out of bounds. It must be between 0 and ${last}.`, ["breakdownAttributionValue"]);
      else if (unordered && value !== 0) issue("Only the first step can be used for breakdown attribution in unordered funnels", ["breakdownAttributionValue"]);
    }
    if (filter?.funnelVizType === "trends" && unordered) issue("Funnel trends of unordered funnels are not supported yet.", ["funnelVizType"]);
    if (filter?.funnelVizType === "time_to_convert" && last < 1) issue("Time to convert needs a funnel of at least two steps.", ["funnelVizType"]);
  });
export type FunnelsQueryInput = z.output<typeof funnelsQuerySchema>;

/** Every filter of a node as canonical text, to compare nodes as PostHog's is_equal / is_superset do. */
const filterTexts = (group: PropertyGroup | null | undefined) => (group ? group.values.map((value) => canonicalJson(value)) : []);

/**
 * The exclusion matches only events the step matches too (PostHog's is_equal / is_superset):
 * the same event, and every filter of the step among the exclusion's.
 */
function exclusionCoversStep(
  exclusion: { event?: string | null; properties?: PropertyGroup | null },
  step: { event?: string | null; properties?: PropertyGroup | null },
): boolean {
  if ((exclusion.event ?? null) !== (step.event ?? null)) return false;
  const exclusionFilters = new Set(filterTexts(exclusion.properties));
  return filterTexts(step.properties).every((text) => exclusionFilters.has(text));
}

export interface FunnelStepSpec {
  event: string | null;
  properties: PropertyGroup | null;
  name: string | null;
  custom_name: string | null;
  /** The action the step reads (an ActionsNode), or null. */
  action: { id: number; name: string } | null;
}

export interface FunnelExclusionSpec {
  event: string | null;
  properties: PropertyGroup | null;
  /** The exclusion applies between step `from` and step `to` (0-based, from < to). */
  from: number;
  to: number;
}

/** A funnel query reduced to what decides its answer. */
export interface FunnelsSpec {
  dateRange: { date_from: string | null; date_to: string | null };
  /** The entrance periods of funnel trends. */
  interval: Interval;
  properties: PropertyGroup | null;
  steps: FunnelStepSpec[];
  exclusions: FunnelExclusionSpec[];
  order: FunnelOrderType;
  viz: FunnelVizType;
  windowSeconds: number;
  fromStep: number | null;
  toStep: number | null;
  /** Time to convert's custom bin count, clamped to 1..90; null: automatic. */
  binCount: number | null;
  breakdown: BreakdownSpec;
  attribution: { type: AttributionType; step: number };
}

export function funnelsSpec(query: FunnelsQueryInput, override: FiltersOverride | null = null): FunnelsSpec {
  const filter = query.funnelsFilter ?? {};
  const viz = filter.funnelVizType ?? "steps";
  const breakdown = breakdownSpec(overriddenBreakdown(query.breakdownFilter, override));
  const attributionType = filter.breakdownAttributionType ?? "first_touch";
  return {
    dateRange: overriddenDateRange(query.dateRange, override),
    // Only trends has periods; the others read the range by days.
    interval: viz === "trends" ? (override?.interval ?? query.interval ?? "day") : "day",
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    steps: query.series.map((node) => ({ event: node.event ?? null, properties: node.properties ?? null, name: node.name ?? null, custom_name: node.custom_name ?? null, action: actionOfNode(node) })),
    exclusions: (filter.exclusions ?? []).map((node) => ({ event: node.event ?? null, properties: node.properties ?? null, from: node.funnelFromStep, to: node.funnelToStep })),
    order: filter.funnelOrderType ?? "ordered",
    viz,
    windowSeconds: (filter.funnelWindowInterval ?? DEFAULT_WINDOW.interval) * WINDOW_UNIT_SECONDS[filter.funnelWindowIntervalUnit ?? DEFAULT_WINDOW.unit],
    fromStep: filter.funnelFromStep ?? null,
    toStep: filter.funnelToStep ?? null,
    binCount: filter.binCount === null || filter.binCount === undefined ? null : Math.min(MAX_BIN_COUNT, Math.max(1, filter.binCount)),
    breakdown,
    attribution: { type: attributionType, step: attributionType === "step" ? (filter.breakdownAttributionValue ?? 0) : 0 },
  };
}

/** FunnelsActorsQuery's selector beside its `source`: which persons of the funnel. */
export const funnelsActorsSelectorSchema = z.looseObject({
  /** 1-based: the persons who reached the step; negative: who reached step |n|-1 but not |n| (-2: did step 1, not step 2). */
  funnelStep: z
    .number({ error: "funnelStep must be a step number." })
    .int()
    .refine((value) => value !== 0, "Funnel steps are 1-indexed, so step 0 doesn't exist")
    .refine((value) => value !== -1, "The first valid drop-off argument for funnelStep is -2. -2 refers to persons who performed the first step but never made it to the second.")
    .nullish(),
  /** 1-based steps: the persons whose furthest step is one of them. */
  funnelCustomSteps: z.array(z.number().int().min(1)).max(MAX_SERIES).nullish(),
  /** The breakdown value of the persons: a property value (or list of them), a cohort id. */
  funnelStepBreakdown: z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()])).max(10)]).nullish(),
  /** Funnel trends: the entrance period (its start, a date or datetime of the project's zone). */
  funnelTrendsEntrancePeriodStart: z.string().max(100).nullish(),
  /** Funnel trends: true for the persons who entered but did not convert. */
  funnelTrendsDropOff: z.boolean().nullish(),
  includeRecordings: z.unknown().optional(),
});
export type FunnelsActorsSelector = z.output<typeof funnelsActorsSelectorSchema>;
