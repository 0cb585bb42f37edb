/**
 * `admin move-events-to-clickhouse` as a user runs it: events of a bootstrapped installation
 * (PGlite in DATA_DIR, or PostgreSQL with BURROW_TEST_DB=postgres) moved to chdb in a
 * temporary directory; the run is killed (SIGKILL) right after an insert, before its
 * checkpoint, and started again; progress
 * lines on stderr, one JSON object on stdout.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";
import type { DbConfig } from "@/server/db/config";
import { createEmptyPostgresDatabase, testDbKind } from "@/test-support/db";
import { openClickHouseEventStore } from "@/server/db/events/clickhouse/open";
import { insertEvents, type StoredEventInput } from "@/server/db/events";
import type { MoveState } from "@/server/db/events/move-to-clickhouse";
import { parseListQuery } from "@/server/http/rest/resources/events-query";
import { admin } from "./run-admin";

const EVENTS = 3_000;

describe(`admin move-events-to-clickhouse (${testDbKind} → chdb)`, () => {
  let dir: string;
  let env: Record<string, string>;
  let dbConfig: DbConfig;
  let dropDatabase: () => Promise<void> = async () => {};
  let projectId: number;
  let clickhouseDir: string;
  let checkpointFile: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-move-cli-"));
    clickhouseDir = path.join(dir, "clickhouse");
    checkpointFile = path.join(dir, "data", "move-events-to-clickhouse.json");
    if (testDbKind === "pglite") {
      env = { DATA_DIR: path.join(dir, "data") };
      dbConfig = { kind: "pglite", dataDir: env.DATA_DIR! };
    } else {
      const database = await createEmptyPostgresDatabase();
      env = { DATA_DIR: path.join(dir, "data"), DATABASE_URL: database.url };
      dbConfig = { kind: "postgres", url: database.url };
      dropDatabase = database.drop;
    }
    const boot = await admin(env, "bootstrap", "--email", "move@example.com", "--password", "move-password-123", "--json");
    expect(boot.code, boot.stderr).toBe(0);
    projectId = (JSON.parse(boot.stdout) as { project_id: number }).project_id;
    const db = await openDatabase(dbConfig);
    try {
      const start = Date.parse("2024-06-01T00:00:00.000Z");
      const events: StoredEventInput[] = Array.from({ length: EVENTS }, (_, i) => ({
        uuid: uuidv7(),
        projectId,
        event: "imported",
        distinctId: `user-${i % 50}`,
        timestamp: new Date(start + i * 1_000),
        properties: { index: i },
      }));
      await insertEvents(db.sql, events);
    } finally {
      await db.close();
    }
  }, 120_000);

  afterAll(async () => {
    await dropDatabase();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("without CLICKHOUSE_URL says there is nowhere to move to", async () => {
    const result = await admin(env, "move-events-to-clickhouse", "--json");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^admin: CLICKHOUSE_URL is not set/);
  }, 60_000);

  it("refuses a bad option before touching anything", async () => {
    const result = await admin(env, "move-events-to-clickhouse", "--batch-size", "lots");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--batch-size must be a positive integer");
  }, 60_000);

  it("killed part way, then run again: every event in ClickHouse once; a third run moves nothing", async () => {
    const moveEnv = { ...env, CLICKHOUSE_URL: `chdb:${clickhouseDir}` };

    // Killed (SIGKILL) at the worst moment: ClickHouse took the third batch of 10, the
    // checkpoint still names the second as the last one done.
    const killed = await admin({ ...moveEnv, BURROW_TEST_KILL_MOVE_AFTER_INSERTS: "3" }, "move-events-to-clickhouse", "--batch-size", "10", "--json");
    expect(killed.code, killed.stderr).not.toBe(0);
    expect(killed.stdout).toBe("");
    const saved = JSON.parse(fs.readFileSync(checkpointFile, "utf8")) as Record<string, MoveState>;
    const [interrupted] = Object.values(saved);
    expect(interrupted).toMatchObject({ moved: 20, inserted: 20, pending: { fresh: 10 } });

    const resumed = await admin(moveEnv, "move-events-to-clickhouse", "--batch-size", "500", "--json");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({
      moved: EVENTS - 20,
      moved_total: EVENTS,
      // The batch ClickHouse took just before the kill is read again, skipped, and counted once.
      inserted_total: EVENTS,
      total: EVENTS,
      resumed: true,
      checkpoint: checkpointFile,
    });
    // Progress on stderr, not a terminal: lines, the last one at 100%.
    const lines = resumed.stderr.trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatch(/^moving events: [\d,]+\/3,000 events \(\d+%\), [\d,]+ events\/s$/);
    expect(lines.at(-1)).toMatch(/^moving events: 3,000\/3,000 events \(100%\)/);

    const again = await admin(moveEnv, "move-events-to-clickhouse");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^resumed; moved 0 events of all projects now, 3000 of 3000 in all/);

    // What ClickHouse holds, read with the store: each event once.
    const db = await openDatabase(dbConfig, { kind: "chdb", path: clickhouseDir, database: "burrow" });
    try {
      const now = new Date();
      const seen = new Set<string>();
      let cursor = null;
      for (;;) {
        const page = await db.events.list(projectId, parseListQuery(new URL("http://burrow.test/"), null, now), { limit: 1000, offset: 0, cursor, now });
        for (const event of page) seen.add(event.uuid);
        if (page.length < 1000) break;
        cursor = { timestamp: page.at(-1)!.timestamp, uuid: page.at(-1)!.uuid };
      }
      expect(seen.size).toBe(EVENTS);
    } finally {
      await db.close();
    }
  }, 180_000);
});
