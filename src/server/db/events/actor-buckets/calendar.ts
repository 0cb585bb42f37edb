/**
 * The range's buckets, listed once for the masks way of either store (postgres.ts,
 * clickhouse.ts): by PostgreSQL, which both stores have (persons live there), so that the
 * two bucket alike — one database's zone rules decide where each wall-clock bucket starts.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { SqlParams } from "@/server/properties/sql";
import { POSTGRES } from "@/server/sql/postgres";
import type { ActorBucketsQuery } from "./query";

/** Buckets per word of a mask: an int4's bits below its sign (ints parse faster than bigint text: 100,000 rows a query). */
export const WORD_BITS = 30;
/** The most mask columns (matchers × words) the masks way takes; past it the general way answers. */
export const MAX_MASK_COLUMNS = 64;

const STEP: Record<ActorBucketsQuery["interval"], string> = { hour: "1 hour", day: "1 day", week: "1 week", month: "1 month" };

/** The range's buckets in order: t, the start as epoch seconds; h, wall-clock hours since 1970 (query.ts's buckets). */
export async function calendar(sql: SqlExecutor, query: ActorBucketsQuery): Promise<{ t: number; h: number }[]> {
  const params = new SqlParams();
  const zone = params.add(query.zone, "text");
  const wall = (at: string) => POSTGRES.bucket[query.interval](`(${at} AT TIME ZONE ${zone})`);
  const from = params.add(query.from.toISOString(), "timestamptz");
  const to = params.add(query.to.toISOString(), "timestamptz");
  return sql.query<{ t: number; h: number }>(
    `SELECT extract(epoch FROM (w AT TIME ZONE ${zone}))::float8 AS t, (extract(epoch FROM w) / 3600)::int AS h
       FROM generate_series(${wall(from)}, ${wall(`(${to} - interval '1 microsecond')`)}, interval '${STEP[query.interval]}') AS w
      WHERE ${to} > ${from} ORDER BY w`,
    params.values,
  );
}

