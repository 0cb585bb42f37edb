/**
 * Insights' aggregation (query.ts) in PostgreSQL: one statement that filters the
 * events (the events API's property-filter SQL), counts them — or their unique users — per
 * bucket of the zone, and for a breakdown ranks the property's values by event count in the
 * same statement, folding all but the top ones into "other".
 */
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { POSTGRES } from "@/server/sql/postgres";
import { cohortIdsOf, postgresCohortResolver, requireCohorts } from "../filters/cohorts";
import { queryWithSmallHashes } from "../postgres/hash-settings";
import { SESSION_BOUNCE, SESSION_DURATION } from "../sessions/postgres";
import { trendBucket, trendConditions, trendTotalsStatement } from "./build";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, MATH_QUANTILES, type PropertyMath, type SessionMathProperty, type TrendQuery, type TrendRow } from "./query";

/** An actor as two grouping keys, no text made per event: the person, else (no person) the distinct id. */
const ACTOR_KEYS = ["e.person_id", "CASE WHEN e.person_id IS NULL THEN e.distinct_id END"];
/** An event's session, none for no or an empty `$session_id` (unique_session). */
const SESSION_KEY = `NULLIF(e.properties ->> '$session_id', '')`;

/** A property math over the numbers `num` (nulls left out), 0 where there are none. */
function propertyAggregate(math: PropertyMath, num: string): string {
  const quantile = MATH_QUANTILES[math];
  const fn = quantile !== undefined ? `percentile_cont(${quantile}) WITHIN GROUP (ORDER BY ${num})` : `${math}(${num})`;
  return `COALESCE(${fn}, 0)`;
}

/** A session property's value for a session row `s` (query.ts's SESSION_MATH_PROPERTIES). */
const SESSION_VALUES: Record<SessionMathProperty, string> = { $session_duration: SESSION_DURATION, $is_bounce: SESSION_BOUNCE };

/** An event's actor: its person, else its distinct id (as unique users count them; see actor-events/query.ts). */
const ACTOR = `COALESCE(e.person_id::text, 'distinct_id:' || e.distinct_id)`;

/**
 * Distinct counts per (value, bucket) as two hash aggregates — each (value, bucket, key…)
 * once, then counted — where count(DISTINCT …) sorts every row of the read: for the 560k page
 * views of a month (bench:web's graph), unique users 390 → 230 ms and sessions 750 → 280 ms.
 * `counted` is `count(*)` when every key group is one (actors), `count(d.k0)` to leave out a
 * null key (no session). Without a bucket and a breakdown: one row, also without events.
 */
function distinctCounts(from: string, value: string, bucket: string | null, keys: string[], counted: string, grouped: boolean): string {
  const keyColumns = keys.map((key, i) => `${key} AS k${i}`).join(", ");
  const inner = `SELECT ${value} AS value, ${bucket ?? "NULL::timestamp"} AS bucket, ${keyColumns} ${from} GROUP BY ${[1, 2, ...keys.map((_, i) => i + 3)].join(", ")}`;
  if (bucket === null) {
    return `SELECT ${grouped ? "d.value" : "NULL::text"} AS value, NULL::text AS bucket, (${counted})::float8 AS n FROM (${inner}) d${grouped ? " GROUP BY d.value" : ""}`;
  }
  return `SELECT d.value, ${POSTGRES.bucketText("d.bucket")} AS bucket, (${counted})::float8 AS n FROM (${inner}) d GROUP BY d.value, d.bucket`;
}

/**
 * The maths whose statements group events, actors or sessions by hashes alone, run with
 * hash-settings.ts' settings. With a breakdown, or counting users or sessions, the groups may
 * be many; on 1M events (scratch runs, the settings taking turns, median): broken down by a
 * million values 3.4 → 2.1 s, by 280,000 values 1.53 → 1.02 s, by 40 values 420 → 396 ms;
 * unique users 1,356 → 644 ms, by 40 pages 3.6 → 1.3 s. A count without a breakdown has few
 * groups (its buckets) but is planned for a million: its hash capped, 471 → 325 ms; with
 * sorting off as well, a selective one (page views among all events) lost its plan (34 →
 * 200 ms in bench:trends). The other maths sort within their groups (percentiles, active
 * users' windows) and keep the connection's settings.
 */
