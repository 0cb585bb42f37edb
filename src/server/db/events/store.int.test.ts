/**
 * The event store contract, below the API: writes (dedup of client uuids), one event, the
 * list's cursor, values, person re-assignment, and ingestion writing through the store —
 * on whichever store the run uses (PostgreSQL, PGlite, or ClickHouse with
 * BURROW_TEST_EVENTS=clickhouse). The API-level contract is in ../api.int.test.ts,
 * ../hogql/*.int.test.ts and the injection corpus files beside them.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testEventStoreKind, testStoresName } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { createIngestionServices } from "@/server/ingestion/service";
import { registerDb, closeDb } from "@/server/db";
import { parseListQuery, parseValuesQuery } from "@/server/http/rest/resources/events-query";
import type { EventRow, StoredEventInput } from ".";

let db: Database;
let projectId: number;
let otherProjectId: number;
let projectKey: string;

const at = (minute: number) => new Date(Date.UTC(2024, 2, 1, 12, minute));

const event = (overrides: Partial<StoredEventInput> = {}): StoredEventInput => ({
  uuid: uuidv7(),
  projectId,
  event: "e",
  distinctId: "d",
  properties: {},
  timestamp: at(0),
  ...overrides,
});

function query(params: Record<string, string> = {}) {
  const url = new URL("http://burrow.test/");
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return parseListQuery(url, null, new Date());
}

async function all(project = projectId, params: Record<string, string> = {}): Promise<EventRow[]> {
  return db.events.list(project, query(params), { limit: 1000, offset: 0, cursor: null, now: new Date() });
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "store@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  projectKey = owner.project_api_key;
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: "phc_store_other" } })).id;
});

afterAll(async () => {
  delete process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
  await closeDb();
});

describe(`event store (${testStoresName})`, () => {
  it("is the store the run asked for", () => {
    expect(db.events.kind).toBe(testEventStoreKind);
  });

  it("stores a batch, and a retried uuid once per project (the first copy stays)", async () => {
    const uuid = uuidv7();
    const first = event({ uuid, event: "first", distinctId: "dedup", properties: { a: 1 } });
    expect(await db.events.insert([first, event({ uuid, event: "second", distinctId: "dedup" }), event({ distinctId: "dedup" })])).toBe(2);
    expect(await db.events.insert([event({ uuid, event: "retry", distinctId: "dedup" })])).toBe(0);
    // The same client uuid in another project is another event.
    expect(await db.events.insert([event({ uuid, projectId: otherProjectId, event: "elsewhere", distinctId: "dedup" })])).toBe(1);
    const mine = await all(projectId, { distinct_id: "dedup" });
    expect(mine).toHaveLength(2);
    expect(mine.filter((row) => row.uuid === uuid).map((row) => row.event)).toEqual(["first"]);
    expect((await all(otherProjectId, { distinct_id: "dedup" })).map((row) => row.event)).toEqual(["elsewhere"]);
  });

  it("stores a batch larger than one statement takes, and large properties, each row once", async () => {
    const many = Array.from({ length: 5_001 }, (_, i) => event({ distinctId: "chunked", properties: { i } }));
    const large = event({ distinctId: "chunked", properties: { blob: "x".repeat(2_000_000), quote: '"\\' } });
    expect(await db.events.insert([...many, large])).toBe(5_002);
    expect(await db.events.insert([many[5_000]!, large])).toBe(0);
    const stored = await db.events.get(projectId, large.uuid);
    expect(stored?.properties).toEqual(large.properties);
    expect((await db.events.get(projectId, many[5_000]!.uuid))?.properties).toEqual({ i: 5_000 });
  });

  it("gives an event back as stored", async () => {
    const stored = event({
      event: "exact",
      distinctId: "exact-d",
      properties: { text: "a'b\"c\\d\u00e9\ud83d\ude00", wide: "Item 7 \u2013 \u6f22\u5b57 \u0001", n: 1.5, big: 12345678901234, t: true, nil: null, list: [1, "x", { y: [] }], obj: { "k.k": "v" } },
      timestamp: new Date("2024-03-01T12:34:56.789Z"),
      personId: randomUUID(),
      elementsChain: "a:nth-child(1)",
    });
    // Between plain ASCII rows of the same statement, which come back as they were too.
    const plain = [event({ distinctId: "exact-d", properties: { a: "before" } }), event({ distinctId: "exact-d", properties: { a: "after" } })];
    await db.events.insert([plain[0]!, stored, plain[1]!]);
    for (const row of plain) expect((await db.events.get(projectId, row.uuid))?.properties).toEqual(row.properties);
    expect(await db.events.get(projectId, stored.uuid)).toEqual({
      uuid: stored.uuid,
      event: "exact",
      distinct_id: "exact-d",
      properties: stored.properties,
      timestamp: stored.timestamp,
      person_id: stored.personId,
      elements_chain: "a:nth-child(1)",
    });
    expect(await db.events.get(otherProjectId, stored.uuid)).toBeNull();
    expect(await db.events.get(projectId, randomUUID())).toBeNull();
  });

  it("pages by cursor through equal timestamps, newest first, each event once", async () => {
    const same = Array.from({ length: 7 }, () => event({ distinctId: "cursor", timestamp: at(30) }));
    const older = Array.from({ length: 3 }, (_, i) => event({ distinctId: "cursor", timestamp: at(20 - i) }));
    await db.events.insert([...same, ...older]);
    const seen: EventRow[] = [];
    let cursor = null;
    for (;;) {
      const page = await db.events.list(projectId, query({ distinct_id: "cursor" }), { limit: 3, offset: 0, cursor, now: new Date() });
      seen.push(...page);
      if (page.length < 3) break;
      cursor = { timestamp: page.at(-1)!.timestamp, uuid: page.at(-1)!.uuid };
    }
    const expected = [...same.map((e) => e.uuid).sort().reverse(), ...older.map((e) => e.uuid)];
    expect(seen.map((row) => row.uuid)).toEqual(expected);
  });

  it("counts the list's matches with its filters, up to a cap", async () => {
    const now = new Date();
    const rows = [
      ...Array.from({ length: 12 }, (_, i) => event({ event: "counted", distinctId: "count-a", properties: { plan: i % 3 === 0 ? "pro" : "free" }, timestamp: new Date(now.getTime() - i * 60_000) })),
      ...Array.from({ length: 4 }, () => event({ event: "counted", distinctId: "count-b", timestamp: new Date(now.getTime() - 3 * 86_400_000) })),
      event({ event: "counted", projectId: otherProjectId, distinctId: "count-a" }),
    ];
    await db.events.insert(rows);
    const count = (params: Record<string, string>, cap = 1000) => db.events.countList(projectId, query(params), { cap, now });
    expect(await count({ event: "counted" })).toEqual({ count: 16, capped: false });
    expect(await count({ event: "counted", distinct_id: "count-a" })).toEqual({ count: 12, capped: false });
    expect(await count({ event: "counted", after: "-1d" })).toEqual({ count: 12, capped: false });
    expect(await count({ event: "counted", properties: JSON.stringify([{ key: "plan", value: "pro", operator: "exact", type: "event" }]) })).toEqual({ count: 4, capped: false });
    expect(await count({ event: "counted" }, 10)).toEqual({ count: 10, capped: true });
    expect(await count({ event: "counted" }, 16)).toEqual({ count: 16, capped: false });
    expect(await count({ event: "never-sent" })).toEqual({ count: 0, capped: false });
  });

  it("lists a property's values: list elements one by one, null left out, most frequent first, prefix ignoring ASCII case", async () => {
    await db.events.insert([
      event({ event: "v", properties: { color: "Red" } }),
      event({ event: "v", properties: { color: ["red", "Blue"] } }),
      event({ event: "v", properties: { color: "Red" } }),
      event({ event: "v", properties: { color: null } }),
      event({ event: "v", properties: { color: 7 } }),
      event({ event: "w", properties: { color: "green" } }),
    ]);
    const values = (params: Record<string, string>) => db.events.values(projectId, parseValuesQuery(new URL(`http://burrow.test/?${new URLSearchParams(params)}`)));
    expect(await values({ key: "color", event_name: "v" })).toEqual(["Red", 7, "Blue", "red"]);
    expect(await values({ key: "color", value: "r" })).toEqual(["Red", "red"]);
    expect(await values({ key: "color", value: "GR" })).toEqual(["green"]);
  });

  it("moves one person's events to another in that project only", async () => {
    const [source, target] = [randomUUID(), randomUUID()];
    await db.events.insert([
      event({ distinctId: "move", personId: source }),
      event({ distinctId: "move", personId: source }),
      event({ distinctId: "stay", personId: randomUUID() }),
      event({ distinctId: "move", personId: source, projectId: otherProjectId }),
    ]);
    await db.events.reassignPerson(projectId, source, target);
    expect((await all(projectId, { distinct_id: "move" })).map((row) => row.person_id)).toEqual([target, target]);
    expect((await all(projectId, { person_id: source })).length).toBe(0);
    expect((await all(otherProjectId, { distinct_id: "move" })).map((row) => row.person_id)).toEqual([source]);
  });

  it("takes ingestion's writes, and a merge moves the anonymous person's events", async () => {
    const anon = `anon-${randomUUID()}`;
    const user = `user-${randomUUID()}`;
    const send = (batch: object[]) => sendBatch(projectKey, batch);
    const uuid = randomUUID();
    await send([{ event: "$pageview", distinct_id: anon, uuid, timestamp: at(40).toISOString() }]);
    await send([{ event: "$pageview", distinct_id: anon, uuid, timestamp: at(41).toISOString() }]); // a retry: not stored twice
    await send([{ event: "$identify", distinct_id: user, properties: { $anon_distinct_id: anon }, timestamp: at(42).toISOString() }]);
    const rows = [...(await all(projectId, { distinct_id: anon })), ...(await all(projectId, { distinct_id: user }))];
    expect(rows.map((row) => row.event).sort()).toEqual(["$identify", "$pageview"]);
    expect(new Set(rows.map((row) => row.person_id)).size).toBe(1);
    expect(rows[0]!.person_id).not.toBeNull();
  });

  it("group-commits through the ingestion writer into this store", async () => {
    const services = createIngestionServices(db);
    const batches = Array.from({ length: 5 }, () => Array.from({ length: 40 }, () => event({ distinctId: "writer" })));
    await Promise.all(batches.map((batch) => services.writer.write(batch)));
    expect(await all(projectId, { distinct_id: "writer" })).toHaveLength(200);
  });
});

if (testEventStoreKind === "clickhouse") describe("ClickHouse migrations", () => {
  it("applies each file once, records it, and refuses a changed one", async () => {
    const { createClient } = await import("@clickhouse/client");
    const { createChdbConnection } = await import("chdb/connection");
    const { migrateClickHouse } = await import("./clickhouse/migrate");
    if (process.env.CLICKHOUSE_URL) return; // the chdb engine is the one under test here
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-ch-migrations-"));
    const client = createClient({ connection: createChdbConnection({ path: ":memory:" }) as never });
    const database = `burrow_migrate_${process.pid}_${Date.now()}`;
    try {
      fs.writeFileSync(path.join(dir, "0001_a.sql"), "-- a table\nCREATE TABLE IF NOT EXISTS {database}.a (x Int32) ENGINE = MergeTree ORDER BY x;\nINSERT INTO {database}.a VALUES (1);\n");
      expect(await migrateClickHouse(client, database, dir)).toEqual(["0001_a"]);
      expect(await migrateClickHouse(client, database, dir)).toEqual([]);
      const count = await (await client.query({ query: `SELECT count() AS n FROM \`${database}\`.a`, format: "JSONEachRow" })).json<{ n: string }>();
      expect(Number(count[0]!.n)).toBe(1);
      fs.appendFileSync(path.join(dir, "0001_a.sql"), "-- changed\n");
      await expect(migrateClickHouse(client, database, dir)).rejects.toThrow("ClickHouse migration 0001_a was changed after it was applied");
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS \`${database}\`` });
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("0004's backfill of sessions_v2 from stored events gives the rows its view gives at insert", async () => {
    const { createClient } = await import("@clickhouse/client");
    const { createChdbConnection } = await import("chdb/connection");
    const { CLICKHOUSE_MIGRATIONS_DIR, migrateClickHouse } = await import("./clickhouse/migrate");
    if (process.env.CLICKHOUSE_URL) return;
    const before = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-ch-0003-"));
    for (const name of fs.readdirSync(CLICKHOUSE_MIGRATIONS_DIR).filter((file) => file < "0004")) fs.copyFileSync(path.join(CLICKHOUSE_MIGRATIONS_DIR, name), path.join(before, name));
    const client = createClient({ connection: createChdbConnection({ path: ":memory:" }) as never });
    const [backfilled, viewed] = [`burrow_backfill_${process.pid}_${Date.now()}`, `burrow_viewed_${process.pid}_${Date.now()}`];
    const person = "0190c000-0000-7000-8000-0000000000aa";
    const row = (event: string, at: string, session: unknown, properties: Record<string, unknown> = {}, personId: string | null = person) => ({
      project_id: 1,
      uuid: uuidv7(),
      event,
      distinct_id: personId === null ? "anon" : "visitor",
      properties: JSON.stringify({ $session_id: session, ...properties }),
      timestamp: `2024-05-01 ${at}`,
      person_id: personId,
      elements_chain: "",
      historical_migration: false,
    });
    const events = [
      row("$pageleave", "10:02:00", "s1", { $current_url: "https://a.example/pricing" }),
      row("$pageview", "10:00:00", "s1", { $current_url: "https://a.example/landing?utm_source=news", $pathname: "/landing", $referring_domain: "news.example", utm_source: "news", utm_medium: "email" }),
      row("$autocapture", "10:00:05", "s1", { $current_url: "https://a.example/landing" }),
      row("$pageview", "10:01:00", "s1", { $current_url: "https://a.example/pricing#plans" }),
      row("$screen", "11:00:00", "s2", {}, null),
      row("$pageview", "09:00:00", ""),
      row("$pageview", "09:00:00", "x".repeat(201)),
    ];
    const sessions = async (database: string) =>
      (
        await client.query({
          query: `SELECT session_id, distinct_id, toString(finalizeAggregation(person)) AS person, start_timestamp, end_timestamp, last_view_timestamp,
                    pageview_count, screen_count, autocapture_count, ${["entry_url", "entry_pathname", "entry_referring_domain", "entry_utm_source", "entry_utm_medium", "entry_utm_campaign", "entry_utm_term", "entry_utm_content", "exit_url", "exit_pathname"].map((field) => `finalizeAggregation(${field}) AS ${field}_value`).join(", ")}
                  FROM \`${database}\`.sessions_v2 FINAL ORDER BY session_id`,
          format: "JSONEachRow",
        })
      ).json<Record<string, unknown>>();
    try {
      await migrateClickHouse(client, backfilled, before);
      await client.insert({ table: `\`${backfilled}\`.events`, values: events, format: "JSONEachRow" });
      expect(await migrateClickHouse(client, backfilled)).toEqual(["0004_sessions_v2", "0005_sessions_inserted_at", "0006_flag_properties"]);
      await migrateClickHouse(client, viewed);
      for (const event of events) await client.insert({ table: `\`${viewed}\`.events`, values: [event], format: "JSONEachRow" });
      const rows = await sessions(backfilled);
      expect(rows).toEqual(await sessions(viewed));
      expect(rows).toMatchObject([
        {
          session_id: "s1",
          person,
          start_timestamp: "2024-05-01 10:00:00.000000",
          end_timestamp: "2024-05-01 10:02:00.000000",
          last_view_timestamp: "2024-05-01 10:01:00.000000",
          pageview_count: 2,
          autocapture_count: 1,
          entry_pathname_value: "/landing",
          entry_utm_medium_value: "email",
          exit_url_value: "https://a.example/pricing",
          exit_pathname_value: "/pricing",
        },
        { session_id: "s2", person: null, screen_count: 1, entry_url_value: "" },
      ]);
    } finally {
      for (const database of [backfilled, viewed]) await client.command({ query: `DROP DATABASE IF EXISTS \`${database}\`` });
      await client.close();
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
  it("0005 gives each session its events' latest ingestion time, the sessions already there from their events without changing them, later ones through the view", async () => {
    const { createClient } = await import("@clickhouse/client");
    const { createChdbConnection } = await import("chdb/connection");
    const { CLICKHOUSE_MIGRATIONS_DIR, migrateClickHouse } = await import("./clickhouse/migrate");
    if (process.env.CLICKHOUSE_URL) return;
    const before = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-ch-0004-"));
    for (const name of fs.readdirSync(CLICKHOUSE_MIGRATIONS_DIR).filter((file) => file < "0005")) fs.copyFileSync(path.join(CLICKHOUSE_MIGRATIONS_DIR, name), path.join(before, name));
    const client = createClient({ connection: createChdbConnection({ path: ":memory:" }) as never });
    const database = `burrow_inserted_${process.pid}_${Date.now()}`;
    const row = (event: string, at: string, insertedAt: string, session: string, properties: Record<string, unknown> = {}) => ({
      project_id: 1,
      uuid: uuidv7(),
      event,
      distinct_id: "visitor",
      properties: JSON.stringify({ $session_id: session, ...properties }),
      timestamp: `2024-05-01 ${at}`,
      person_id: "0190c000-0000-7000-8000-0000000000aa",
      elements_chain: "",
      historical_migration: false,
      inserted_at: `2024-05-02 ${insertedAt}`,
    });
    const sessions = async (insertedAt = true) =>
      (
        await client.query({
          query: `SELECT session_id, distinct_id, toString(finalizeAggregation(person)) AS person, start_timestamp, end_timestamp, last_view_timestamp,
                    pageview_count, screen_count, autocapture_count, finalizeAggregation(entry_url) AS entry, finalizeAggregation(exit_url) AS exit${insertedAt ? ", inserted_at" : ""}
                  FROM \`${database}\`.sessions_v2 FINAL ORDER BY session_id`,
          format: "JSONEachRow",
        })
      ).json<Record<string, unknown>>();
    try {
      await migrateClickHouse(client, database, before);
      await client.insert({
        table: `\`${database}\`.events`,
        values: [
          row("$pageview", "10:00:00", "08:00:00.000001", "s1", { $current_url: "https://a.example/a" }),
          row("$pageview", "10:05:00", "09:30:00.250000", "s1", { $current_url: "https://a.example/b" }),
          row("$autocapture", "10:01:00", "07:00:00", "s2"),
        ],
        format: "JSONEachRow",
      });
      const unchanged = await sessions(false);
      expect(await migrateClickHouse(client, database)).toEqual(["0005_sessions_inserted_at", "0006_flag_properties"]);
      const migrated = await sessions();
      expect(migrated.map(({ inserted_at: _, ...rest }) => rest)).toEqual(unchanged);
      expect(migrated.map((r) => [r.session_id, r.inserted_at, r.pageview_count])).toEqual([
        ["s1", "2024-05-02 09:30:00.250000", 2],
        ["s2", "2024-05-02 07:00:00.000000", 0],
      ]);
      // A late event of s1, through the view: its time, and the session's counts and exit move on.
      await client.insert({ table: `\`${database}\`.events`, values: [row("$pageview", "10:03:00", "11:00:00", "s1", { $current_url: "https://a.example/c" })], format: "JSONEachRow" });
      expect((await sessions())[0]).toMatchObject({ session_id: "s1", inserted_at: "2024-05-02 11:00:00.000000", pageview_count: 3, entry: "https://a.example/a", exit: "https://a.example/b" });
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS \`${database}\`` });
      await client.close();
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
});
