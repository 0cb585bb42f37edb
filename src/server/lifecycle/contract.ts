/**
 * PostHog's LifecycleQuery (schema-general.ts `LifecycleQuery`), checked, and reduced to
 * the answer-deciding `LifecycleSpec`.
 */
import { z } from "zod";
import type { PropertyGroup } from "@/server/properties/contract";
import type { Interval } from "@/server/analytics/date-range";
import { andGroups, dateRangeSchema, intervalSchema, notSupported, overriddenDateRange, propertiesField, shown, type FiltersOverride, actionIdField, actionOfNode } from "@/server/analytics/nodes";

export const LIFECYCLE_STATUSES = ["new", "returning", "resurrecting", "dormant"] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

const eventsNodeSchema = z.looseObject({
  kind: z.literal("EventsNode", { error: (issue) => `Series kind ${shown(issue.input)} is not supported; use EventsNode or ActionsNode.` }).optional(),
  /** The event; null (or absent) means all events. */
  event: z.string({ error: "event must be a string or null." }).min(1, "event must not be empty; use null for all events.").max(200).nullish(),
  name: z.string().max(400).nullish(),
  custom_name: z.string().max(400).nullish(),
  action_id: actionIdField,
  properties: propertiesField,
});

export const lifecycleQuerySchema = z.looseObject({
  kind: z.literal("LifecycleQuery", { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use LifecycleQuery.` }),
  // PostHog ANDs every series' conditions into one filter; the insight has one series.
  series: z.array(eventsNodeSchema, { error: "series must be a list of EventsNode." }).min(1, "At least one series is required.").max(1, "A lifecycle has one series."),
  interval: intervalSchema.nullish(),
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesField,
  filterTestAccounts: z.boolean().nullish(),
  aggregation_group_type_index: notSupported("aggregation_group_type_index (groups)"),
  samplingFactor: z.unknown().refine((value) => value === undefined || value === null || value === 1, "samplingFactor is not supported yet.").optional(),
});
export type LifecycleQueryInput = z.output<typeof lifecycleQuerySchema>;

export interface LifecycleSpec {
  interval: Interval;
  dateRange: { date_from: string | null; date_to: string | null };
  properties: PropertyGroup | null;
  series: { event: string | null; properties: PropertyGroup | null; custom_name: string | null; action: { id: number; name: string } | null };
}

export function lifecycleSpec(query: LifecycleQueryInput, override: FiltersOverride | null = null): LifecycleSpec {
  const node = query.series[0]!;
  return {
    interval: override?.interval ?? query.interval ?? "day",
    dateRange: overriddenDateRange(query.dateRange, override),
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    series: { event: node.event ?? null, properties: node.properties ?? null, custom_name: node.custom_name ?? null, action: actionOfNode(node) },
  };
}
