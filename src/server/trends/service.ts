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
import { checkEventFilters } from "@/server/events/service";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type EventStore, type TrendRow } from "@/server/db/events";
import { compareCodePoints } from "@/server/properties/coerce";
import type { PropertyGroup } from "@/server/properties/contract";
import { cohortIdsOf, requireCohorts } from "@/server/db/events/filters/cohorts";
import { parseNode, type QueryKind } from "@/server/analytics/kind";
import type { CohortBreakdownValue } from "@/server/analytics/nodes";
import { bucketDay, bucketLabel, bucketStarts, wallText, type ResolvedDateRange } from "@/server/analytics/date-range";
import { trendsQuerySchema, trendsSpec, type Math, type TrendsFormula, type TrendsSpec } from "./contract";
import { previousRange } from "./compare";
import { trendsActors } from "./actors";
import { evaluateFormula, parseFormula } from "./formula";
import { resolveTrendsRange, seriesFilters, seriesQuery } from "./series-query";
import { sessionStartRows } from "./by-session-start";

export { BREAKDOWN_NULL, BREAKDOWN_OTHER } from "@/server/db/events";

export interface TrendsAction {
  /** Every day (hour for hourly charts) of the range, as `days`. */
  days: string[];
  id: string | number | null;
  type: "events" | "actions";
  order: number;
  name: string;
  custom_name: string | null;
  math: Math;
  math_property: string | null;
  math_hogql: null;
  math_group_type_index: null;
  properties: Record<string, never>;
}

export interface TrendsSeriesResult {
  label: string;
  /** The sum of `data` (cumulative charts: the last value); 0 for total values (PostHog's aggregated results carry `aggregated_value`). */
  count: number;
  /** Empty for total values (PostHog's formulas on total values give null; Burrow keeps []). */
  data: number[];
  labels: string[];
  days: string[];
  /** Total-value displays (BoldNumber, …): the value over the whole range. */
  aggregated_value?: number;
  /**
   * Burrow's addition for BoldNumber: the value per day of the range (one per `days` entry),
   * which the number draws as its sparkline. PostHog's clients ignore it.
   */
  sparkline?: number[];
  /** With a breakdown: the property's value, BREAKDOWN_NULL or BREAKDOWN_OTHER; by cohorts, the cohort's id or "all" (as PostHog). */
  breakdown_value?: string | number;
  /** With compareFilter.compare: which period the item is of. */
  compare?: true;
  compare_label?: "current" | "previous";
  /** Null for a formula's result. */
  action: TrendsAction | null;
}

