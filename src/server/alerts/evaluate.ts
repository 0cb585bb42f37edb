/**
 * What an alert checks, as PostHog's trends alerts do (posthog/tasks/alerts/trends.py):
 * the insight recomputed over its last intervals, then a value per series compared with the
 * bounds. `absolute_value` reads the previous complete interval (the current one with
 * `check_ongoing_interval`); `relative_increase`/`relative_decrease` compare that interval
 * with the one before it, as a number or (percentage thresholds) a fraction: 0.1 is 10 %.
 * A non-time-series insight (a number, a pie, a table) is checked on its aggregate over its
 * own date range, absolute only. With a breakdown, each breakdown value of the series is checked.
 */
import type { FiltersOverride } from "@/server/analytics/nodes";
import { alertableInsight, trendsSourceOf, type AlertConfig, type ConditionType, type ThresholdConfiguration } from "./contract";

/** A check that cannot be made from the alert's settings or its insight (the check is Errored, with this message). */
export class AlertCheckError extends Error {
  override name = "AlertCheckError";
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const UNIT: Record<string, string> = { hour: "h", day: "d", week: "w", month: "m" };

export interface AlertQuery {
  query: Json;
  filtersOverride: FiltersOverride | null;
  timeSeries: boolean;
}

/** The query a check computes: the insight's, over its last three intervals when it is a time series. */
export function alertQuery(insightQuery: unknown, condition: ConditionType): AlertQuery {
  const source = trendsSourceOf(insightQuery);
  if (!source) throw new AlertCheckError("Alerts are checked on trends insights only; this insight is not a trends insight.");
  const timeSeries = alertableInsight(source)!.timeSeries;
  if (!timeSeries) {
    if (condition !== "absolute_value") throw new AlertCheckError("Relative conditions need a time-series trends insight (a line or bar chart), not a single value.");
    return { query: source, filtersOverride: null, timeSeries };
  }
  const interval = typeof source.interval === "string" && UNIT[source.interval] ? source.interval : "day";
  // The current interval and the two before it: enough for every condition, read from the end.
  return { query: source, filtersOverride: { date_from: `-2${UNIT[interval]}`, date_to: null, interval: interval as FiltersOverride["interval"] }, timeSeries };
}

interface SeriesResult {
  label?: string;
  data?: number[];
  aggregated_value?: number;
  breakdown_value?: unknown;
  compare_label?: string;
  action?: { order?: number } | null;
}

export interface Evaluation {
  /** The value checked (of the first breaching series, else of the first series). */
  value: number;
  /** Why the alert fires (empty: it does not). */
  breaches: string[];
}

function describe(value: number, percentage: boolean): string {
  return percentage ? `${Math.round(value * 10_000) / 100}%` : String(Math.round(value * 1000) / 1000);
}

/** The series the alert watches: those of `series_index` (each breakdown value), not the comparison period's. */
function watched(results: unknown, seriesIndex: number): SeriesResult[] {
  if (!Array.isArray(results)) throw new AlertCheckError("The insight has no result to check.");
  const items = (results as SeriesResult[]).filter((item) => isObject(item) && item.compare_label !== "previous");
  const byOrder = items.filter((item) => item.action?.order === seriesIndex);
  const chosen = byOrder.length > 0 ? byOrder : items.filter((item) => item.action?.order === undefined).slice(seriesIndex, seriesIndex + 1);
  if (chosen.length === 0) throw new AlertCheckError(`The insight has no series ${seriesIndex} (series_index counts from 0).`);
  return chosen;
}

function nameOf(item: SeriesResult): string {
  const label = item.label ?? "The series";
  return item.breakdown_value === undefined || item.breakdown_value === null ? label : `${label} (${String(item.breakdown_value)})`;
}

function valueOf(item: SeriesResult, condition: ConditionType, config: AlertConfig, timeSeries: boolean, percentage: boolean): number {
  if (!timeSeries) return Number(item.aggregated_value ?? 0);
  const data = item.data ?? [];
  const at = (fromEnd: number) => Number(data[data.length - fromEnd] ?? 0);
  // The interval read: the ongoing one (last) or the previous complete one.
  const offset = config.check_ongoing_interval ? 1 : 2;
  if (condition === "absolute_value") return at(offset);
  const current = at(offset);
  const before = at(offset + 1);
  const change = condition === "relative_increase" ? current - before : before - current;
  if (!percentage) return change;
  if (before === 0) return change > 0 ? Infinity : 0;
  return change / before;
}

export function evaluate(results: unknown, threshold: ThresholdConfiguration, condition: ConditionType, config: AlertConfig, timeSeries: boolean): Evaluation {
  const percentage = threshold.type === "percentage";
  const verb = condition === "relative_increase" ? "increased" : condition === "relative_decrease" ? "decreased" : "is";
  let value: number | null = null;
  const breaches: string[] = [];
  for (const item of watched(results, config.series_index)) {
    const v = valueOf(item, condition, config, timeSeries, percentage);
    const { lower, upper } = threshold.bounds;
    let breach: string | null = null;
    if (lower != null && v < lower) breach = `${nameOf(item)} (${describe(v, percentage)}) ${verb} less than lower threshold (${describe(lower, percentage)})`;
    else if (upper != null && v > upper) breach = `${nameOf(item)} (${describe(v, percentage)}) ${verb} more than upper threshold (${describe(upper, percentage)})`;
    if (breach) {
      if (breaches.length === 0) value = v;
      breaches.push(breach);
    } else if (value === null) value = v;
  }
  return { value: Number.isFinite(value) ? value! : value === Infinity ? Number.MAX_VALUE : 0, breaches };
}
