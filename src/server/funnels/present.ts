/**
 * PostHog's shapes of a funnel's answer (FunnelBase `_serialize_step` / `_format_single_funnel`,
 * FunnelTimeToConvertResults, FunnelTrends `_format_single_summary`), from the tallies the
 * service makes.
 */
import type { FunnelsSpec } from "./contract";

export interface FunnelStepResult {
  action_id: string | number | null;
  name: string | null;
  custom_name: string | null;
  order: number;
  people: never[];
  count: number;
  type: "events";
  average_conversion_time: number | null;
  median_conversion_time: number | null;
  /** With a breakdown: the value as shown (a cohort's name) and as kept (["Chrome"], a cohort id). */
  breakdown?: string | string[];
  breakdown_value?: string[] | number;
}

/** The tally of one breakdown value (or of everyone): persons by furthest step, conversion times by step. */
export interface FunnelTally {
  /** `reached[i]`: persons whose furthest step is i (0-based). */
  reached: number[];
  /** `seconds[i]` (i ≥ 1): the positive times from step i-1 to step i of each person who reached i. */
  seconds: number[][];
}

export const emptyTally = (steps: number): FunnelTally => ({ reached: new Array<number>(steps).fill(0), seconds: Array.from({ length: steps }, () => []) });

/** ClickHouse's `median`: the middle value, the two middle ones' mean for an even count. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const middle = (sorted.length - 1) / 2;
  const low = sorted[Math.floor(middle)]!;
  const high = sorted[Math.ceil(middle)]!;
  return low + (high - low) * (middle - Math.floor(middle));
}

export function average(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Persons who reached each step (a person who got to step i counts for every step up to i). */
export function cumulativeCounts(tally: FunnelTally): number[] {
  const counts = new Array<number>(tally.reached.length).fill(0);
  let total = 0;
  for (let i = tally.reached.length - 1; i >= 0; i--) counts[i] = total += tally.reached[i]!;
  return counts;
}

/** The step objects of one funnel, in step order. */
export function funnelSteps(spec: FunnelsSpec, tally: FunnelTally, breakdown?: { shown: string | string[]; value: string[] | number }): FunnelStepResult[] {
  const counts = cumulativeCounts(tally);
  return spec.steps.map((step, index) => {
    const unordered = spec.order === "unordered";
    const result: FunnelStepResult = {
      action_id: unordered ? null : (step.action?.id ?? step.event),
      name: unordered ? `Completed ${index + 1} step${index === 0 ? "" : "s"}` : (step.action?.name ?? step.event),
      custom_name: unordered ? null : step.custom_name,
      order: index,
      people: [],
      count: counts[index]!,
      type: "events",
      average_conversion_time: index === 0 ? null : average(tally.seconds[index]!),
      median_conversion_time: index === 0 ? null : median(tally.seconds[index]!),
    };
    if (breakdown) {
      result.breakdown = breakdown.shown;
      result.breakdown_value = breakdown.value;
    }
    return result;
  });
}

export interface TimeToConvertResult {
  average_conversion_time: number | null;
  /** [bin start in seconds, persons whose time falls in [start, next start)]. */
  bins: [number, number][];
}

/**
 * PostHog's time-to-convert histogram (funnel_time_to_convert_udf.py): `binCount` bins
 * (null: ⌈∛persons⌉, 1..60) of width ⌈(⌈max⌉ − ⌊min⌋) / bins⌉ seconds (60 when that is
 * 0) from ⌊min⌋, plus one more bin start after the last, as PostHog's query returns; the
 * average is over every converted person (0 s included). No conversions: no bins, null.
 */
export function timeToConvert(seconds: readonly number[], binCount: number | null): TimeToConvertResult {
  if (seconds.length === 0) return { average_conversion_time: null, bins: [] };
  const bins = binCount ?? Math.min(60, Math.max(1, Math.ceil(Math.cbrt(seconds.length))));
  let min = Infinity;
  let max = -Infinity;
  for (const value of seconds) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const low = Math.floor(min);
  const high = Math.ceil(max);
  const raw = Math.ceil((high - low) / bins);
  const width = raw > 0 ? raw : 60;
  const counts = new Array<number>(bins + 1).fill(0);
  for (const value of seconds) {
    const index = Math.floor((value - low) / width);
    if (index >= 0 && index <= bins) counts[index]!++;
  }
  return {
    average_conversion_time: average(seconds),
    bins: counts.map((count, n) => [Math.round(low + n * width), count]),
  };
}

export interface FunnelTrendsResult {
  count: number;
  data: number[];
  days: string[];
  labels: string[];
  /** With a breakdown: the property value (["Chrome"]), or the cohort's name (as PostHog's funnel trends). */
  breakdown_value?: string[] | string;
}

/** Conversion rate (percent, 2 decimals) per entrance period: to/from, 0 when nobody reached the from step. */
export function trendSeries(reachedFrom: readonly number[], reachedTo: readonly number[], days: string[], labels: string[]): FunnelTrendsResult {
  return {
    count: days.length,
    data: reachedFrom.map((from, i) => (from > 0 ? Math.round((reachedTo[i]! / from) * 100 * 100) / 100 : 0)),
    days,
    labels,
  };
}
