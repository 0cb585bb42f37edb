import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind, testStoresName } from "@/test-support/db";
import { queryWithSmallHashes } from "./hash-settings";

let db: Database;

beforeAll(async () => {
  db = await createTestDatabase({ events: "postgres" });
});

afterAll(async () => {
  await db.close();
});

const SETTINGS = { text: "SELECT current_setting('work_mem') AS memory, current_setting('enable_sort') AS sort", values: [] };

describe(`planner settings for one statement (${testStoresName})`, () => {
  it("runs a statement with many groups' settings or few groups' settings", async () => {
    expect(await queryWithSmallHashes(db.sql, SETTINGS, "many")).toEqual([{ memory: "1MB", sort: "off" }]);
    expect(await queryWithSmallHashes(db.sql, SETTINGS, "few")).toEqual([{ memory: "4MB", sort: "on" }]);
  });

  // The embedded database has one connection, so a setting that outlived its statement would show here.
  it.runIf(testDbKind === "pglite")("leaves the connection's own settings as they were, also after a failed statement", async () => {
    const before = await db.sql.query(SETTINGS.text);
    await queryWithSmallHashes(db.sql, SETTINGS, "many");
    await expect(queryWithSmallHashes(db.sql, { text: "SELECT 1 / 0", values: [] }, "many")).rejects.toThrow(/division by zero/);
    expect(await db.sql.query(SETTINGS.text)).toEqual(before);
  });
});