const SMALL_HASH_MATHS: ReadonlySet<TrendQuery["math"]> = new Set(["total", "dau", "unique_session"]);

export async function postgresTrend(sql: SqlExecutor & Pick<SqlDriver, "transaction">, projectId: number, query: TrendQuery): Promise<TrendRow[]> {
  await requireCohorts(sql, projectId, cohortIdsOf(query.filters));
  const statement = postgresTrendStatement(projectId, query);
  if (SMALL_HASH_MATHS.has(query.math)) return queryWithSmallHashes<TrendRow>(sql, statement, query.breakdown || query.math !== "total" ? "many" : "few");
  return sql.query<TrendRow>(statement.text, statement.values);
}

/** The statement of a trend: rows (value, bucket, n), bucket as wall-clock text. */
function postgresTrendStatement(projectId: number, query: TrendQuery): { text: string; values: unknown[] } {
  const { breakdown } = query;
  if (query.math !== "total" && query.math !== "dau") return postgresGeneralTrend(projectId, query);
  const params = new SqlParams();
  const person = breakdown?.type === "person" || query.filters.some(readsPersonProperties);
  const join = person ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  const columns = { event: "e.properties", person: person ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" };

  const where = trendConditions(params, projectId, query, (group) => propertiesSql(group, { params, columns, now: query.now, cohort: postgresCohortResolver(params) }));
  const local = trendBucket(POSTGRES, params, query);
  const from = `FROM events e${join} WHERE ${where.join(" AND ")}`;
  if (!breakdown) {
    if (query.math === "dau") return { text: distinctCounts(from, "NULL::text", local, ACTOR_KEYS, "count(*)", false), values: params.values };
    return { text: trendTotalsStatement(POSTGRES, from, local, "count(*)"), values: params.values };
  }

  const source = breakdown.type === "person" ? columns.person : "e.properties";
  const value = `COALESCE(NULLIF(${source} ->> ${params.add(breakdown.key, "text")}, ''), ${params.add(BREAKDOWN_NULL, "text")})`;
  const limit = params.add(breakdown.limit, "int");
  const other = params.add(BREAKDOWN_OTHER, "text");
  if (query.math === "dau") {
    // Values rank by their number of events (PostHog ranks unique-user breakdowns so too),
    // ties to the larger value; all past the limit fold into "other". Unique users are
    // counted per (folded value, bucket) straight from the events, so a user seen under two
    // folded values counts once in "other". Two passes over the events cost less than keeping
    // every (bucket, value, user) group between them. The kept values are looked up by a
    // hashed subplan, not joined to a ranking of all: without statistics the planner nested
    // loops over that join (8,000 session ids: 11 s).
    return {
      text: `WITH kept AS (SELECT value FROM (SELECT ${value} COLLATE "C" AS value, count(*) AS events ${from} GROUP BY 1) counted ORDER BY events DESC, value DESC LIMIT ${limit})
        ${distinctCounts(from, `CASE WHEN ${value} IN (SELECT value FROM kept) THEN ${value} ELSE ${other} END`, local, ACTOR_KEYS, "count(*)", true)}`,
      values: params.values,
    };
  }
  // The (bucket, value) counts read once (materialised), the values ranked from them by a
  // hash aggregate and a top-N sort, the kept ones looked up by a hashed subplan: neither a
  // join of the counts to their ranking, which nests loops when the planner has no statistics
  // (PGlite never analyzes on its own: 8,000 session ids took 31 s), nor window functions,
  // which sorted every (bucket, value) twice (a million session ids: 6.1 s, this 3.6 s; 40
  // values over a million events: the same). Byte order (COLLATE "C") for the ties.
  return {
    text: `WITH g AS MATERIALIZED (SELECT ${local ?? "NULL::timestamp"} AS bucket, ${value} COLLATE "C" AS value, count(*) AS events ${from} GROUP BY 1, 2),
             kept AS (SELECT value FROM g GROUP BY value ORDER BY sum(events) DESC, value DESC LIMIT ${limit})
        SELECT CASE WHEN g.value IN (SELECT value FROM kept) THEN g.value ELSE ${other} END AS value,
               ${POSTGRES.bucketText("g.bucket")} AS bucket, sum(g.events)::float8 AS n
          FROM g GROUP BY 1, g.bucket`,
    values: params.values,
  };
}

/**
 * Every math but the two fast paths above: the breakdown's kept values (most events in the
 * range first, ties to the larger value) chosen first, then one aggregation grouped by the
 * folded value — for `active`, of each (value, local day, actor) once, each counted in
 * the buckets whose window holds its day. The values are counted in byte order (COLLATE
 * "C"): the order the ties need, and no locale-aware comparison in the counts' sorts
 * (40 values over a million events: 1.0 → 0.8 s; a million values: 3.0 → 2.4 s).
 */
function postgresGeneralTrend(projectId: number, query: TrendQuery): { text: string; values: unknown[] } {
  const { breakdown } = query;
  const params = new SqlParams();
  const person = breakdown?.type === "person" || query.filters.some(readsPersonProperties);
  const join = person ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  const columns = { event: "e.properties", person: person ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" };
  const filter = (group: TrendQuery["filters"][number]) => propertiesSql(group, { params, columns, now: query.now, cohort: postgresCohortResolver(params) });
  const active = query.math === "active" ? (query.active ?? { days: 1, buckets: [] }) : null;
  // Active users look back a window (one more day for a change of clock) before the range.
  const lookback = active ? { ...query, from: new Date(query.from.getTime() - (active.days + 1) * 86_400_000) } : query;
  const where = trendConditions(params, projectId, lookback, filter);
  let value = "NULL::text";
  let kept = "";
  if (breakdown) {
    const source = breakdown.type === "person" ? columns.person : "e.properties";
    const raw = `COALESCE(NULLIF(${source} ->> ${params.add(breakdown.key, "text")}, ''), ${params.add(BREAKDOWN_NULL, "text")})`;
    const rangeWhere = trendConditions(params, projectId, query, filter);
    kept = `WITH counted AS (SELECT ${raw} COLLATE "C" AS value, count(*) AS events FROM events e${join} WHERE ${rangeWhere.join(" AND ")} GROUP BY 1),
                kept AS (SELECT value FROM counted ORDER BY events DESC, value DESC LIMIT ${params.add(breakdown.limit, "int")}) `;
    value = `(CASE WHEN ${raw} IN (SELECT value FROM kept) THEN ${raw} ELSE ${params.add(BREAKDOWN_OTHER, "text")} END)`;
    // Active users' lookback reads only values the range has: one seen only before it is no "other".
    if (active) where.push(`${raw} IN (SELECT value FROM counted)`);
  }
  const from = `FROM events e${join} WHERE ${where.join(" AND ")}`;
  const bucketText = POSTGRES.bucketText;
  if (active) {
    const localDay = `(${POSTGRES.localTime(params.add(query.zone, "text"))})::date`;
    const window = params.add(active.days, "int");
    const buckets = params.add(active.buckets, "text[]");
    // Each (value, actor)'s active days, each covering the window's days from it up to the
    // actor's next active day: spans that never overlap, so a day's active users are the
    // spans begun minus those ended by then — a running sum over the days, where counting
    // distinct users per bucket would sort every (bucket, user) of every window.
    const open = kept ? `${kept}, ` : "WITH ";
    return {
      text: `${open}days AS (SELECT DISTINCT ${value} AS value, ${localDay} AS day, ${ACTOR} AS actor ${from}),
             spans AS (SELECT value, day, LEAST(day + ${window}, COALESCE(lead(day) OVER (PARTITION BY value, actor ORDER BY day), day + ${window})) AS stop FROM days),
             steps AS (
               SELECT value, day, sum(step) AS step FROM (
                 SELECT value, day, 1 AS step FROM spans
                 UNION ALL SELECT value, stop, -1 FROM spans
                 UNION ALL SELECT v.value, b.bucket::date, 0 FROM (SELECT DISTINCT value FROM days) v CROSS JOIN unnest(${buckets}::timestamp[]) AS b(bucket)
               ) s GROUP BY value, day),
             running AS (SELECT value, day, sum(step) OVER (PARTITION BY value ORDER BY day) AS n FROM steps)
        SELECT r.value, ${bucketText("b.bucket")} AS bucket, r.n::float8 AS n
          FROM unnest(${buckets}::timestamp[]) AS b(bucket) JOIN running r ON r.day = b.bucket::date`,
      values: params.values,
    };
  }
  const bucket = trendBucket(POSTGRES, params, query);
  if (query.math === "first_seen_users" && bucket !== null) {
    return {
      text: `${kept}SELECT f.value, ${bucketText("f.bucket")} AS bucket, count(*)::float8 AS n
               FROM (SELECT ${value} AS value, ${ACTOR} AS actor, min(${bucket}) AS bucket ${from} GROUP BY 1, 2) f
              GROUP BY f.value, f.bucket`,
      values: params.values,
    };
  }
  if (query.sessionProperty) {
    // Each session's value once per (value, bucket) it has events in (PostHog groups by
    // $session_id before the math), then the math over those; events without a session row
    // are left out. The events' (value, bucket, session) first, then those join their
    // sessions: half the rows to join, and no wide rows to deduplicate.
    const sessions = `SELECT ${value} AS value, ${bucket ?? "NULL::timestamp"} AS bucket, ${SESSION_KEY} AS sid ${from} GROUP BY 1, 2, 3`;
    const perSession = `SELECT d.value, d.bucket, (${SESSION_VALUES[query.sessionProperty]})::float8 AS x
      FROM (${sessions}) d JOIN sessions s ON s.project_id = ${params.add(projectId, "int")} AND s.session_id = d.sid`;
    const aggregate = propertyAggregate(query.math as PropertyMath, "p.x");
    const grouped = bucket === null ? (breakdown ? " GROUP BY p.value" : "") : " GROUP BY p.value, p.bucket";
    return {
      text: `${kept}SELECT ${grouped === "" ? "NULL::text" : "p.value"} AS value, ${bucket === null ? "NULL::text" : bucketText("p.bucket")} AS bucket, (${aggregate})::float8 AS n FROM (${perSession}) p${grouped}`,
      values: params.values,
    };
  }
  if (query.math === "unique_session") return { text: `${kept}${distinctCounts(from, value, bucket, [SESSION_KEY], "count(d.k0)", breakdown !== null)}`, values: params.values };
  // First-seen users without buckets: every user of the range, once.
  if (query.math === "first_seen_users") return { text: `${kept}${distinctCounts(from, value, null, ACTOR_KEYS, "count(*)", breakdown !== null)}`, values: params.values };
  const aggregate = propertyAggregate(query.math as PropertyMath, POSTGRES.numericText(`(e.properties ->> ${params.add(query.mathProperty ?? "", "text")})`, params));
  if (bucket === null) {
    // One row for the whole range, also without events (no breakdown).
    const grouped = breakdown ? " GROUP BY 1" : "";
    return { text: `${kept}SELECT ${value} AS value, NULL::text AS bucket, (${aggregate})::float8 AS n ${from}${grouped}`, values: params.values };
  }
  return {
    text: `${kept}SELECT s.value, ${bucketText("s.bucket")} AS bucket, s.n::float8 AS n FROM (
             SELECT ${value} AS value, ${bucket} AS bucket, ${aggregate} AS n ${from} GROUP BY 1, 2) s`,
    values: params.values,
  };
}
