/**
 * Insights' aggregation (query.ts) in ClickHouse, with the PostgreSQL store's
 * semantics: buckets on the zone's wall clock (weeks from Sunday), unique users as persons
 * plus the distinct ids of events without one, property filters as the list compiles them,
 * breakdown values as PostgreSQL's `->>` writes them (null and "" are the null bucket),
 * top values by event count with ties to the larger value, the rest folded into "other".
 *
 * A person-property breakdown needs each person's value, which lives in PostgreSQL: the
 * store reads the persons that have one there and the statement maps `person_id` to it.
 */
import type { PropertyFilter } from "@/server/properties/contract";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import { chRows, type ChStore, type ChTables } from "../clickhouse/context";
import { chEventPropertyText } from "../clickhouse/hot-properties";
import { ChParams } from "@/server/sql/bind";
import { clickHouseCohortResolver } from "../filters/cohorts";
import { chPropertiesSql, personValues, resolveFilters, type PersonSet, type PersonValues } from "../filters/clickhouse";
import { CH_SESSION_BOUNCE, CH_SESSION_DURATION, chSessionsOverlapping } from "../sessions/clickhouse";
import { trendBucket, trendConditions, trendTotalsStatement } from "./build";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, MATH_QUANTILES, type PropertyMath, type SessionMathProperty, type TrendQuery, type TrendRow } from "./query";

const UNIQUE_USERS = "uniqExact(e.person_id) + uniqExactIf(e.distinct_id, e.person_id IS NULL)";

export async function clickHouseTrend(ch: ChStore, projectId: number, query: TrendQuery): Promise<TrendRow[]> {
  const { cohorts, persons } = await resolveFilters(ch.sql, projectId, query.filters, query.now);
  const values = query.breakdown?.type === "person" ? await personValues(ch.sql, projectId, query.breakdown.key) : null;
  const statement = clickHouseTrendStatement(ch.tables, projectId, query, persons, values, cohorts);
  const rows = await chRows<{ value: string | null; bucket: string | null; n: number }>(ch, statement.text, statement.params);
  return rows.map((row) => ({ value: row.value, bucket: row.bucket, n: Number(row.n) }));
}

/** The statement of a trend: rows (value, bucket, n), bucket as wall-clock text. */
function clickHouseTrendStatement(
  tables: ChTables,
  projectId: number,
  query: TrendQuery,
  persons: ReadonlyMap<PropertyFilter, PersonSet>,
  personValues: PersonValues | null,
  cohorts: ReadonlyMap<number, readonly string[]> = new Map(),
): { text: string; params: Record<string, unknown> } {
  if (query.math === "active" || (query.math !== "total" && query.math !== "dau")) {
    return clickHouseGeneralTrend(tables, projectId, query, persons, personValues, cohorts);
  }
  const table = tables.events;
  const params = new ChParams();
  const cohort = clickHouseCohortResolver(cohorts, params);
  const where = trendConditions(params, projectId, query, (group) =>
    chPropertiesSql(group, { params, column: "e.properties", personColumn: "e.person_id", persons, now: query.now, cohort }),
  );
  const from = `FROM ${table} AS e WHERE ${where.join(" AND ")}`;
  const local = trendBucket(CLICKHOUSE, params, query);
  const aggregate = query.math === "dau" ? UNIQUE_USERS : "count()";
  const { breakdown } = query;
  if (!breakdown) return { text: trendTotalsStatement(CLICKHOUSE, from, local, aggregate), params: params.values };

  const bucket = local ?? "NULL";
  const bucketText = local === null ? "NULL" : CLICKHOUSE.bucketText("t_bucket");
  const value = chBreakdownValue(breakdown, personValues, params);
  // One pass over the events: counts (and, for unique users, the sets of users as
  // aggregate states) per (value, bucket); then, over those few rows, each value's rank by
  // its events (whatever the math, as PostgreSQL's), ties to the larger value; then the
  // values past the limit fold into "other", merging their users' sets so that a user seen
  // under two folded values counts once.
  const [states, merged] =
    query.math === "dau"
      ? [", uniqExactState(e.person_id) AS t_persons, uniqExactState(if(e.person_id IS NULL, e.distinct_id, NULL)) AS t_anonymous", "uniqExactMerge(t_persons) + uniqExactMerge(t_anonymous)"]
      : ["", "sum(t_events)"];
  const grouped = `SELECT ${value} AS t_value, ${bucket} AS t_bucket, count() AS t_events${states} ${from} GROUP BY t_value, t_bucket`;
  const totalled = `SELECT *, sum(t_events) OVER (PARTITION BY t_value) AS t_total FROM (${grouped})`;
  const ranked = `SELECT *, dense_rank() OVER (ORDER BY t_total DESC, t_value DESC) AS t_rank FROM (${totalled})`;
  return {
    text: `SELECT if(t_rank <= ${params.add(breakdown.limit, "int")}, t_value, ${params.add(BREAKDOWN_OTHER, "text")}) AS value, ${bucketText} AS bucket, toFloat64(${merged}) AS n
             FROM (${ranked}) GROUP BY value, t_bucket`,
    params: params.values,
  };
}

