/**
 * Trends: each series is one aggregation of the event store (`store.trend`: events — or
 * their unique users — per bucket of the project's time zone, optionally per breakdown
 * value with the top ones kept and the rest in "other"); this file resolves the date range,
 * zero-fills the buckets the store has no events in, and shapes PostHog's result. Which
 * database runs the aggregation is the store's business.
 *
 * Results come in PostHog's trends shape: `[{label, count, data, labels, days, action,
 * breakdown_value?, aggregated_value?}]`.
 */
import { guarded } from "@/server/events/service";
import { BREAKDOWN_OTHER, type EventStore, type TrendRow } from "@/server/db/events";
import { compareCodePoints } from "@/server/properties/coerce";
import type { PropertyGroup } from "@/server/properties/contract";
import { cohortIdsOf, requireCohorts } from "@/server/db/events/cohorts";
import { parseNode, type QueryKind } from "@/server/analytics/kind";
import type { CohortBreakdownValue } from "@/server/analytics/nodes";
import { bucketDay, bucketLabel, bucketStarts, resolveDateRange, wallText, type ResolvedDateRange } from "@/server/analytics/date-range";
import { trendsQuerySchema, trendsSpec, type Math, type TrendsSpec } from "./contract";

export { BREAKDOWN_NULL, BREAKDOWN_OTHER } from "@/server/db/events";

export interface TrendsAction {
  /** Every day (hour for hourly charts) of the range, as `days`. */
  days: string[];
  id: string | null;
  type: "events";
  order: number;
  name: string;
  custom_name: string | null;
  math: Math;
  math_property: null;
  math_hogql: null;
  math_group_type_index: null;
  properties: Record<string, never>;
}

export interface TrendsSeriesResult {
  label: string;
  /** The sum of `data`; 0 for total values (PostHog's aggregated results carry `aggregated_value`). */
  count: number;
  data: number[];
  labels: string[];
  days: string[];
  /** Total-value displays (BoldNumber, …): the value over the whole range. */
  aggregated_value?: number;
  /** With a breakdown: the property's value, BREAKDOWN_NULL or BREAKDOWN_OTHER; by cohorts, the cohort's id or "all" (as PostHog). */
  breakdown_value?: string | number;
  action: TrendsAction;
}

export interface TrendsAnswer {
  results: TrendsSeriesResult[];
  /** Some breakdown values were folded into "other" (PostHog's hasMore). */
  hasMore: boolean;
  range: ResolvedDateRange;
}

/** The filter groups of one series: the insight's and the series' own. */
function seriesFilters(spec: TrendsSpec, index: number): PropertyGroup[] {
  return [spec.properties, spec.series[index]!.properties].filter((group): group is PropertyGroup => group !== null);
}

/**
 * Every value's counts over `buckets` (wall text; [null] for one total bucket), zero where
 * the store had no events. Without a breakdown there is one value, null.
 */
function zeroFilled(rows: TrendRow[], buckets: (string | null)[], breakdown: boolean): Map<string | null, number[]> {
  const counts = new Map<string | null, Map<string | null, number>>();
  // (No buckets, no series: as PostgreSQL's generate_series over an empty range gave.)
  if (!breakdown && buckets.length > 0) counts.set(null, new Map());
  for (const row of rows) {
    let byBucket = counts.get(row.value);
    if (!byBucket) counts.set(row.value, (byBucket = new Map()));
    byBucket.set(row.bucket, Number(row.n));
  }
  return new Map([...counts].map(([value, byBucket]) => [value, buckets.map((bucket) => byBucket.get(bucket) ?? 0)]));
}

/** One aggregation of a series: its rows, and for a cohort breakdown which cohort they count. */
interface SeriesPart {
  rows: TrendRow[];
  cohort?: CohortBreakdownValue;
}

/** PostHog's label of a cohort breakdown value: the cohort's name, "all users" for everyone. */
const cohortLabel = (cohort: CohortBreakdownValue, names: ReadonlyMap<number, string>) => (cohort === "all" ? "all users" : (names.get(cohort) ?? String(cohort)));

/**
 * Computes every series of `spec` for the project, in its time zone, as of `now`. A
 * breakdown by cohorts is one aggregation per cohort, the series filtered by membership (as
 * PostHog's runner does): an event counts under every cohort its person is in, in the order
 * the cohorts were given, each shown even with no events; `cohortNames` labels them.
 */
