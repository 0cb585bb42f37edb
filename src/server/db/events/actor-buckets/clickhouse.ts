/**
 * `actorBuckets` (query.ts) in ClickHouse, with the PostgreSQL store's
 * semantics: events grouped by actor and wall-clock bucket of the zone (weeks from Sunday),
 * each actor's buckets folded into one sorted array; property filters as the list compiles
 * them (person filters and cohorts resolved in PostgreSQL first).
 */
import type { ChStatement, ChStore } from "../clickhouse/context";
import { ChParams } from "@/server/sql/bind";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import { clickHouseFilter, clickHouseMatchers, resolveFilters, type ResolvedFilters } from "../filters/clickhouse";
import { ANONYMOUS_ACTOR } from "../actor-events/query";
import { actorBucketsFrame, actorBucketsGroups } from "./build";
import { calendar, MAX_MASK_COLUMNS, WORD_BITS } from "./calendar";
import { bucketOfHours, bucketsFromMasks, type ActorBuckets, type ActorBucketsQuery } from "./query";

export async function clickHouseActorBuckets(ch: ChStore, projectId: number, query: ActorBucketsQuery): Promise<ActorBuckets[]> {
  const inputs = await resolveFilters(ch.sql, projectId, actorBucketsGroups(query), query.now);
  if (!query.counts && query.matchers.length > 0) {
    const buckets = await calendar(ch.sql, query);
    if (buckets.length === 0) return [];
    const words = Math.ceil(buckets.length / WORD_BITS);
    if (query.matchers.length * words <= MAX_MASK_COLUMNS) {
      const masks = clickHouseActorMasksStatement(ch.tables.events, projectId, query, inputs, buckets.map((bucket) => bucket.h), WORD_BITS);
      const result = await ch.client.query({ query: masks.text, query_params: masks.params, format: "JSONCompactEachRow" });
      const rows = await result.json<(string | number | null)[]>();
      const starts = buckets.map((bucket) => bucketOfHours(bucket.h));
      return rows.map((row) =>
        bucketsFromMasks(
          row[0] as string,
          query.matchers.map((_, i) => Array.from({ length: words }, (_, w) => Number(row[1 + i * words + w]))),
          WORD_BITS,
          starts,
          row.at(-1) === null ? null : Number(row.at(-1)),
        ),
      );
    }
  }
  const statement = clickHouseActorBucketsStatement(ch.tables.events, projectId, query, inputs);
  const result = await ch.client.query({ query: statement.text, query_params: statement.params, format: "JSONCompactEachRow" });
  const rows = await result.json<[string, [number, number, number[]][], number | null]>();
  return rows.map(([actor, bucketed, first]) => ({
    actor,
    buckets: bucketed.map(([b]) => bucketOfHours(b)),
    masks: bucketed.map(([, m]) => Number(m)),
    counts: query.counts ? bucketed.map(([, , counts]) => counts.map(Number)) : [],
    firstEver: first === null ? null : bucketOfHours(first),
  }));
}

/**
 * The masks statement (as PostgreSQL's, postgres.ts) for a calendar of wall
 * bucket starts `hours` (ascending, as the dialect's wallBucketHours reads them): events grouped by actor
 * alone, each matcher's buckets OR-ed into UInt32 words of `wordBits`. Rows [a, k0_0, …, fi].
 */
