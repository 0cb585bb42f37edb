/**
 * Batch exports' read on whichever event store the run uses (PGlite, PostgreSQL, or
 * ClickHouse with BURROW_TEST_EVENTS=clickhouse): pages by ingestion time in (ingestion
 * time, uuid) order cover every event of the range once, whatever the page size, and only
 * the project's; a range of other times holds none, whatever the events' timestamps.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import type { ExportCursor, ExportedEvent } from "./query";

let db: Database;
let projectId: number;
let otherId: number;
const uuids: string[] = [];
let before: Date;
let after: Date;

beforeAll(async () => {
  db = await createTestDatabase();
  projectId = (await db.prisma.project.create({ data: { organization: { create: { name: "A" } }, name: "A", apiToken: "phc_export_a" } })).id;
  otherId = (await db.prisma.project.create({ data: { organization: { create: { name: "B" } }, name: "B", apiToken: "phc_export_b" } })).id;
  before = new Date(Date.now() - 1_000);
  // Timestamps years back: the read goes by when the events were stored.
  for (let batch = 0; batch < 3; batch++) {
    const events = Array.from({ length: 7 }, (_, i) => ({
      uuid: uuidv7(),
      projectId,
      event: `e${i % 2}`,
      distinctId: `d${i}`,
      properties: { i, nested: { batch } },
      timestamp: new Date(Date.UTC(2020, 0, 1, batch, i)),
    }));
    uuids.push(...events.map((e) => e.uuid));
    await db.events.insert(events);
    await db.events.insert([{ uuid: uuidv7(), projectId: otherId, event: "other", distinctId: "x", properties: {}, timestamp: new Date() }]);
  }
  after = new Date(Date.now() + 1_000);
});

afterAll(async () => {
  await db?.close();
});

async function readAll(limit: number): Promise<ExportedEvent[]> {
  const out: ExportedEvent[] = [];
  let cursor: ExportCursor | null = null;
  for (;;) {
    const page = await db.events.exportPage(projectId, { from: before, to: after, after: cursor, limit }, db.worker);
    out.push(...page);
    if (page.length < limit) return out;
    cursor = { at: page.at(-1)!.inserted_at, uuid: page.at(-1)!.uuid };
  }
}

describe(`export pages (${testStoresName})`, () => {
  it("cover every event stored in the range once, in ingestion order, whatever the page size", async () => {
    for (const limit of [1, 4, 21, 1000]) {
      const rows = await readAll(limit);
      expect(rows.map((r) => r.uuid).sort(), `limit ${limit}`).toEqual([...uuids].sort());
      // Ingestion time never goes back (ties go by uuid in the store's own order: ClickHouse's is not the text's).
      const times = rows.map((r) => Date.parse(r.inserted_at));
      expect(times, `limit ${limit}`).toEqual([...times].sort((a, b) => a - b));
    }
    const [first] = await readAll(1000);
    expect(first!.timestamp.startsWith("2020-01-01T")).toBe(true);
    expect(first!.properties).toMatchObject({ nested: { batch: expect.any(Number) } });
    expect(Date.parse(first!.inserted_at)).toBeGreaterThanOrEqual(before.getTime());
  });

  it("holds nothing for a range of other ingestion times, even where the timestamps fall", async () => {
    expect(await db.events.exportPage(projectId, { from: new Date(Date.UTC(2020, 0, 1)), to: new Date(Date.UTC(2020, 0, 2)), after: null, limit: 100 }, db.worker)).toEqual([]);
  });
});