export async function computeTrends(
  store: EventStore,
  projectId: number,
  spec: TrendsSpec,
  zone: string,
  now: Date,
  cohortNames: ReadonlyMap<number, string> = new Map(),
): Promise<TrendsAnswer> {
  const earliest = spec.dateRange.date_from === "all" ? await store.earliestTimestamp(projectId) : null;
  const range = resolveDateRange(spec.dateRange, spec.interval, zone, now, earliest);
  const { breakdown } = spec;
  const perSeries = await guarded(async () => {
    for (let index = 0; index < spec.series.length; index++) for (const group of seriesFilters(spec, index)) await store.checkFilters(group);
    return Promise.all(
      spec.series.map(async (series, index): Promise<SeriesPart[]> => {
        const query = {
          event: series.event,
          filters: seriesFilters(spec, index),
          math: series.math,
          from: range.from,
          to: range.to,
          zone: range.zone,
          interval: spec.totalValue ? null : range.interval,
          now,
        };
        if (breakdown?.type === "cohort") {
          const parts: SeriesPart[] = [];
          for (const cohort of breakdown.cohorts) {
            const member: PropertyGroup = { type: "AND", values: [{ type: "cohort", key: "id", value: cohort as number, operator: "in", negation: false }] };
            const filters = cohort === "all" ? query.filters : [...query.filters, member];
            parts.push({ cohort, rows: await store.trend(projectId, { ...query, filters, breakdown: null }) });
          }
          return parts;
        }
        const rows = await store.trend(projectId, { ...query, breakdown: breakdown ? { type: breakdown.type, key: breakdown.key, limit: breakdown.limit } : null });
        return [{ rows }];
      }),
    );
  });

  const walls = bucketStarts(range);
  const allDays = walls.map((wall) => bucketDay(wall, range.interval));
  const labels = walls.map((wall) => bucketLabel(wall, range));
  const buckets = spec.totalValue ? [null] : walls.map(wallText);
  let hasMore = false;
  const results = perSeries.flatMap((parts, index) => {
    const series = spec.series[index]!;
    const seriesLabel = series.event ?? "All events";
    const action: TrendsAction = {
      days: allDays,
      id: series.event,
      type: "events",
      order: index,
      name: series.name ?? series.event ?? "All events",
      custom_name: series.custom_name,
      math: series.math,
      math_property: null,
      math_hogql: null,
      math_group_type_index: null,
      properties: {},
    };
    const itemOf = (data: number[]): TrendsSeriesResult =>
      spec.totalValue
        ? { label: seriesLabel, count: 0, data: [], labels: [], days: allDays, aggregated_value: data[0] ?? 0, action }
        : {
            label: seriesLabel,
            count: data.reduce((sum, n) => sum + n, 0),
            data,
            labels,
            days: allDays,
            action,
          };
    if (breakdown?.type === "cohort") {
      // PostHog labels a cohort's series "<series> - <cohort name>", one series or several.
      return parts.map(({ rows, cohort }) => ({
        ...itemOf(zeroFilled(rows, buckets, false).get(null) ?? []),
        label: `${seriesLabel} - ${cohortLabel(cohort!, cohortNames)}`,
        breakdown_value: cohort!,
      }));
    }
    let items = [...zeroFilled(parts[0]!.rows, buckets, breakdown !== null)].map(([value, data]): TrendsSeriesResult => {
      const item = itemOf(data);
      if (breakdown && value !== null) {
        item.breakdown_value = value;
        item.label = spec.series.length > 1 ? `${seriesLabel} - ${value}` : value;
      }
      return item;
    });
    if (breakdown) {
      if (items.some((item) => item.breakdown_value === BREAKDOWN_OTHER)) hasMore = true;
      if (breakdown.hideOther) items = items.filter((item) => item.breakdown_value !== BREAKDOWN_OTHER);
      // Largest first, ties by value; "other" last.
      const total = (item: TrendsSeriesResult) => item.aggregated_value ?? item.count;
      items.sort(
        (a, b) =>
          Number(a.breakdown_value === BREAKDOWN_OTHER) - Number(b.breakdown_value === BREAKDOWN_OTHER) ||
          total(b) - total(a) ||
          compareCodePoints(String(a.breakdown_value), String(b.breakdown_value)),
      );
    }
    return items;
  });
  return { results, hasMore, range };
}

/** The spec's cohorts (filters and breakdown) are the project's, else a 400; the breakdown's names by id. */
async function requireTrendCohorts(sql: Parameters<typeof requireCohorts>[0], projectId: number, spec: TrendsSpec): Promise<Map<number, string>> {
  await requireCohorts(sql, projectId, cohortIdsOf([spec.properties, ...spec.series.map((series) => series.properties)]));
  const breakdown = spec.breakdown?.type === "cohort" ? spec.breakdown.cohorts.filter((cohort): cohort is number => cohort !== "all") : [];
  return requireCohorts(sql, projectId, breakdown, "breakdown");
}

/** TrendsQuery for the query API. */
export const trendsKind: QueryKind<TrendsSpec> = {
  kind: "TrendsQuery",
  spec: (node, override) => trendsSpec(parseNode(trendsQuerySchema, node), override),
  async check({ db, projectId }, spec) {
    await guarded(async () => {
      for (const group of [spec.properties, ...spec.series.map((series) => series.properties)]) await db.events.checkFilters(group);
    });
    await requireTrendCohorts(db.sql, projectId, spec);
  },
  async compute({ db, projectId, zone, now }, spec) {
    const cohortNames = await requireTrendCohorts(db.sql, projectId, spec);
    const { results, hasMore, range } = await computeTrends(db.events, projectId, spec, zone, now, cohortNames);
    return {
      results,
      range: { from: range.dateFrom, to: range.dateTo },
      extra: { hasMore },
      weight: 1 + results.reduce((sum, item) => sum + item.data.length + item.days.length, 0),
    };
  },
};
