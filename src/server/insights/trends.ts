/**
 * Trends computed in SQL on the events table: one statement per series that filters the
 * events (the events API's property-filter SQL), counts them — or their unique users — per
 * bucket of the project's time zone, and zero-fills the buckets with generate_series. A
 * breakdown ranks the property's values by event count in the same statement and folds
 * all but the top ones into PostHog's "other" bucket.
 *
 * Results come in PostHog's trends shape: `[{label, count, data, labels, days, action,
 * breakdown_value?, aggregated_value?}]`.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { guarded } from "@/server/events/api";
import { checkRegexes } from "@/server/events/query";
import { compareCodePoints } from "@/server/properties/coerce";
import type { PropertyGroup } from "@/server/properties/contract";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import type { Math, TrendsSpec } from "./contract";
import { bucketDay, bucketLabel, bucketStarts, resolveDateRange, wallFromText, wallText, type Interval, type ResolvedDateRange } from "./date-range";

/** PostHog's breakdown value of the bucket holding every value past the limit. */
export const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$";
/** PostHog's breakdown value of events without the property (or with it null or ""). */
export const BREAKDOWN_NULL = "$$_posthog_breakdown_null_$$";

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
  /** With a breakdown: the property's value, BREAKDOWN_NULL or BREAKDOWN_OTHER. */
  breakdown_value?: string;
  action: TrendsAction;
}

export interface TrendsAnswer {
  results: TrendsSeriesResult[];
  /** Some breakdown values were folded into "other" (PostHog's hasMore). */
  hasMore: boolean;
  range: ResolvedDateRange;
}

/** Bucket start (wall clock of the zone) of a local timestamp `local`, per interval; weeks start on Sunday. */
const BUCKET_OF: Record<Interval, (local: string) => string> = {
  hour: (local) => `date_trunc('hour', ${local})`,
  day: (local) => `date_trunc('day', ${local})`,
  week: (local) => `(date_trunc('week', ${local} + interval '1 day') - interval '1 day')`,
  month: (local) => `date_trunc('month', ${local})`,
};
const STEP: Record<Interval, string> = { hour: "1 hour", day: "1 day", week: "7 days", month: "1 month" };

/** Unique users: persons, and for events without one, their distinct ids (PostHog counts person_id). */
const UNIQUE_USERS = "count(DISTINCT e.person_id) + count(DISTINCT e.distinct_id) FILTER (WHERE e.person_id IS NULL)";

interface SeriesRow {
  value: string | null;
  bucket: string;
  n: number;
}

/** The one statement of a series: rows (value, bucket, n) for every value and every bucket. */
export function seriesStatement(projectId: number, spec: TrendsSpec, index: number, range: ResolvedDateRange, now: Date): { text: string; values: unknown[] } {
  const series = spec.series[index]!;
  const { breakdown } = spec;
  const params = new SqlParams();
  const filters = [spec.properties, series.properties].filter((group): group is PropertyGroup => group !== null);
  const person = breakdown?.type === "person" || filters.some(readsPersonProperties);
  const join = person ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  const columns = { event: "e.properties", person: person ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" };

  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    `e.timestamp >= ${params.add(range.from.toISOString(), "timestamptz")}`,
    `e.timestamp <= ${params.add(range.to.toISOString(), "timestamptz")}`,
  ];
  if (series.event !== null) where.push(`e.event = ${params.add(series.event, "text")}`);
  for (const group of filters) where.push(propertiesSql(group, { params, columns, now }));

  const first = `${params.add(wallText(range.firstBucket), "text")}::timestamp`;
  // Total values: one bucket, the whole range.
  const bucketsSql = spec.totalValue
    ? `SELECT ${first} AS bucket`
    : `SELECT generate_series(${first}, ${params.add(wallText(range.lastBucket), "text")}::timestamp, interval '${STEP[range.interval]}') AS bucket`;
  const bucket = spec.totalValue ? first : BUCKET_OF[range.interval](`(e.timestamp AT TIME ZONE ${params.add(range.zone, "text")})`);
  const from = `FROM events e${join} WHERE ${where.join(" AND ")}`;
  const bucketText = `to_char(b.bucket, 'YYYY-MM-DD HH24:MI:SS')`;

  if (!breakdown) {
    const aggregate = series.math === "dau" ? UNIQUE_USERS : "count(*)";
    return {
      text: `WITH buckets AS (${bucketsSql}),
        counted AS (SELECT ${bucket} AS bucket, ${aggregate} AS n ${from} GROUP BY 1)
        SELECT NULL::text AS value, ${bucketText} AS bucket, COALESCE(c.n, 0)::float8 AS n
          FROM buckets b LEFT JOIN counted c ON c.bucket = b.bucket
         ORDER BY b.bucket`,
      values: params.values,
    };
  }

  const source = breakdown.type === "person" ? columns.person : "e.properties";
  const value = `COALESCE(NULLIF(${source} ->> ${params.add(breakdown.key, "text")}, ''), ${params.add(BREAKDOWN_NULL, "text")})`;
  const limit = params.add(breakdown.limit, "int");
  const other = params.add(BREAKDOWN_OTHER, "text");
  // Values rank by their number of events (PostHog ranks unique-user breakdowns so too),
  // ties to the larger value; all past the limit fold into "other".
  const rank = `row_number() OVER (ORDER BY sum(events) DESC, value COLLATE "C" DESC) AS rank`;
  const folded = `CASE WHEN r.rank <= ${limit} THEN r.value ELSE ${other} END`;
  const tail = `SELECT v.value, ${bucketText} AS bucket, COALESCE(s.n, 0)::float8 AS n
        FROM (SELECT DISTINCT value FROM series) v CROSS JOIN buckets b
        LEFT JOIN series s ON s.value = v.value AND s.bucket = b.bucket
       ORDER BY v.value, b.bucket`;
  if (series.math === "dau") {
    // Unique users are counted per (folded value, bucket) straight from the events, so a
    // user seen under two folded values counts once in "other". Two passes over the events
    // cost less than keeping every (bucket, value, user) group between them.
    return {
      text: `WITH buckets AS (${bucketsSql}),
        ranked AS (SELECT value, ${rank} FROM (SELECT ${value} AS value, count(*) AS events ${from} GROUP BY 1) counted GROUP BY value),
        series AS (
          SELECT ${folded} AS value, ${bucket} AS bucket, ${UNIQUE_USERS} AS n
            FROM events e${join} JOIN ranked r ON r.value = ${value}
           WHERE ${where.join(" AND ")}
           GROUP BY 1, 2
        )
        ${tail}`,
      values: params.values,
    };
  }
  return {
    text: `WITH buckets AS (${bucketsSql}),
      grouped AS (SELECT ${bucket} AS bucket, ${value} AS value, count(*) AS events ${from} GROUP BY 1, 2),
      ranked AS (SELECT value, ${rank} FROM grouped GROUP BY value),
      series AS (
        SELECT ${folded} AS value, g.bucket, sum(g.events) AS n
          FROM grouped g JOIN ranked r ON r.value = g.value
         GROUP BY 1, 2
      )
      ${tail}`,
    values: params.values,
  };
}

