/**
 * What trends and the actors behind its points share: the chart's date range, and the store
 * aggregation of one series over a period.
 */
import type { EventStore, TrendMath, TrendQuery } from "@/server/db/events";
import type { PropertyGroup } from "@/server/properties/contract";
import { resolveDateRange, type ResolvedDateRange } from "@/server/analytics/date-range";
import { isPropertyMath, type Math, type TrendsSpec } from "./contract";

/** The filter groups of one series: the insight's and the series' own. */
export function seriesFilters(spec: TrendsSpec, index: number): PropertyGroup[] {
  return [spec.properties, spec.series[index]!.properties].filter((group): group is PropertyGroup => group !== null);
}

/** The trailing window of weekly and monthly active users, in days. */
export const ACTIVE_DAYS: Partial<Record<Math, number>> = { weekly_active: 7, monthly_active: 30 };

/** Days in milliseconds, for windows counted back from an instant. */
const DAY_MS = 86_400_000;

/**
 * The store's aggregation of a series over `range`. Active users on a total value are the
 * unique users of the window ending with the range (PostHog: "date_to minus 7 or 30 days").
 */
export function seriesQuery(spec: TrendsSpec, index: number, range: ResolvedDateRange, buckets: string[], now: Date): Omit<TrendQuery, "breakdown"> {
  const series = spec.series[index]!;
  const window = ACTIVE_DAYS[series.math];
  let math: TrendMath = window ? "active" : (series.math as TrendMath);
  // A cumulative chart of unique users counts each once, from its first bucket (PostHog's).
  if (math === "dau" && spec.display === "ActionsLineGraphCumulative") math = "first_seen_users";
  let from = range.from;
  if (window && spec.totalValue) {
    math = "dau";
    from = new Date(range.to.getTime() - window * DAY_MS);
  }
  return {
    event: series.event,
    filters: seriesFilters(spec, index),
    math,
    mathProperty: isPropertyMath(series.math) ? series.math_property : null,
    sessionProperty: isPropertyMath(series.math) ? series.session_property : null,
    active: math === "active" ? { days: window!, buckets } : null,
    from,
    to: range.to,
    zone: range.zone,
    interval: spec.totalValue ? null : range.interval,
    now,
  };
}

/** The chart's date range (for `all`, from the project's first event). */
export async function resolveTrendsRange(store: EventStore, projectId: number, spec: TrendsSpec, zone: string, now: Date): Promise<ResolvedDateRange> {
  const earliest = spec.dateRange.date_from === "all" ? await store.earliestTimestamp(projectId) : null;
  return resolveDateRange(spec.dateRange, spec.interval, zone, now, earliest);
}

