/**
 * Insights' aggregation (trend-query.ts) in PostgreSQL: one statement that filters the
 * events (the events API's property-filter SQL), counts them — or their unique users — per
 * bucket of the zone, and for a breakdown ranks the property's values by event count in the
 * same statement, folding all but the top ones into "other".
 */
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { postgresCohortResolver } from "./cohorts";
import { POSTGRES_EVENTS } from "./postgres-dialect";
import { trendBucket, trendConditions, trendTotalsStatement } from "./sql";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type TrendQuery } from "./trend-query";

/** Unique users: persons, and for events without one, their distinct ids (PostHog counts person_id). */
const UNIQUE_USERS = "count(DISTINCT e.person_id) + count(DISTINCT e.distinct_id) FILTER (WHERE e.person_id IS NULL)";

/** The statement of a trend: rows (value, bucket, n), bucket as wall-clock text. */
export function postgresTrendStatement(projectId: number, query: TrendQuery): { text: string; values: unknown[] } {
  const { breakdown } = query;
  const params = new SqlParams();
  const person = breakdown?.type === "person" || query.filters.some(readsPersonProperties);
  const join = person ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  const columns = { event: "e.properties", person: person ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" };

  const where = trendConditions(params, projectId, query, (group) => propertiesSql(group, { params, columns, now: query.now, cohort: postgresCohortResolver(params) }));
  const local = trendBucket(POSTGRES_EVENTS, params, query);
  // One bucket for the whole range: grouped by a constant.
  const bucket = local ?? "NULL::timestamp";
  const from = `FROM events e${join} WHERE ${where.join(" AND ")}`;
  const bucketText = POSTGRES_EVENTS.bucketText;

  if (!breakdown) {
    return { text: trendTotalsStatement(POSTGRES_EVENTS, from, local, query.math === "dau" ? UNIQUE_USERS : "count(*)"), values: params.values };
  }

  const source = breakdown.type === "person" ? columns.person : "e.properties";
  const value = `COALESCE(NULLIF(${source} ->> ${params.add(breakdown.key, "text")}, ''), ${params.add(BREAKDOWN_NULL, "text")})`;
  const limit = params.add(breakdown.limit, "int");
  const other = params.add(BREAKDOWN_OTHER, "text");
  // Values rank by their number of events (PostHog ranks unique-user breakdowns so too),
  // ties to the larger value; all past the limit fold into "other".
  const rank = `row_number() OVER (ORDER BY sum(events) DESC, value COLLATE "C" DESC) AS rank`;
  const folded = `CASE WHEN r.rank <= ${limit} THEN r.value ELSE ${other} END`;
  if (query.math === "dau") {
    // Unique users are counted per (folded value, bucket) straight from the events, so a
    // user seen under two folded values counts once in "other". Two passes over the events
    // cost less than keeping every (bucket, value, user) group between them.
    return {
      text: `WITH ranked AS (SELECT value, ${rank} FROM (SELECT ${value} AS value, count(*) AS events ${from} GROUP BY 1) counted GROUP BY value)
        SELECT s.value, ${bucketText("s.bucket")} AS bucket, s.n::float8 AS n FROM (
          SELECT ${folded} AS value, ${bucket} AS bucket, ${UNIQUE_USERS} AS n
            FROM events e${join} JOIN ranked r ON r.value = ${value}
           WHERE ${where.join(" AND ")}
           GROUP BY 1, 2
        ) s`,
      values: params.values,
    };
  }
  return {
    text: `WITH grouped AS (SELECT ${bucket} AS bucket, ${value} AS value, count(*) AS events ${from} GROUP BY 1, 2),
      ranked AS (SELECT value, ${rank} FROM grouped GROUP BY value)
      SELECT ${folded} AS value, ${bucketText("g.bucket")} AS bucket, sum(g.events)::float8 AS n
        FROM grouped g JOIN ranked r ON r.value = g.value
       GROUP BY 1, g.bucket`,
    values: params.values,
  };
}