/** The project's first event, for `date_from: "all"`. */
async function earliestEvent(sql: SqlExecutor, projectId: number): Promise<Date | null> {
  const rows = await sql.query<{ t: Date | null }>(`SELECT min(timestamp) AS t FROM events WHERE project_id = $1::int`, [projectId]);
  return rows[0]?.t ? new Date(rows[0].t) : null;
}

/** Computes every series of `spec` for the project, in its time zone, as of `now`. */
export async function computeTrends(sql: SqlExecutor, projectId: number, spec: TrendsSpec, zone: string, now: Date): Promise<TrendsAnswer> {
  const earliest = spec.dateRange.date_from === "all" ? await earliestEvent(sql, projectId) : null;
  const range = resolveDateRange(spec.dateRange, spec.interval, zone, now, earliest);
  const filterGroups = [spec.properties, ...spec.series.map((s) => s.properties)].filter((group): group is PropertyGroup => group !== null);
  const perSeries = await guarded(async () => {
    for (const group of filterGroups) await checkRegexes(sql, group);
    return Promise.all(
      spec.series.map((_, index) => {
        const statement = seriesStatement(projectId, spec, index, range, now);
        return sql.query<SeriesRow>(statement.text, statement.values);
      }),
    );
  });

  const allDays = bucketStarts(range).map((wall) => bucketDay(wall, range.interval));
  let hasMore = false;
  const results = perSeries.flatMap((rows, index) => {
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
    const byValue = new Map<string | null, SeriesRow[]>();
    for (const row of rows) byValue.set(row.value, [...(byValue.get(row.value) ?? []), row]);
    let items = [...byValue.entries()].map(([value, valueRows]): TrendsSeriesResult => {
      const data = valueRows.map((row) => Number(row.n));
      const item: TrendsSeriesResult = spec.totalValue
        ? { label: seriesLabel, count: 0, data: [], labels: [], days: allDays, aggregated_value: data[0] ?? 0, action }
        : {
            label: seriesLabel,
            count: data.reduce((sum, n) => sum + n, 0),
            data,
            labels: valueRows.map((row) => bucketLabel(wallFromText(row.bucket), range)),
            days: valueRows.map((row) => bucketDay(wallFromText(row.bucket), range.interval)),
            action,
          };
      if (spec.breakdown && value !== null) {
        item.breakdown_value = value;
        item.label = spec.series.length > 1 ? `${seriesLabel} - ${value}` : value;
      }
      return item;
    });
    if (spec.breakdown) {
      if (items.some((item) => item.breakdown_value === BREAKDOWN_OTHER)) hasMore = true;
      if (spec.breakdown.hideOther) items = items.filter((item) => item.breakdown_value !== BREAKDOWN_OTHER);
      // Largest first, ties by value; "other" last.
      const total = (item: TrendsSeriesResult) => item.aggregated_value ?? item.count;
      items.sort(
        (a, b) =>
          Number(a.breakdown_value === BREAKDOWN_OTHER) - Number(b.breakdown_value === BREAKDOWN_OTHER) ||
          total(b) - total(a) ||
          compareCodePoints(a.breakdown_value!, b.breakdown_value!),
      );
    }
    return items;
  });
  return { results, hasMore, range };
}