/** A breakdown's value of an event: the property's text, BREAKDOWN_NULL for missing, null or "". */
function chBreakdownValue(breakdown: NonNullable<TrendQuery["breakdown"]>, personValues: PersonValues | null, params: ChParams): string {
  let text: string;
  if (breakdown.type === "person") {
    const values = personValues ?? { uuids: [], values: [] };
    text = `transform(ifNull(toString(e.person_id), ''), ${params.add(values.uuids, "text[]")}, ${params.add(values.values, "text[]")}, '')`;
  } else {
    text = chEventPropertyText(breakdown.key, params);
  }
  return `if(${text} = '', ${params.add(BREAKDOWN_NULL, "text")}, ${text})`;
}

/** The aggregate of a math other than `active` (PostgreSQL's postgresAggregate: the same values). */
function chAggregate(query: TrendQuery, params: ChParams): string {
  switch (query.math) {
    case "total":
      return "count()";
    case "dau":
      return UNIQUE_USERS;
    case "unique_session": {
      const text = chEventPropertyText("$session_id", params);
      return `uniqExactIf(${text}, ${text} != '')`;
    }
    case "active":
    case "first_seen_users":
      throw new Error("counted per actor, not per event");
    default: {
      const text = chEventPropertyText(query.mathProperty ?? "", params);
      return chPropertyAggregate(query.math as PropertyMath, CLICKHOUSE.numericText(text, params));
    }
  }
}

/** A property math over the numbers `num` (nulls left out), 0 where there are none. */
function chPropertyAggregate(math: PropertyMath, num: string): string {
  const quantile = MATH_QUANTILES[math];
  // quantileExactInclusive interpolates as PostgreSQL's percentile_cont.
  const fn = quantile !== undefined ? `quantileExactInclusive(${quantile})(${num})` : `${math}(${num})`;
  return `if(count(${num}) = 0, 0, ifNull(${fn}, 0))`;
}

/** A session property's value for a merged session row `s` (as PostgreSQL's SESSION_VALUES). */
const CH_SESSION_VALUES: Record<SessionMathProperty, string> = { $session_duration: CH_SESSION_DURATION, $is_bounce: CH_SESSION_BOUNCE };

/** The actor of an event: its person, else its distinct id (as PostgreSQL's). */
const CH_ACTOR = `if(e.person_id IS NULL, concat('distinct_id:', e.distinct_id), toString(e.person_id))`;

