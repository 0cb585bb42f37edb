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
import { clickHouseCohortResolver } from "../cohorts";
import { trendBucket, trendConditions, trendTotalsStatement } from "../sql";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type TrendQuery } from "../trend-query";
import { CLICKHOUSE_EVENTS } from "./dialect";
import { hotPropertyColumn } from "./hot-properties";
import { ChParams } from "./params";
import { chPropertiesSql, type PersonSet } from "./properties";

const UNIQUE_USERS = "uniqExact(e.person_id) + uniqExactIf(e.distinct_id, e.person_id IS NULL)";

/** The persons (uuid text) whose breakdown property is set, and its text for each. */
export interface PersonValues {
  uuids: string[];
  values: string[];
}

/**
 * An event property's text as PostgreSQL's `->>` gives it ('' for missing or null): strings
 * as they are, anything else its JSON text (as the hot columns hold it). Read from the
 * value's raw JSON, so that the event's JSON is parsed once; a hot key reads its column.
 */
export function chEventPropertyText(key: string, params: ChParams): string {
  const hot = hotPropertyColumn(key);
  if (hot !== null) return `e.${hot}`;
  const raw = `JSONExtractRaw(e.properties, ${params.add(key, "text")})`;
  return `multiIf(startsWith(${raw}, '"'), JSONExtractString(${raw}), ${raw} = 'null', '', ${raw})`;
}

/** The statement of a trend: rows (value, bucket, n), bucket as wall-clock text. */
export function clickHouseTrendStatement(
  table: string,
  projectId: number,
  query: TrendQuery,
  persons: ReadonlyMap<PropertyFilter, PersonSet>,
  personValues: PersonValues | null,
  cohorts: ReadonlyMap<number, readonly string[]> = new Map(),
): { text: string; params: Record<string, unknown> } {
  const params = new ChParams();
  const cohort = clickHouseCohortResolver(cohorts, params);
  const where = trendConditions(params, projectId, query, (group) =>
    chPropertiesSql(group, { params, column: "e.properties", personColumn: "e.person_id", persons, now: query.now, cohort }),
  );
  const from = `FROM ${table} AS e WHERE ${where.join(" AND ")}`;
  const local = trendBucket(CLICKHOUSE_EVENTS, params, query);
  const aggregate = query.math === "dau" ? UNIQUE_USERS : "count()";
  const { breakdown } = query;
  if (!breakdown) return { text: trendTotalsStatement(CLICKHOUSE_EVENTS, from, local, aggregate), params: params.values };

  const bucket = local ?? "NULL";
  const bucketText = local === null ? "NULL" : CLICKHOUSE_EVENTS.bucketText("t_bucket");
  let text: string;
  if (breakdown.type === "person") {
    const values = personValues ?? { uuids: [], values: [] };
    text = `transform(ifNull(toString(e.person_id), ''), ${params.add(values.uuids, "text[]")}, ${params.add(values.values, "text[]")}, '')`;
  } else {
    text = chEventPropertyText(breakdown.key, params);
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
