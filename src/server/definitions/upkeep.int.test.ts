/**
 * The ingestion upkeep on a real database: a flush writes one statement per table whatever
 * the number of events, rows only for names it has not seen (last-seen and counters aside),
 * and counts volumes per day; a project deleted meanwhile is skipped, not an error.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { SqlExecutor } from "@/server/db/driver";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { definitionsUpkeep, DefinitionsUpkeep, type ObservedEvent } from "./upkeep";

let db: Database;
let projectId: number;
/** Statements the upkeep ran since the last reset: the table written and how many rows. */
let written: { table: string; rows: number }[] = [];

/** The real driver, with each INSERT's table and row count noted. */
function counting(sql: SqlExecutor): SqlExecutor {
  return {
    async query(text, params, options) {
      const table = /INSERT INTO (\w+)/.exec(text)?.[1];
      if (table) written.push({ table, rows: Array.isArray(params?.[0]) ? params[0].length : 1 });
      return sql.query(text, params, options);
    },
    exec: (script) => sql.exec(script),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  projectId = (await bootstrap(db.prisma, { email: "upkeep@example.com", password: "pw12345678" })).project_id;
});

afterAll(async () => {
  await closeDb();
});

const events = (count: number, now: Date): ObservedEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    projectId,
    event: i % 2 === 0 ? "$pageview" : "clicked",
    properties: { $browser: "Chrome", n: i, [`only_${i % 2}`]: true, $set: { email: `u${i}@x.test` } },
    timestamp: now,
  }));

describe(`definitions upkeep (${testDbKind})`, () => {
  it("writes a statement per table per flush, and definitions only for what is new", async () => {
    const upkeep = new DefinitionsUpkeep(counting(db.sql), 60_000);
    const now = new Date();
    upkeep.observeEvents(events(2_000, now));
    await upkeep.flush();
    const byTable = (table: string) => written.filter((w) => w.table === table);
    expect(byTable("event_definitions")).toEqual([{ table: "event_definitions", rows: 2 }]);
    // $browser, n, only_0, only_1 on events; email on persons.
    expect(byTable("property_definitions")).toEqual([{ table: "property_definitions", rows: 5 }]);
    expect(byTable("event_properties")).toEqual([{ table: "event_properties", rows: 6 }]);
    expect(written).toHaveLength(4);

    // The same names again: no new pairs, and still one statement per table.
    written = [];
    upkeep.observeEvents(events(2_000, now));
    await upkeep.flush();
    expect(byTable("event_properties")).toEqual([]);
    expect(byTable("event_definitions")).toEqual([{ table: "event_definitions", rows: 2 }]);
    expect(written.length).toBeLessThanOrEqual(4);

    const volumes = await db.prisma.definitionVolume.findMany({ where: { projectId }, orderBy: [{ kind: "asc" }, { name: "asc" }] });
    expect(volumes.map((v) => [v.kind, v.name, v.count])).toEqual([
      [0, "$pageview", 2_000],
      [0, "clicked", 2_000],
      [1, "$browser", 4_000],
      [1, "n", 4_000],
      [1, "only_0", 2_000],
      [1, "only_1", 2_000],
      [2, "email", 4_000],
    ]);
  });

  it("keeps the first typed guess, and types a key first seen with null later", async () => {
    const upkeep = new DefinitionsUpkeep(db.sql, 60_000);
    const now = new Date();
    upkeep.observeEvents([{ projectId, event: "typed", properties: { later: null, amount: 3 }, timestamp: now }]);
    await upkeep.flush();
    upkeep.observeEvents([{ projectId, event: "typed", properties: { later: "2026-11-24", amount: "three" }, timestamp: now }]);
    await upkeep.flush();
    const rows = await db.prisma.propertyDefinition.findMany({ where: { projectId, name: { in: ["later", "amount"] } }, orderBy: { name: "asc" } });
    expect(rows.map((row) => [row.name, row.propertyType])).toEqual([
      ["amount", "Numeric"],
      ["later", "DateTime"],
    ]);
  });

  it("skips events older than the volume window in the counters, and a project deleted meanwhile", async () => {
    const upkeep = new DefinitionsUpkeep(db.sql, 60_000);
    const old = new Date(Date.now() - 40 * 86_400_000);
    upkeep.observeEvents([
      { projectId, event: "ancient", properties: {}, timestamp: old },
      { projectId: 999_999, event: "orphan", properties: { x: 1 }, timestamp: new Date() },
      { projectId, event: "x".repeat(401), properties: {}, timestamp: new Date() },
    ]);
    await upkeep.flush();
    expect(await db.prisma.eventDefinition.findMany({ where: { name: { in: ["ancient", "orphan"] } }, select: { name: true } })).toEqual([{ name: "ancient" }]);
    expect(await db.prisma.definitionVolume.count({ where: { name: "ancient" } })).toBe(0);
    expect(await db.prisma.eventDefinition.count({ where: { name: { startsWith: "xxxx" } } })).toBe(0);
  });

  it("drains into the database when it closes, and leaves no flush to fail after", async () => {
    const own = await createTestDatabase();
    const errors = vi.spyOn(console, "error");
    try {
      const ownProject = (await bootstrap(own.prisma, { email: "closing@example.com", password: "pw12345678" })).project_id;
      const upkeep = definitionsUpkeep(own.sql);
      const now = new Date();
      upkeep.observeEvents([
        { projectId: ownProject, event: "closing", properties: { k: 1 }, timestamp: now },
        { projectId: ownProject, event: "closing", properties: { k: 2 }, timestamp: now },
      ]);
      // Registered after the upkeep's hook: reads what the drain wrote while the connection still answers.
      let drained: unknown[] = [];
      own.sql.beforeClose(async () => {
        drained = await own.sql.query(
          "SELECT kind, name, count FROM definition_volumes WHERE project_id = $1 ORDER BY kind, name",
          [ownProject],
        );
      });
      await own.close();
      expect(drained).toEqual([
        { kind: 0, name: "closing", count: 2 },
        { kind: 1, name: "k", count: 2 },
      ]);

      // Observations after the close schedule nothing; the old timer would have fired within a second.
      upkeep.observeEvents([{ projectId: ownProject, event: "late", properties: {}, timestamp: now }]);
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      expect(errors.mock.calls.filter(([message]) => String(message).startsWith("definitions:"))).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });
});
