/**
 * EventWriter (group commit) on a real database: concurrent writes are committed before
 * their promises resolve, and one request's bad rows do not fail the others.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import type { StoredEventInput } from "@/server/db/events";
import { EventWriter } from "./writer";

let db: Database;
let projectId: number;

const event = (distinctId: string, overrides: Partial<StoredEventInput> = {}): StoredEventInput => ({
  uuid: uuidv7(),
  projectId,
  event: "w",
  distinctId,
  properties: { n: 1 },
  timestamp: new Date(),
  ...overrides,
});

async function count(uuids: string[]): Promise<number> {
  const [row] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE uuid = ANY($1::uuid[])`, [uuids]);
  return row!.n;
}

beforeAll(async () => {
  db = await createTestDatabase();
  projectId = (await bootstrap(db.prisma, { email: "writer@example.com", password: "pw12345678" })).project_id;
});

afterAll(async () => {
  await db.close();
});

describe(`EventWriter: group commit (${testDbKind})`, () => {
  it("resolves each write only once its rows are committed", async () => {
    const writer = new EventWriter(db.events);
    const batches = Array.from({ length: 40 }, (_, i) => Array.from({ length: 5 }, () => event(`w${i}`)));
    const seen = await Promise.all(batches.map(async (rows) => {
      await writer.write(rows);
      return count(rows.map((r) => r.uuid));
    }));
    expect(seen).toEqual(Array(40).fill(5));
  });

  it("pipelines inserts up to the store's limit: writes of the next turn start another insert while one commits", async () => {
    // The real store, watched: how many rows each insert carried and how many ran at once.
    const inserts: number[] = [];
    let running = 0;
    let mostAtOnce = 0;
    let started = () => {};
    const insertStarted = () => new Promise<void>((resolve) => (started = resolve));
    const watched = Object.create(db.events) as typeof db.events;
    // The first insert of each round is held open until the test let the others queue.
    let gate: Promise<void> | null = null;
    let open = () => {};
    const hold = () => (gate = new Promise<void>((resolve) => (open = resolve)));
    watched.insert = async (rows) => {
      inserts.push(rows.length);
      started();
      mostAtOnce = Math.max(mostAtOnce, ++running);
      try {
        const held = gate;
        gate = null;
        if (held) await held;
        return await db.events.insert(rows);
      } finally {
        running--;
      }
    };

    // A limit of one (the embedded database): what arrives while an insert runs waits, and goes as one.
    const single = new EventWriter(watched, 1);
    hold();
    let firstInsert = insertStarted();
    const first = single.write([event("hold-0")]);
    await firstInsert;
    const small = Array.from({ length: 30 }, (_, i) => single.write([event(`hold-${i + 1}`)]));
    await new Promise((resolve) => setImmediate(resolve));
    open();
    await Promise.all([first, ...small]);
    expect(inserts).toEqual([1, 30]);
    expect(mostAtOnce).toBe(1);

    // A limit of four: the next turn's writes go in a second insert at once, however few.
    inserts.length = 0;
    mostAtOnce = 0;
    const pooled = new EventWriter(watched, 4);
    hold();
    firstInsert = insertStarted();
    const head = pooled.write([event("pipe-head")]);
    await firstInsert;
    const secondInsert = insertStarted();
    const next = Array.from({ length: 3 }, (_, i) => pooled.write([event(`pipe-${i}`)]));
    await secondInsert;
    open();
    await Promise.all([head, ...next]);
    expect(inserts).toEqual([1, 3]);
    expect(mostAtOnce).toBe(2);
  });

  it("says it is saturated while an insert runs nearly all the time, and not while writes come with pauses between them", async () => {
    const writer = new EventWriter(db.events, 1);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Each write followed by a pause four times as long as it took (at least 15 ms): the writer
    // idles most of the time however slow a loaded machine makes one insert.
    let until = performance.now() + 600;
    for (let i = 0; performance.now() < until; i++) {
      const start = performance.now();
      await writer.write([event(`calm-${i}`)]);
      await sleep(Math.max(15, 4 * (performance.now() - start)));
    }
    expect(writer.saturated).toBe(false);
    // Eight clients, each writing again as soon as its last write is in (as bench:hot's connections do),
    // twenty events a time, made beforehand: between two inserts only the writes' turn of the event
    // loop passes, even in a test worker whose thread also runs what earlier files left behind.
    const writes = Array.from({ length: 8 }, (_, c) => Array.from({ length: 300 }, (_, i) => Array.from({ length: 20 }, (_, k) => event(`busy-${c}-${i}-${k}`))));
    // Sampled after each write, as capture reads it per request: saturated at some point of the phase.
    until = performance.now() + 600;
    let sawSaturated = false;
    const client = async (c: number) => {
      for (let i = 0; i < writes[c]!.length && performance.now() < until; i++) {
        await writer.write(writes[c]![i]!);
        if (writer.saturated) sawSaturated = true;
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, c) => client(c)));
    expect(sawSaturated).toBe(true);
    // A pause: no longer.
    await sleep(300);
    expect(writer.saturated).toBe(false);
  });

  it("resolves an empty write at once", async () => {
    await expect(new EventWriter(db.events, 1).write([])).resolves.toBeUndefined();
  });

  it("stores the rows of every field as given", async () => {
    const writer = new EventWriter(db.events, 1);
    const row = event("fields", { properties: { a: [1, { b: "ü" }] }, timestamp: new Date("2024-02-29T23:59:59.123Z"), personId: uuidv7(), historicalMigration: true, elementsChain: "a:nth-child(1)" });
    await writer.write([row]);
    const [stored] = await db.sql.query<Record<string, unknown>>(
      `SELECT event, distinct_id, properties, timestamp, person_id::text AS person_id, historical_migration, elements_chain FROM events WHERE uuid = $1::uuid`,
      [row.uuid],
    );
    expect(stored).toEqual({
      event: "w",
      distinct_id: "fields",
      properties: { a: [1, { b: "ü" }] },
      timestamp: new Date("2024-02-29T23:59:59.123Z"),
      person_id: row.personId,
      historical_migration: true,
      elements_chain: "a:nth-child(1)",
    });
  });

  it("fails only the write whose rows the database rejects, not the others sharing its insert", async () => {
    const writer = new EventWriter(db.events, 1);
    const good1 = [event("good1")];
    const bad = [event("bad", { projectId: 987_654 })]; // no such project: foreign key violation
    const good2 = [event("good2"), event("good2")];
    // Handed over in one turn of the event loop: they share one flush.
    const results = await Promise.allSettled([writer.write(good1), writer.write(bad), writer.write(good2)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await count([...good1, ...good2].map((r) => r.uuid))).toBe(3);
    expect(await count(bad.map((r) => r.uuid))).toBe(0);
  });

  it("settled resolves once the writes handed over before it are in, failed ones included", async () => {
    const writer = new EventWriter(db.events);
    await writer.settled(); // nothing pending
    const rows = Array.from({ length: 8 }, (_, i) => [event(`settled${i}`)]);
    const writes = rows.map((r) => writer.write(r));
    const failing = writer.write([event("settled-bad", { projectId: 987_654 })]).catch(() => "failed");
    await writer.settled();
    expect(await count(rows.flat().map((r) => r.uuid))).toBe(8);
    expect(await failing).toBe("failed");
    await Promise.all(writes);
  });

  it("drain resolves once everything handed over has been written", async () => {
    const writer = new EventWriter(db.events, 1);
    const rows = Array.from({ length: 10 }, (_, i) => [event(`drain${i}`)]);
    const writes = rows.map((r) => writer.write(r));
    await writer.drain();
    expect(await count(rows.flat().map((r) => r.uuid))).toBe(10);
    await Promise.all(writes);
  });
});
