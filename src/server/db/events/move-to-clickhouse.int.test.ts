/**
 * Moving events from PostgreSQL (PGlite, or a server with BURROW_TEST_DB=postgres) to
 * ClickHouse (chdb in a temporary directory): everything arrives once, as stored; a move
 * interrupted after some batches goes on from its checkpoint; a second run moves nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { openClickHouseEventStore } from "@/server/db/events/clickhouse/open";
import { insertEvents, type EventRow, type EventStore, type StoredEventInput } from "@/server/db/events";
import { fileCheckpoint, moveEventsToClickHouse, type MoveState } from "./move-to-clickhouse";
import { parseListQuery } from "@/server/http/rest/resources/events-query";

describe(`move-events-to-clickhouse (${testDbKind} → chdb)`, () => {
  let db: Database;
  let clickhouse: EventStore;
  let dir: string;
  let projects: number[];
  const source: StoredEventInput[] = [];

  beforeAll(async () => {
    db = await createTestDatabase({ events: "postgres" });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-move-"));
    clickhouse = await openClickHouseEventStore({ kind: "chdb", path: path.join(dir, "clickhouse"), database: "burrow" }, db.sql);
    const organization = await db.prisma.organization.create({ data: { name: "move" } });
    projects = [];
    for (const name of ["one", "two", "empty", "three"]) {
      projects.push((await db.prisma.project.create({ data: { organizationId: organization.id, name, apiToken: `phc_move_${name}` } })).id);
    }
    const start = Date.parse("2025-01-01T00:00:00.000Z");
    const counts = [137, 61, 0, 45];
    for (const [p, projectId] of projects.entries()) {
      for (let i = 0; i < counts[p]!; i++) {
        source.push({
          uuid: uuidv7(),
          projectId,
          event: i % 3 === 0 ? "$pageview" : "signed up",
          distinctId: `user-${i % 7}`,
          // Runs of equal timestamps: the checkpoint must order ties by uuid.
          timestamp: new Date(start + Math.floor(i / 4) * 60_000 + 0.5),
          properties: { index: i, nested: { ok: true, list: [1, "two"] }, text: "grüße ✓ 'quoted'" },
          personId: i % 2 === 0 ? uuidv7() : null,
          elementsChain: i % 5 === 0 ? "a:nth-child=\"1\"" : "",
          historicalMigration: i % 11 === 0,
        });
      }
    }
    // Written out of order, so the move's order comes from the keyset, not insertion.
    await insertEvents(db.sql, [...source].reverse());
  });

  afterAll(async () => {
    await clickhouse?.close();
    await db?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function inClickHouse(projectId: number): Promise<EventRow[]> {
    const now = new Date();
    return clickhouse.list(projectId, parseListQuery(new URL("http://burrow.test/?limit=1000"), null, now), { limit: 1000, offset: 0, cursor: null, now });
  }

  it("refuses to move to PostgreSQL itself", async () => {
    await expect(moveEventsToClickHouse(db.sql, db.events, { checkpoint: fileCheckpoint(path.join(dir, "unused.json"), "x") })).rejects.toThrow(/CLICKHOUSE_URL is not set/);
  });

  it("moves one project, interrupted after three batches and resumed, every event once and as stored", async () => {
    const file = path.join(dir, "one.json");
    const [projectOne] = projects;
    const checkpoint = fileCheckpoint(file, `chdb project ${projectOne}`);
    const expected = source.filter((e) => e.projectId === projectOne);
    let batches = 0;
    const progress: number[] = [];
    await expect(
      moveEventsToClickHouse(db.sql, clickhouse, {
        projectId: projectOne,
        batchSize: 20,
        checkpoint,
        onProgress: ({ moved, total }) => {
          expect(total).toBe(expected.length);
          progress.push(moved);
        },
        afterBatch: () => {
          if (++batches === 3) throw new Error("interrupted");
        },
      }),
    ).rejects.toThrow("interrupted");
    expect(progress).toEqual([0, 20, 40, 60]);
    const saved = (await checkpoint.load()) as MoveState;
    const sorted = [...expected].sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || (a.uuid < b.uuid ? -1 : 1));
    expect(saved).toEqual({
      moved: 60,
      inserted: 60,
      pending: null,
      position: { projectId: projectOne, timestamp: sorted[59]!.timestamp.toISOString(), uuid: sorted[59]!.uuid },
    });
    expect((await inClickHouse(projectOne!)).map((e) => e.uuid).sort()).toEqual(sorted.slice(0, 60).map((e) => e.uuid).sort());

    const resumed = await moveEventsToClickHouse(db.sql, clickhouse, { projectId: projectOne, batchSize: 20, checkpoint });
    expect(resumed).toMatchObject({ resumed: true, total: expected.length, moved: expected.length, movedNow: expected.length - 60, inserted: expected.length });

    const stored = await inClickHouse(projectOne!);
    expect(stored).toHaveLength(expected.length);
    const byUuid = new Map(stored.map((e) => [e.uuid, e]));
    for (const event of expected) {
      expect(byUuid.get(event.uuid), event.uuid).toEqual({
        uuid: event.uuid,
        event: event.event,
        distinct_id: event.distinctId,
        properties: event.properties,
        timestamp: event.timestamp,
        person_id: event.personId,
        elements_chain: event.elementsChain,
      });
    }
    // Only project one was moved.
    expect(await inClickHouse(projects[1]!)).toEqual([]);

    // Run again: nothing left, nothing stored twice.
    const again = await moveEventsToClickHouse(db.sql, clickhouse, { projectId: projectOne, batchSize: 20, checkpoint });
    expect(again).toMatchObject({ resumed: true, movedNow: 0, moved: expected.length });
    expect(await inClickHouse(projectOne!)).toHaveLength(expected.length);
  });

  it("moves all projects from a fresh checkpoint; what ClickHouse already has is skipped, not doubled", async () => {
    const checkpoint = fileCheckpoint(path.join(dir, "all.json"), "chdb all");
    let batches = 0;
    await expect(
      moveEventsToClickHouse(db.sql, clickhouse, {
        batchSize: 50,
        checkpoint,
        afterBatch: () => {
          // Stops in the second project, after the first one is done.
          if (++batches === 4) throw new Error("interrupted");
        },
      }),
    ).rejects.toThrow("interrupted");
    expect((await checkpoint.load())?.position?.projectId).toBe(projects[1]);

    const result = await moveEventsToClickHouse(db.sql, clickhouse, { batchSize: 50, checkpoint });
    expect(result).toMatchObject({ resumed: true, total: source.length, moved: source.length });
    // Project one was in ClickHouse already (the test before): read and skipped by the dedup.
    const projectOneCount = source.filter((e) => e.projectId === projects[0]).length;
    expect(result.inserted).toBe(source.length - projectOneCount);
    for (const projectId of projects) {
      const expected = source.filter((e) => e.projectId === projectId).map((e) => e.uuid).sort();
      expect((await inClickHouse(projectId)).map((e) => e.uuid).sort(), `project ${projectId}`).toEqual(expected);
    }
  });

  it("stopped after ClickHouse took a batch but before its position was saved: resumed, the counts stay exact", async () => {
    const organization = await db.prisma.organization.create({ data: { name: "move-kill" } });
    const projectId = (await db.prisma.project.create({ data: { organizationId: organization.id, name: "kill", apiToken: "phc_move_kill" } })).id;
    const start = Date.parse("2025-02-01T00:00:00.000Z");
    const events: StoredEventInput[] = Array.from({ length: 95 }, (_, i) => ({
      uuid: uuidv7(),
      projectId,
      event: "killed",
      distinctId: `user-${i % 3}`,
      timestamp: new Date(start + i * 1_000),
      properties: { index: i },
    }));
    await insertEvents(db.sql, events);
    const checkpoint = fileCheckpoint(path.join(dir, "kill.json"), `chdb project ${projectId}`);
    let inserts = 0;
    await expect(
      moveEventsToClickHouse(db.sql, clickhouse, {
        projectId,
        batchSize: 20,
        checkpoint,
        afterInsert: () => {
          if (++inserts === 2) throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    // ClickHouse has 40; the checkpoint says 20 done and the next 20 (all new) about to be written.
    expect(await inClickHouse(projectId)).toHaveLength(40);
    const saved = (await checkpoint.load())!;
    expect(saved).toMatchObject({ moved: 20, inserted: 20, pending: { fresh: 20, through: { projectId, uuid: events[39]!.uuid } } });

    // Resumed with another batch size: the pending range first, counted as recorded, then the rest.
    const resumed = await moveEventsToClickHouse(db.sql, clickhouse, { projectId, batchSize: 50, checkpoint });
    expect(resumed).toMatchObject({ resumed: true, total: 95, moved: 95, movedNow: 75, inserted: 95, pending: null });
    expect((await inClickHouse(projectId)).map((e) => e.uuid).sort()).toEqual(events.map((e) => e.uuid).sort());
  });

  it("refuses an unknown project, a bad batch size and a checkpoint file it did not write", async () => {
    const checkpoint = fileCheckpoint(path.join(dir, "other.json"), "k");
    await expect(moveEventsToClickHouse(db.sql, clickhouse, { projectId: 999_999, checkpoint })).rejects.toThrow("There is no project 999999.");
    await expect(moveEventsToClickHouse(db.sql, clickhouse, { batchSize: 0, checkpoint })).rejects.toThrow(/batch size/);
    const foreign = path.join(dir, "foreign.json");
    fs.writeFileSync(foreign, JSON.stringify({ k: { position: "nonsense" } }));
    await expect(moveEventsToClickHouse(db.sql, clickhouse, { checkpoint: fileCheckpoint(foreign, "k") })).rejects.toThrow(/not one this command wrote/);
  });
});
