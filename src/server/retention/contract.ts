/**
 * PostHog's RetentionQuery (schema-general.ts `RetentionQuery`, `RetentionFilter`,
 * `RetentionEntity`), checked, and reduced to the answer-deciding `RetentionSpec`.
 */
import { z } from "zod";
import type { PropertyGroup } from "@/server/properties/contract";
import type { Interval } from "@/server/analytics/date-range";
import {
  andGroups,
  breakdownFilterSchema,
  breakdownSpec,
  dateRangeSchema,
  notSupported,
  overriddenBreakdown,
  overriddenDateRange,
  propertiesField,
  shown,
  type FiltersOverride,
} from "@/server/analytics/nodes";

export const PERIODS = ["Hour", "Day", "Week", "Month"] as const;
export type Period = (typeof PERIODS)[number];
export const PERIOD_INTERVAL: Record<Period, Interval> = { Hour: "hour", Day: "day", Week: "week", Month: "month" };

export const RETENTION_TYPES = ["retention_recurring", "retention_first_time", "retention_first_ever_occurrence"] as const;
export type RetentionType = (typeof RETENTION_TYPES)[number];

/** PostHog's runner default (its schema documents 8, but the runner's DEFAULT_TOTAL_INTERVALS is 7). */
export const DEFAULT_TOTAL_INTERVALS = 7;
export const MAX_TOTAL_INTERVALS = 366;
/** The most cells (cohorts × intervals) one answer may have. */
export const MAX_RETENTION_CELLS = 200_000;

/** PostHog's default entity: pageviews. */
const PAGEVIEW = "$pageview";

const retentionEntitySchema = z.looseObject({
  /** The event; null means any event. */
  id: z.union([z.string().min(1, "id must not be empty; use null for all events.").max(200), z.number()], { error: "id must be an event name." }).nullish(),
  type: z.enum(["events"], { error: (issue) => `Entity type ${shown(issue.input)} is not supported; use 'events' or 'actions'.` }).nullish(),
  kind: z.enum(["EventsNode"], { error: (issue) => `Entity kind ${shown(issue.input)} is not supported; use EventsNode or ActionsNode.` }).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  properties: propertiesField,
});

export const retentionQuerySchema = z.looseObject({
  kind: z.literal("RetentionQuery", { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use RetentionQuery.` }),
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesField,
  filterTestAccounts: z.boolean().nullish(),
  breakdownFilter: breakdownFilterSchema,
  aggregation_group_type_index: notSupported("aggregation_group_type_index (groups)"),
  samplingFactor: z.unknown().refine((value) => value === undefined || value === null || value === 1, "samplingFactor is not supported yet.").optional(),
  retentionFilter: z
    .looseObject({
      targetEntity: retentionEntitySchema.nullish(),
      returningEntity: retentionEntitySchema.nullish(),
      period: z.enum(PERIODS, { error: (issue) => `period ${shown(issue.input)} is not supported; use one of ${PERIODS.join(", ")}.` }).nullish(),
      totalIntervals: z
        .number({ error: "totalIntervals must be a number." })
        .int("totalIntervals must be an integer.")
        .min(1, "totalIntervals must be at least 1.")
        .max(MAX_TOTAL_INTERVALS, `totalIntervals must be at most ${MAX_TOTAL_INTERVALS}.`)
        .nullish(),
      retentionType: z.enum(RETENTION_TYPES, { error: (issue) => `retentionType ${shown(issue.input)} is not supported; use one of ${RETENTION_TYPES.join(", ")}.` }).nullish(),
      cumulative: z.boolean({ error: "cumulative must be a boolean." }).nullish(),
      minimumOccurrences: z.unknown().refine((value) => value === undefined || value === null || value === 1, "minimumOccurrences other than 1 is not supported yet.").optional(),
      timeWindowMode: z
        .unknown()
        .refine((value) => value === undefined || value === null || value === "strict_calendar_dates", "timeWindowMode '24_hour_windows' is not supported yet; use strict_calendar_dates.")
        .optional(),
      aggregationType: z.unknown().refine((value) => value === undefined || value === null || value === "count", "aggregationType other than 'count' is not supported yet.").optional(),
    })
    .nullish(),
});
export type RetentionQueryInput = z.output<typeof retentionQuerySchema>;

export interface RetentionEntitySpec {
  event: string | null;
  properties: PropertyGroup | null;
}

/** A retention query reduced to what decides its answer. */
export interface RetentionSpec {
  period: Period;
  totalIntervals: number;
  retentionType: RetentionType;
  cumulative: boolean;
  dateRange: { date_from: string | null; date_to: string | null };
  properties: PropertyGroup | null;
  target: RetentionEntitySpec;
  returning: RetentionEntitySpec;
}

function entitySpec(entity: z.output<typeof retentionEntitySchema> | null | undefined): RetentionEntitySpec {
  if (!entity) return { event: PAGEVIEW, properties: null };
  return { event: entity.id === null || entity.id === undefined ? null : String(entity.id), properties: entity.properties ?? null };
}

/** The answer-deciding part of a parsed query, with a dashboard's filters laid over it; a breakdown is a 400 (not supported yet). */
export function retentionSpec(query: RetentionQueryInput, override: FiltersOverride | null = null): RetentionSpec {
  return {
    period: query.retentionFilter?.period ?? "Day",
    totalIntervals: query.retentionFilter?.totalIntervals ?? DEFAULT_TOTAL_INTERVALS,
    // Anything but the two first-time modes counts recurring (as PostHog's runner).
    retentionType: query.retentionFilter?.retentionType ?? "retention_recurring",
    cumulative: query.retentionFilter?.cumulative ?? false,
    dateRange: overriddenDateRange(query.dateRange, override),
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    target: entitySpec(query.retentionFilter?.targetEntity),
    returning: entitySpec(query.retentionFilter?.returningEntity),
  };
}

/** Whether the (possibly overridden) breakdown asks for one: retention cannot break down yet. */
export function asksBreakdown(query: RetentionQueryInput, override: FiltersOverride | null): boolean {
  return breakdownSpec(overriddenBreakdown(query.breakdownFilter, override)) !== null;
}
