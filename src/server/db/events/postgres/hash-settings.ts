/**
 * Planner settings for one aggregation, in the statement's own transaction.
 *
 * Our connections run with work_mem 64MB (client.ts). For a big aggregation that costs twice:
 * - A million groups' hash (a million actors, session ids or breakdown values: about 170 MB)
 *   stays in memory, and every input row misses the CPU caches. With a small work_mem
 *   PostgreSQL spills the rows into batches whose hashes fit in cache and aggregates one
 *   after another, which is faster.
 * - PostgreSQL sizes a hash for the groups it expects, up to work_mem: the four days of a
 *   trend, expected as a million groups (it has no statistics for an expression), took a
 *   49 MB hash, and building and freeing it added a third to the statement.
 * And with the groups' number unknown, the planner may sort them on disk where hashing them
 * is cheap: sorting is off (still used where nothing else can do).
 *
 * Measured on 1M events (the settings taking turns): experiment tallies (bench/experiments.ts)
 * funnel 1.89 → 1.42 s, mean 2.16 → 1.52 s; trends in trend/postgres.ts and docs/benchmarks.md
 * (bench:breakdown-stall).
 */
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";

/**
 * `many`: the groups may be a million (actors, session ids, breakdown values). `few`: a
 * handful (a trend's buckets) that the planner may still expect by the million, so only its
 * hash's size is capped; sorting stays on, as a selective read's plan may need it.
 */
export type ExpectedGroups = "many" | "few";

const SETTINGS: Record<ExpectedGroups, string> = {
  many: "SET LOCAL work_mem = '1MB'; SET LOCAL enable_sort = off",
  few: "SET LOCAL work_mem = '4MB'",
};

/** Runs `statement` with the settings for its groups, the connection's own back after it. */
export function queryWithSmallHashes<Row>(sql: SqlExecutor & Pick<SqlDriver, "transaction">, statement: { text: string; values: unknown[] }, groups: ExpectedGroups): Promise<Row[]> {
  return sql.transaction(async (tx) => {
    await tx.exec(SETTINGS[groups]);
    return tx.query<Row>(statement.text, statement.values);
  });
}
