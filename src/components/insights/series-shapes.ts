/**
 * The series results of Lifecycle and Stickiness (PostHog's shapes: `data`, `labels`,
 * `days` per series) turned into one row per bucket for the bar charts.
 */
import { isObject } from "@/server/input/json-object";

export interface SeriesResult {
  label: string;
  data: number[];
  labels: string[];
  days?: (string | number)[];
  status?: string;
  breakdown_value?: unknown;
  action?: { order?: number } | null;
}

/** `results` if every item is a series (data numbers, labels strings); null otherwise. */
export function seriesResults(results: unknown): SeriesResult[] | null {
  if (!Array.isArray(results)) return null;
  const ok = results.every((item) => isObject(item) && Array.isArray(item.data) && item.data.every((n) => typeof n === "number") && Array.isArray(item.labels));
  return ok ? (results as SeriesResult[]) : null;
}

/** The lifecycle statuses in PostHog's order, with the colours its legend uses. */
export const LIFECYCLE_STATUSES = [
  { status: "new", name: "New", color: "#2563eb" },
  { status: "returning", name: "Returning", color: "#16a34a" },
  { status: "resurrecting", name: "Resurrecting", color: "#9333ea" },
  { status: "dormant", name: "Dormant", color: "#dc2626" },
] as const;

export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number]["status"];

export interface LifecycleBucket {
  label: string;
  /** The bucket's date (`days[i]`), which InsightActorsQuery's `day` names. */
  day: string | number | undefined;
  new: number;
  returning: number;
  resurrecting: number;
  /** Zero or negative: dormant persons are drawn below the axis. */
  dormant: number;
}

/** One bucket per date with the four statuses; dormant kept negative whatever sign it came with. */
export function lifecycleBuckets(series: readonly SeriesResult[]): LifecycleBucket[] {
  const byStatus = new Map(series.map((item) => [item.status ?? statusFromLabel(item.label), item]));
  const reference = series[0];
  if (!reference) return [];
  return reference.labels.map((label, bucket) => ({
    label,
    day: reference.days?.[bucket],
    new: byStatus.get("new")?.data[bucket] ?? 0,
    returning: byStatus.get("returning")?.data[bucket] ?? 0,
    resurrecting: byStatus.get("resurrecting")?.data[bucket] ?? 0,
    dormant: -Math.abs(byStatus.get("dormant")?.data[bucket] ?? 0),
  }));
}

/** "$pageview - new" → "new" (the label PostHog gives a lifecycle row). */
function statusFromLabel(label: string): string {
  return label.slice(label.lastIndexOf(" - ") + 3);
}

export interface StickinessBucket {
  /** "1 day", "2 days", … */
  label: string;
  /** The number of intervals (InsightActorsQuery's `day` for stickiness). */
  intervals: number;
  [series: `s${number}`]: number;
}

/** One bar group per number of active intervals, one value per series. */
export function stickinessBuckets(series: readonly SeriesResult[]): StickinessBucket[] {
  const reference = series[0];
  if (!reference) return [];
  return reference.data.map((_, bucket) => {
    const row: StickinessBucket = { label: reference.labels[bucket] ?? String(bucket + 1), intervals: Number(reference.days?.[bucket] ?? bucket + 1) };
    series.forEach((item, index) => (row[`s${index}`] = item.data[bucket] ?? 0));
    return row;
  });
}