/** Every math but the fast paths, as PostgreSQL's postgresGeneralTrend: kept values first, then one aggregation. */
function clickHouseGeneralTrend(
  tables: ChTables,
  projectId: number,
  query: TrendQuery,
  persons: ReadonlyMap<PropertyFilter, PersonSet>,
  personValues: PersonValues | null,
  cohorts: ReadonlyMap<number, readonly string[]>,
): { text: string; params: Record<string, unknown> } {
  const table = tables.events;
  const params = new ChParams();
  const cohort = clickHouseCohortResolver(cohorts, params);
  const filter = (group: TrendQuery["filters"][number]) =>
    chPropertiesSql(group, { params, column: "e.properties", personColumn: "e.person_id", persons, now: query.now, cohort });
  const { breakdown } = query;
  const active = query.math === "active" ? (query.active ?? { days: 1, buckets: [] }) : null;
  const lookback = active ? { ...query, from: new Date(query.from.getTime() - (active.days + 1) * 86_400_000) } : query;
  const where = trendConditions(params, projectId, lookback, filter);
  let value = "CAST(NULL AS Nullable(String))";
  let kept = "";
  if (breakdown) {
    const raw = chBreakdownValue(breakdown, personValues, params);
    const rangeWhere = trendConditions(params, projectId, query, filter);
    // Every value of the range, most events first (ties to the larger value); the first `limit` are kept.
    kept = `WITH (SELECT arrayMap(x -> x.2, arrayReverseSort(groupArray((t_events, t_value))))
                    FROM (SELECT ${raw} AS t_value, count() AS t_events FROM ${table} AS e WHERE ${rangeWhere.join(" AND ")} GROUP BY t_value)) AS t_ranked,
                 arraySlice(t_ranked, 1, ${params.add(breakdown.limit, "int")}) AS t_kept `;
    value = `if(has(t_kept, ${raw}), ${raw}, ${params.add(BREAKDOWN_OTHER, "text")})`;
    // Active users' lookback reads only values the range has (as PostgreSQL's).
    if (active) where.push(`has(t_ranked, ${raw})`);
  }
  // A session property joins each event's merged session; events without one are left out.
  const sessionJoin = query.sessionProperty
    ? ` INNER JOIN ${chSessionsOverlapping(tables, params, projectId, params.add(query.from.toISOString(), "timestamptz"), params.add(query.to.toISOString(), "timestamptz"))} AS s ON s.sid = e.mat_session_id`
    : "";
  const from = `FROM ${table} AS e${sessionJoin} WHERE ${where.join(" AND ")}`;
  if (active) {
    const localDay = `toDate(${CLICKHOUSE.localTime(params.add(query.zone, "text"))})`;
    const texts = params.add(active.buckets, "text[]");
    const window = active.days;
    // As PostgreSQL's: each (value, actor)'s active days span the window up to the next one,
    // so a bucket's active users are the spans begun by its day minus those ended — a
    // running sum, with each bucket's day as a mark row for each value.
    const marks = breakdown ? `arrayConcat(t_kept, [${params.add(BREAKDOWN_OTHER, "text")}])` : "[CAST(NULL AS Nullable(String))]";
    const spans = `SELECT a_value AS s_value, a_day AS s_day,
             least(a_day + ${window}, ifNull(leadInFrame(toNullable(a_day)) OVER (PARTITION BY a_value, a_actor ORDER BY a_day ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING), a_day + ${window})) AS s_stop
        FROM (SELECT DISTINCT ${value} AS a_value, ${localDay} AS a_day, ${CH_ACTOR} AS a_actor ${from})`;
    return {
      text: `${kept}SELECT r_value AS value, ${texts}[r_index] AS bucket, toFloat64(r_n) AS n FROM (
               SELECT r_value, r_index, r_mark, sum(r_step) OVER (PARTITION BY r_value ORDER BY r_day, r_mark ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS r_n
                 FROM (
                   SELECT s_value AS r_value, st.1 AS r_day, st.2 AS r_step, 0 AS r_mark, 0 AS r_index FROM (${spans}) ARRAY JOIN [(s_day, 1), (s_stop, -1)] AS st
                   UNION ALL
                   SELECT m_value, toDate(substring(${texts}[m_index], 1, 10)), 0, 1, m_index FROM system.one ARRAY JOIN ${marks} AS m_value ARRAY JOIN arrayEnumerate(${texts}) AS m_index
                 )
             ) WHERE r_mark = 1 AND r_n > 0`,
      params: params.values,
    };
  }
  const local = trendBucket(CLICKHOUSE, params, query);
  if (query.math === "first_seen_users" && local !== null) {
    return {
      text: `${kept}SELECT f_value AS value, ${CLICKHOUSE.bucketText("f_bucket")} AS bucket, toFloat64(count()) AS n
               FROM (SELECT ${value} AS f_value, ${CH_ACTOR} AS f_actor, min(${local}) AS f_bucket ${from} GROUP BY f_value, f_actor)
              GROUP BY f_value, f_bucket`,
      params: params.values,
    };
  }
  if (query.sessionProperty) {
    // As PostgreSQL's: each session's value once per (value, bucket), then the math over those.
    const perSession = `SELECT DISTINCT ${value} AS p_value, ${local ?? "NULL"} AS p_bucket, s.sid AS p_sid, toFloat64(${CH_SESSION_VALUES[query.sessionProperty]}) AS p_x ${from}`;
    const grouped = local === null ? (breakdown ? " GROUP BY p_value" : "") : " GROUP BY p_value, p_bucket";
    return {
      text: `${kept}SELECT ${grouped === "" ? "CAST(NULL AS Nullable(String))" : "p_value"} AS value, ${local === null ? "NULL" : CLICKHOUSE.bucketText("p_bucket")} AS bucket,
               toFloat64(${chPropertyAggregate(query.math as PropertyMath, "p_x")}) AS n FROM (${perSession})${grouped}`,
      params: params.values,
    };
  }
  const aggregate = chAggregate({ ...query, math: query.math === "first_seen_users" ? "dau" : query.math }, params);
  if (local === null) {
    const grouped = breakdown ? " GROUP BY value" : "";
    return { text: `${kept}SELECT ${value} AS value, NULL AS bucket, toFloat64(${aggregate}) AS n ${from}${grouped}`, params: params.values };
  }
  return {
    text: `${kept}SELECT value, ${CLICKHOUSE.bucketText("t_bucket")} AS bucket, toFloat64(t_n) AS n
             FROM (SELECT ${value} AS value, ${local} AS t_bucket, ${aggregate} AS t_n ${from} GROUP BY value, t_bucket)`,
    params: params.values,
  };
}
