/**
 * Insights' aggregation (../trend-query.ts) in ClickHouse, with the PostgreSQL store's
 * semantics: buckets on the zone's wall clock (weeks from Sunday), unique users as persons
 * plus the distinct ids of events without one, property filters as the list compiles them,
 * breakdown values as PostgreSQL's `->>` writes them (null and "" are the null bucket),
 * top values by event count with ties to the larger value, the rest folded into "other".
 *
 * A person-property breakdown needs each person's value, which lives in PostgreSQL: the
 * store reads the persons that have one there and the statement maps `person_id` to it.
 */
import type { PropertyFilter } from "@/server/properties/contract";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type TrendInterval, type TrendQuery } from "../trend-query";
import { hotPropertyColumn } from "./hot-properties";
import { ChParams } from "./params";
import { chPropertiesSql, type PersonSet } from "./properties";

/** Bucket start of a time in the zone (a DateTime there, so formatting gives the wall clock); weeks start on Sunday. */
const BUCKET_OF: Record<TrendInterval, (local: string) => string> = {
  hour: (local) => `toStartOfHour(${local})`,
  day: (local) => `toStartOfDay(${local})`,
  week: (local) => `toStartOfWeek(${local}, 0)`,
  month: (local) => `toStartOfMonth(${local})`,
};

const UNIQUE_USERS = "uniqExact(e.person_id) + uniqExactIf(e.distinct_id, e.person_id IS NULL)";

/** The persons (uuid text) whose breakdown property is set, and its text for each. */
export interface PersonValues {
  uuids: string[];
  values: string[];
}

/** The statement of a trend: rows (value, bucket, n), bucket as wall-clock text. */
export function clickHouseTrendStatement(
  table: string,
  projectId: number,
  query: TrendQuery,
  persons: ReadonlyMap<PropertyFilter, PersonSet>,
  personValues: PersonValues | null,
): { text: string; params: Record<string, unknown> } {
  const params = new ChParams();
  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    `e.timestamp >= ${params.add(query.from.toISOString(), "timestamptz")}`,
    `e.timestamp <= ${params.add(query.to.toISOString(), "timestamptz")}`,
  ];
  if (query.event !== null) where.push(`e.event = ${params.add(query.event, "text")}`);
  for (const group of query.filters) {
    where.push(chPropertiesSql(group, { params, column: "e.properties", personColumn: "e.person_id", persons, now: query.now }));
  }
  const from = `FROM ${table} AS e WHERE ${where.join(" AND ")}`;
  const bucket = query.interval === null ? "NULL" : BUCKET_OF[query.interval](`toTimeZone(e.timestamp, ${params.add(query.zone, "text")})`);
  const bucketText = query.interval === null ? "NULL" : "formatDateTime(t_bucket, '%Y-%m-%d %H:%i:%S')";
  const aggregate = query.math === "dau" ? UNIQUE_USERS : "count()";
  const { breakdown } = query;

  if (!breakdown) {
    return {
      text:
        query.interval === null
          ? `SELECT NULL AS value, NULL AS bucket, toFloat64(${aggregate}) AS n ${from}`
          : `SELECT NULL AS value, ${bucketText} AS bucket, toFloat64(t_n) AS n FROM (SELECT ${bucket} AS t_bucket, ${aggregate} AS t_n ${from} GROUP BY t_bucket)`,
      params: params.values,
    };
  }

  let text: string;
  if (breakdown.type === "person") {
    const values = personValues ?? { uuids: [], values: [] };
    text = `transform(ifNull(toString(e.person_id), ''), ${params.add(values.uuids, "text[]")}, ${params.add(values.values, "text[]")}, '')`;
  } else if (hotPropertyColumn(breakdown.key) !== null) {
    text = `e.${hotPropertyColumn(breakdown.key)}`;
  } else {
    // PostgreSQL's `->>`: strings as they are, JSON null as none, anything else its JSON
    // text (as the hot columns hold it). Read from the value's raw JSON, so that the
    // event's JSON is parsed once.
    const raw = `JSONExtractRaw(e.properties, ${params.add(breakdown.key, "text")})`;
    text = `multiIf(startsWith(${raw}, '"'), JSONExtractString(${raw}), ${raw} = 'null', '', ${raw})`;
  }
  const value = `if(${text} = '', ${params.add(BREAKDOWN_NULL, "text")}, ${text})`;
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