export interface TrendsAnswer {
  results: TrendsSeriesResult[];
  /** Some breakdown values were folded into "other" (PostHog's hasMore). */
  hasMore: boolean;
  range: ResolvedDateRange;
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

/** Each series' items over one period (the chart's, or the previous one to compare with). */
async function periodResults(
  store: EventStore,
  projectId: number,
  spec: TrendsSpec,
  range: ResolvedDateRange,
  now: Date,
  cohortNames: ReadonlyMap<number, string>,
): Promise<{ perSeries: TrendsSeriesResult[][]; hasMore: boolean }> {
  const { breakdown } = spec;
  const walls = bucketStarts(range);
  const wallTexts = walls.map(wallText);
  const perSeries = await (async () => {
    if (spec.bySessionStart) return (await sessionStartRows(store, projectId, spec, range, now)).map((rows): SeriesPart[] => [{ rows }]);
    return Promise.all(
      spec.series.map(async (_, index): Promise<SeriesPart[]> => {
        const query = seriesQuery(spec, index, range, wallTexts, now);
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
  })();

  const allDays = walls.map((wall) => bucketDay(wall, range.interval));
  const labels = walls.map((wall) => bucketLabel(wall, range));
  const buckets = spec.totalValue ? [null] : wallTexts;
  const cumulative = spec.display === "ActionsLineGraphCumulative";
  let hasMore = false;
  const results = perSeries.map((parts, index) => {
    const series = spec.series[index]!;
    const seriesLabel = series.action?.name ?? series.event ?? "All events";
    const action: TrendsAction = {
      days: allDays,
      id: series.action?.id ?? series.event,
      type: series.action ? "actions" : "events",
      order: index,
      name: series.action?.name ?? series.name ?? series.event ?? "All events",
      custom_name: series.custom_name,
      math: series.math,
      math_property: series.math_property,
      math_hogql: null,
      math_group_type_index: null,
      properties: {},
    };
    const itemOf = (counts: number[]): TrendsSeriesResult => {
      if (spec.totalValue) return { label: seriesLabel, count: 0, data: [], labels: [], days: allDays, aggregated_value: counts[0] ?? 0, action };
      let data = counts;
      if (cumulative) {
        let sum = 0;
        data = counts.map((n) => (sum += n));
      }
      const count = cumulative ? (data[data.length - 1] ?? 0) : data.reduce((sum, n) => sum + n, 0);
      return { label: seriesLabel, count, data, labels, days: allDays, action };
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
  return { perSeries: results, hasMore };
}

/** Natural order ignoring case, as PostHog's natsorted(…, IGNORECASE) orders a formula's groups. */
const naturalOrder = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/** The rank of a formula group's value when sorting: real values, then null, then other (PostHog's). */
const specialRank = (value: unknown) => (value === BREAKDOWN_OTHER ? -2 : value === BREAKDOWN_NULL ? -1 : 0);

/**
 * PostHog's apply_formula: with a breakdown (or a comparison) the items of each value are
 * matched across series by value — a series without that value reads zeros — and the formula
 * is applied point by point; each result is the first series' item relabelled
 * `Formula (<formula>)` (or the node's custom_name) with no action.
 */
function applyFormula(node: TrendsFormula, perSeries: TrendsSeriesResult[][], spec: TrendsSpec): TrendsSeriesResult[] {
  if (perSeries.length === 0) return [];
  const formula = parseFormula(node.formula);
  const grouped = spec.breakdown !== null || spec.compare !== null;
  const keyOf = (item: TrendsSeriesResult) => (spec.breakdown !== null ? item.breakdown_value : item.compare_label);
  const compute = (group: (TrendsSeriesResult | null)[], base: TrendsSeriesResult): TrendsSeriesResult => {
    const result: TrendsSeriesResult = { ...base, label: node.custom_name ?? `Formula (${node.formula})`, action: null };
    if (spec.totalValue) {
      result.aggregated_value = evaluateFormula(formula, group.map((item) => item?.aggregated_value ?? 0));
      result.data = [];
      result.count = 0;
      const days = Math.max(0, ...group.map((item) => item?.sparkline?.length ?? 0));
      if (days > 0) result.sparkline = Array.from({ length: days }, (_, i) => evaluateFormula(formula, group.map((item) => item?.sparkline?.[i] ?? 0)));
    } else {
      const length = base.data.length;
      const data = Array.from({ length }, (_, i) => evaluateFormula(formula, group.map((item) => item?.data[i] ?? 0)));
      result.data = data;
      result.count = data.reduce((sum, n) => sum + n, 0);
    }
    return result;
  };
  if (!grouped) {
    // (A range without buckets has no items to compute with.)
    const base = perSeries.find((items) => items.length > 0)?.[0];
    return base ? [compute(perSeries.map((items) => items[0] ?? null), perSeries[0]![0] ?? base)] : [];
  }

  const keys = [...new Set(perSeries.flatMap((items) => items.map(keyOf)))].sort((a, b) => naturalOrder.compare(String(a), String(b)));
  const results = keys.map((key) => {
    const group = perSeries.map((items) => items.find((item) => keyOf(item) === key) ?? null);
    const any = group.find((item) => item !== null)!;
    // PostHog's filler for a series without the value: zeros, with the value's days.
    const base = group[0] ?? { ...any, data: any.data.map(() => 0), count: 0, aggregated_value: spec.totalValue ? 0 : undefined };
    return compute(group, base);
  });
  // With a comparison PostHog orders by period, then count, largest first.
  if (spec.compare !== null) return results.sort((a, b) => b.count - a.count);
  const valueOf = (item: TrendsSeriesResult) => item.aggregated_value ?? item.data.reduce((sum, n) => sum + n, 0);
  return results.sort(
    (a, b) =>
      specialRank(b.breakdown_value) - specialRank(a.breakdown_value) ||
      valueOf(b) - valueOf(a) ||
      b.count - a.count ||
      compareCodePoints(String(b.breakdown_value), String(a.breakdown_value)),
  );
}

/**
 * Computes every series of `spec` for the project, in its time zone, as of `now`. A
 * breakdown by cohorts is one aggregation per cohort, the series filtered by membership (as
 * PostHog's runner does): an event counts under every cohort its person is in, in the order
 * the cohorts were given, each shown even with no events; `cohortNames` labels them. With a
 * comparison, the previous period's items follow the current ones; with formulas, the
 * formulas' results replace the series (per period).
 */
export async function computeTrends(
  store: EventStore,
  projectId: number,
  spec: TrendsSpec,
  zone: string,
  now: Date,
  cohortNames: ReadonlyMap<number, string> = new Map(),
): Promise<TrendsAnswer> {
  const range = await resolveTrendsRange(store, projectId, spec, zone, now);
  for (let index = 0; index < spec.series.length; index++) for (const group of seriesFilters(spec, index)) await store.checkFilters(group);
  const periods: { range: ResolvedDateRange; label: "current" | "previous" | null }[] =
    spec.compare === null
      ? [{ range, label: null }]
      : [
          { range, label: "current" },
          { range: previousRange(range, spec.compare), label: "previous" },
        ];
  let hasMore = false;
  const perPeriod: TrendsSeriesResult[][][] = [];
  for (const period of periods) {
    const answer = await periodResults(store, projectId, spec, period.range, now, cohortNames);
    if (spec.display === "BoldNumber") await addSparklines(answer.perSeries, store, projectId, spec, period.range, now, cohortNames);
    // PostHog's hasMore looks at the items shown (the current period's, as the previous one's values come from it too).
    hasMore ||= answer.hasMore;
    if (period.label !== null) {
      for (const items of answer.perSeries) for (const item of items) Object.assign(item, { compare: true, compare_label: period.label });
    }
    perPeriod.push(answer.perSeries);
  }
  let results: TrendsSeriesResult[];
  if (spec.formulas.length > 0) {
    results = spec.formulas.flatMap((node) => perPeriod.flatMap((perSeries) => applyFormula(node, perSeries, spec)));
  } else {
    // PostHog: every series of the current period, then every series of the previous one.
    results = perPeriod.flatMap((perSeries) => perSeries.flat());
  }
  return { results, hasMore, range };
}

/**
 * The number's sparkline: each item's value per day of the period, from the same series
 * charted over time (matched by breakdown value). Unique users per day do not add up to the
 * number's unique users, so the line is its own aggregation rather than a split of the total.
 */
async function addSparklines(
  perSeries: TrendsSeriesResult[][],
  store: EventStore,
  projectId: number,
  spec: TrendsSpec,
  range: ResolvedDateRange,
  now: Date,
  cohortNames: ReadonlyMap<number, string>,
): Promise<void> {
  const overTime = await periodResults(store, projectId, { ...spec, totalValue: false, display: "ActionsLineGraph" }, range, now, cohortNames);
  perSeries.forEach((items, index) => {
    const lines = overTime.perSeries[index] ?? [];
    for (const item of items) item.sparkline = lines.find((line) => line.breakdown_value === item.breakdown_value)?.data ?? item.days.map(() => 0);
  });
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
    await checkEventFilters(db, projectId, [spec.properties, ...spec.series.map((series) => series.properties)]);
    await requireTrendCohorts(db.sql, projectId, spec);
  },
  async actors({ db, projectId, zone, now }, spec, selector) {
    await requireTrendCohorts(db.sql, projectId, spec);
    return trendsActors(db.events, projectId, spec, zone, now, selector);
  },
  async compute({ db, projectId, zone, now }, spec) {
    const cohortNames = await requireTrendCohorts(db.sql, projectId, spec);
    const { results, hasMore, range } = await computeTrends(db.events, projectId, spec, zone, now, cohortNames);
    return {
      results,
      range: { from: range.dateFrom, to: range.dateTo },
      extra: { hasMore },
      weight: 1 + results.reduce((sum, item) => sum + item.data.length + item.days.length + (item.sparkline?.length ?? 0), 0),
    };
  },
};