function clickHouseActorMasksStatement(
  table: string,
  projectId: number,
  query: ActorBucketsQuery,
  inputs: ResolvedFilters,
  hours: readonly number[],
  wordBits: number,
): ChStatement {
  const params = new ChParams();
  const filter = clickHouseFilter(params, inputs, query.now);
  const { from, tests, where, first: firstEver } = actorBucketsFrame(params, clickHouseMatchers(params, filter), filter, projectId, query);
  const zone = params.add(query.zone, "text");
  const calendar = `CAST(${params.add(hours.map(String), "text[]")}, 'Array(Int32)')`;
  // 0-based; -1 outside the calendar.
  const indexOf = (time: string) => `toInt32(indexOf(${calendar}, ${CLICKHOUSE.wallBucketHours(time, zone, query.interval)})) - 1`;
  const words = Math.max(1, Math.ceil(hours.length / wordBits));
  const masks = tests.flatMap((t, i) =>
    Array.from({ length: words }, (_, w) =>
      words === 1
        ? `, groupBitOr(if(x.t${i}, bitShiftLeft(toUInt32(1), x.i), toUInt32(0))) AS k${i}_${w}`
        : `, groupBitOr(if(x.t${i} AND intDiv(x.i, ${wordBits}) = ${w}, bitShiftLeft(toUInt32(1), x.i % ${wordBits}), toUInt32(0))) AS k${i}_${w}`,
    ),
  );
  const maskColumns = tests.flatMap((_, i) => Array.from({ length: words }, (_, w) => `, g.k${i}_${w}`)).join("");
  const anonymous = params.constant(ANONYMOUS_ACTOR);
  const actorOf = (alias: string) => CLICKHOUSE.actor(`${alias}.p`, `${alias}.d`, anonymous);

  let first = "";
  let firstIndex = "NULL";
  if (firstEver) {
    const { test: firstTest, base: baseTest, where: firstWhere } = firstEver;
    first = ` LEFT JOIN (
                SELECT ${actorOf("f")} AS fa, f.fn, f.ft${baseTest ? ", f.ft0" : ""} FROM (
                  SELECT e.person_id AS p, if(e.person_id IS NULL, e.distinct_id, '') AS d, countIf(${firstTest}) AS fn,
                         minIf(e.timestamp, ${firstTest}) AS ft${baseTest ? `, minIf(e.timestamp, ${baseTest}) AS ft0` : ""}
                    FROM ${table} AS e WHERE ${firstWhere.join(" AND ")} GROUP BY p, d) AS f
              ) AS f ON f.fa = r.a`;
    firstIndex = `if(f.fn > 0 AND f.ft >= ${from}${baseTest ? " AND f.ft = f.ft0" : ""}, ${indexOf("f.ft")}, NULL)`;
  }
  return {
    text: `SELECT r.*, ${firstIndex} AS fi FROM (
             SELECT ${actorOf("g")} AS a${maskColumns} FROM (
               SELECT x.p AS p, x.d AS d${masks.join("")} FROM (
                 SELECT e.person_id AS p, if(e.person_id IS NULL, e.distinct_id, '') AS d, ${indexOf("e.timestamp")} AS i${tests.map((t, i) => `, (${t}) AS t${i}`).join("")}
                   FROM ${table} AS e WHERE ${where.join(" AND ")}
               ) AS x GROUP BY x.p, x.d
             ) AS g
           ) AS r${first}`,
    params: params.values,
  };
}

/** The statement: rows [a, [[b, m, [c…]], …] sorted by b, fb | null]. */
function clickHouseActorBucketsStatement(table: string, projectId: number, query: ActorBucketsQuery, inputs: ResolvedFilters): ChStatement {
  const params = new ChParams();
  const filter = clickHouseFilter(params, inputs, query.now);
  const { from, tests, where, mask, first: firstEver } = actorBucketsFrame(params, clickHouseMatchers(params, filter), filter, projectId, query);
  const zone = params.add(query.zone, "text");
  const actor = CLICKHOUSE.actor("e.person_id", "e.distinct_id", params.constant(ANONYMOUS_ACTOR));
  const counts = query.counts ? `[${tests.map((t) => `toInt32(countIf(${t}))`).join(", ")}]` : "emptyArrayInt32()";

  let first = "";
  let firstBucket = "NULL";
  if (firstEver) {
    const { test: firstTest, base: baseTest, where: firstWhere } = firstEver;
    first = ` LEFT JOIN (
                SELECT ${actor} AS fa, countIf(${firstTest}) AS fn, minIf(e.timestamp, ${firstTest}) AS ft${baseTest ? `, minIf(e.timestamp, ${baseTest}) AS ft0` : ""}
                  FROM ${table} AS e WHERE ${firstWhere.join(" AND ")} GROUP BY fa
              ) AS f ON f.fa = r.a`;
    firstBucket = `if(f.fn > 0 AND f.ft >= ${from}${baseTest ? " AND f.ft = f.ft0" : ""}, ${CLICKHOUSE.wallBucketHours("f.ft", zone, query.interval)}, NULL)`;
  }
  return {
    text: `SELECT r.a, r.bm, ${firstBucket} AS fb FROM (
             SELECT g.a AS a, arraySort(x -> x.1, groupArray((g.b, g.m, g.cs))) AS bm FROM (
               SELECT ${actor} AS a, ${CLICKHOUSE.wallBucketHours("e.timestamp", zone, query.interval)} AS b, toInt32(groupBitOr(${mask})) AS m, ${counts} AS cs
                 FROM ${table} AS e WHERE ${where.join(" AND ")} GROUP BY a, b
             ) AS g GROUP BY g.a
           ) AS r${first}`,
    params: params.values,
  };
}
