/**
 * The settings our connections run with (client.ts SESSION_SETTINGS): PostgreSQL's analytics
 * reads without JIT, with room to hash in memory and cheaper parallel workers; the embedded
 * database keeps its defaults (no JIT compiler, and its memory is the process's own).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "./client";
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
  } else {
    it("PGlite keeps its own work_mem", async () => {
      expect(await setting("work_mem")).toBe("4MB");
    });
  }
});
