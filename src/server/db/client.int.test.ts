/**
 * The settings our connections run with (client.ts SESSION_SETTINGS): PostgreSQL's analytics
 * reads without JIT, with room to hash in memory and cheaper parallel workers; the embedded
 * database keeps its defaults (no JIT compiler, and its memory is the process's own).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "./client";
import { recordHolds } from "./holds";
import { createTestDatabase, testDbKind } from "@/test-support/db";

let db: Database;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

const setting = async (name: string) => (await db.sql.query<Record<string, string>>(`SHOW ${name}`))[0]![name];

describe(`connection settings (${testDbKind})`, () => {
  if (testDbKind === "postgres") {
    it("PostgreSQL: JIT off, work_mem 64MB, parallel workers at a fifth of their default price, on every pooled connection", async () => {
      // Several at once, so that more than one pooled connection answers.
      const read = () =>
        db.sql.query<{ jit: string; work_mem: string; setup: string; tuple: string }>(
          `SELECT current_setting('jit') AS jit, current_setting('work_mem') AS work_mem, current_setting('parallel_setup_cost') AS setup,
                  current_setting('parallel_tuple_cost') AS tuple, pg_sleep(0.05)`,
        );
      const answers = await Promise.all(Array.from({ length: 4 }, read));
      for (const [row] of answers) expect(row).toMatchObject({ jit: "off", work_mem: "64MB", setup: "200", tuple: "0.02" });
    });
    it("PostgreSQL: the server's warm-up opens every pooled connection requests may use", async () => {
      const requestsBackends = async () =>
        (await db.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name <> 'burrow-worker' AND backend_type = 'client backend'`,
        ))[0]!.n;
      await db.sql.openConnections();
      // The pool's ten (DATABASE_POOL_SIZE), and perhaps the change feed's and analytical reads' own.
      expect(await requestsBackends()).toBeGreaterThanOrEqual(Number(process.env.DATABASE_POOL_SIZE) || 10);
    });
  } else {
    it("PGlite keeps its own work_mem", async () => {
      expect(await setting("work_mem")).toBe("4MB");
    });
  }
});

describe(`the workers' SQL handle (${testDbKind})`, () => {
  it("times each checkout (a statement, a transaction) under its caller, while a recorder listens", async () => {
    const recorder = recordHolds();
    try {
      await db.worker.as("test-sleep").query(`SELECT pg_sleep(0.03)`);
      await db.worker.as("test-tx").transaction(async (tx) => {
        await tx.query(`SELECT pg_sleep(0.02)`);
        await tx.query(`SELECT pg_sleep(0.02)`);
      });
      await db.sql.query(`SELECT pg_sleep(0.01)`);
    } finally {
      recorder.stop();
    }
    expect(recorder.of("test-sleep")).toHaveLength(1);
    expect(recorder.max("test-sleep")).toBeGreaterThanOrEqual(29);
    // One hold from BEGIN to COMMIT.
    expect(recorder.of("test-tx")).toHaveLength(1);
    expect(recorder.max("test-tx")).toBeGreaterThanOrEqual(39);
    // Requests' own statements are not timed.
    expect(recorder.holds.every((hold) => hold.caller.startsWith("test-"))).toBe(true);
    await db.worker.as("test-after").query("SELECT 1");
    expect(recorder.of("test-after")).toHaveLength(0);
  });

  if (testDbKind === "postgres") {
    it("PostgreSQL: workers run on connections of their own", async () => {
      const name = async (sql: { query: Database["sql"]["query"] }) =>
        (await sql.query<{ name: string }>(`SELECT current_setting('application_name') AS name`))[0]!.name;
      expect(await name(db.worker)).toBe("burrow-worker");
      expect(await name(db.sql)).not.toBe("burrow-worker");
    });
  } else {
    it("embedded: workers share the one connection", async () => {
      expect(db.worker.embedded).toBe(true);
      const pid = async (sql: { query: Database["sql"]["query"] }) => (await sql.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`))[0]!.pid;
      expect(await pid(db.worker)).toBe(await pid(db.sql));
    });
  }
});
