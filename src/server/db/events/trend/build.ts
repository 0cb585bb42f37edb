/**
 * The trend's SQL both stores write alike (postgres.ts, clickhouse.ts): its conditions, its
 * buckets and the totals without a breakdown, parameterised by the dialect. The ranked
 * breakdown, the distinct counts and the other maths differ in strategy and stay with each.
 */
import type { Binder } from "@/server/sql/bind";
import type { SqlDialect } from "@/server/sql/dialect";
import type { TrendQuery } from "./query";
import { notTestEvent } from "../test-event";

/** A trend's conditions: the project, the time range, the event; `filter` compiles each property group. */
export function trendConditions(params: Binder, projectId: number, query: TrendQuery, filter: (group: TrendQuery["filters"][number]) => string): string[] {
  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    `e.timestamp >= ${params.add(query.from.toISOString(), "timestamptz")}`,
    `e.timestamp <= ${params.add(query.to.toISOString(), "timestamptz")}`,
  ];
  // Any event is any but the test event (test-event.ts).
  where.push(query.event !== null ? `e.event = ${params.add(query.event, "text")}` : notTestEvent());
  for (const group of query.filters) where.push(filter(group));
  return where;
}

/** The bucket of an event in the trend's zone (weeks from Sunday); null without an interval. */
export function trendBucket(dialect: SqlDialect, params: Binder, query: TrendQuery): string | null {
  return query.interval === null ? null : dialect.bucket[query.interval](dialect.localTime(params.add(query.zone, "text")));
}

/** A trend without a breakdown: rows (value null, bucket, n), one for the whole range when `bucket` is null. */
export function trendTotalsStatement(dialect: SqlDialect, from: string, bucket: string | null, aggregate: string): string {
  return bucket === null
    ? `SELECT ${dialect.nullText} AS value, ${dialect.nullText} AS bucket, ${dialect.float(aggregate)} AS n ${from}`
    : `SELECT ${dialect.nullText} AS value, ${dialect.bucketText("t_bucket")} AS bucket, ${dialect.float("t_n")} AS n
         FROM (SELECT ${bucket} AS t_bucket, ${aggregate} AS t_n ${from} GROUP BY t_bucket) AS totals`;
}
