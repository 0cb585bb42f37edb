/**
 * Planner statistics (statistics.ts): gathered by the migrations, after a burst of writes
 * this process counts, and for the other tables from the server's own counts; without them
 * PGlite, which has no autovacuum, plans every table as nearly empty.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "./client";
import { migrate } from "./migrate";
import { Statistics } from "./statistics";
import { createTestDatabase, testDbKind } from "@/test-support/db";

let db: Database;
let projectId: number;

const rowsPlanned = async (table: string) =>
  Number((await db.sql.query<{ n: string }>(`SELECT reltuples AS n FROM pg_class WHERE oid = to_regclass($1)`, [table]))[0]!.n);

async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return check();
}

beforeAll(async () => {
  db = await createTestDatabase();
  projectId = (await bootstrap(db.prisma, { email: "stats@example.com", password: "pw12345678" })).project_id;
});

afterAll(async () => {
  await db?.close();
});

describe(`planner statistics (${testDbKind})`, () => {
  it("the migrations analyze every table they leave (none planned blind)", async () => {
    const fresh = await createTestDatabase({ migrated: false });
    try {
      await migrate(fresh.sql);
      const blind = await fresh.sql.query<{ relname: string }>(
        `SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND last_analyze IS NULL ORDER BY relname`,
      );
      expect(blind.map((row) => row.relname)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("a burst of events past a tenth of the table is analyzed within seconds, by the rows this process wrote", async () => {
    const now = Date.now();
    await db.events.insert(
      Array.from({ length: 3_000 }, (_, i) => ({ uuid: randomUUID(), projectId, event: "$pageview", distinctId: `d${i}`, properties: {}, timestamp: new Date(now - i * 1000) })),
    );
    // By this process's schedule (on PostgreSQL autovacuum may get there too).
    expect(await eventually(async () => db.statistics.analyzed > 0 && (await rowsPlanned("events")) >= 3_000)).toBe(true);
    // Whatever that pass had left to do (autovacuum may have planned the events before it finished).
    await db.statistics.check();
    const analyzed = db.statistics.analyzed;
    // A few more rows: far below a tenth of the table, so no new ANALYZE.
    await db.events.insert([{ uuid: randomUUID(), projectId, event: "$pageview", distinctId: "late", properties: {}, timestamp: new Date(now) }]);
    await db.statistics.check();
    expect(db.statistics.analyzed).toBe(analyzed);
  });

  it("the schedule spaces a table's ANALYZEs by what the last one took; check() runs what is due at once", async () => {
    // Two schedules over the same counts, one spacing by a million times the last ANALYZE's duration, one not at all.
    const options = { intervalMs: 0, delayMs: 20, minRows: 10 };
    const spaced = new Statistics(db.sql.worker.as("statistics"), { ...options, spacing: 1_000_000 });
    const unspaced = new Statistics(db.sql.worker.as("statistics"), { ...options, spacing: 0 });
    try {
      for (const schedule of [spaced, unspaced]) schedule.wrote("events", 1_000_000);
      expect(await eventually(async () => spaced.analyzed === 1 && unspaced.analyzed === 1)).toBe(true);
      // Due again at once (a million more rows written), as a table growing fast from small is.
      for (const schedule of [spaced, unspaced]) schedule.wrote("events", 1_000_000);
      expect(await eventually(async () => unspaced.analyzed === 2)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(spaced.analyzed).toBe(1);
      await spaced.check();
      expect(spaced.analyzed).toBe(2);
    } finally {
      await spaced.close();
      await unspaced.close();
    }
  });

  it("other tables are analyzed from the server's counts of changed rows", async () => {
    await db.sql.query(`INSERT INTO persons (project_id, properties, updated_at) SELECT $1::int, '{}'::jsonb, now() FROM generate_series(1, 2500)`, [projectId]);
    expect(await eventually(async () => {
      await db.statistics.check();
      return (await rowsPlanned("persons")) >= 2_500;
    })).toBe(true);
  });

  it("a queue's own analyze threshold keeps it out of the schedule however much it changes", async () => {
    const analyzedAt = async () =>
      (await db.sql.query<{ at: Date | null }>(`SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'hog_function_outbox_batches'`))[0]?.at?.getTime() ?? null;
    const before = await analyzedAt();
    await db.sql.query(`INSERT INTO hog_function_outbox_batches (routes) SELECT '[]'::jsonb FROM generate_series(1, 5000)`);
    // The server's counts reach the statistics views within a moment: persons, changed in the same breath, shows when.
    await db.sql.query(`INSERT INTO persons (project_id, properties, updated_at) SELECT $1::int, '{}'::jsonb, now() FROM generate_series(1, 5000)`, [projectId]);
    const personsBefore = await rowsPlanned("persons");
    expect(await eventually(async () => {
      await db.statistics.check();
      return (await rowsPlanned("persons")) > personsBefore;
    })).toBe(true);
    expect(await analyzedAt()).toBe(before);
    await db.sql.exec(`DELETE FROM hog_function_outbox_batches`);
  });
});
