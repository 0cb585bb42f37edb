/**
 * The events model's person columns end to end, on whichever event store the run uses (it
 * also runs with BURROW_TEST_EVENTS=clickhouse, where the persons still live in PostgreSQL):
 * `person_properties` is the event's person's properties as they are when the run reads it,
 * null for an event without a person or whose person is gone, and `set` / `set_once` are the
 * event's `$set` / `$set_once`. Checked in S3 JSON Lines and Parquet (read back with
 * hyparquet) and in a PostgreSQL destination, including a table an earlier version created
 * without these columns. Events are stored now (ClickHouse keeps its own ingestion time), so
 * the run's interval is scheduled around now by hand.
 */
import { randomUUID } from "node:crypto";
import { parquetReadObjects } from "hyparquet";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createEmptyPostgresDatabase, createTestDatabase, testStoresName } from "@/test-support/db";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { startTestS3, type TestS3 } from "@/test-support/s3";
import { runBatchExportsPass, runnerOptions } from "./runner";
import { scheduleRuns } from "./store";

let db: Database;
let projectId: number;
let apiKey: string;
let s3: TestS3;
let target: { url: string; drop(): Promise<void> };

const list = restRoute("projects", "batch_exports");
const runs = restRoute("projects", "batch_exports/:id/runs");

const call = projectApiCaller(() => ({ projectId, apiKey }));

const s3Destination = (prefix: string, extra: object = {}) => ({
  type: "S3",
  config: { bucket_name: s3.bucket, region: "us-east-1", prefix, aws_access_key_id: s3.accessKeyId, aws_secret_access_key: s3.secretAccessKey, endpoint_url: s3.endpoint, ...extra },
});
const postgresDestination = (table: string) => {
  const url = new URL(target.url);
  return { type: "Postgres", config: { host: "127.0.0.1", port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: "", database: url.pathname.slice(1), table_name: table } };
};

async function targetQuery<T extends object>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The interval every run here exports: the hour before now to the hour after (the events are stored now). */
let start: Date;
let end: Date;

/** Creates an export and runs it over [start, end) with pages of 2 rows; answers its run's records. */
async function exportNow(destination: object): Promise<number> {
  const created = await call(list.POST, "POST", "batch_exports/", {}, { name: "person columns", model: "events", interval: "hour", destination });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  expect(await scheduleRuns(db.worker.as("test"), id, [{ id: randomUUID(), start, end }], null, end)).toBe(true);
  await runBatchExportsPass(db, { ...runnerOptions(db, { backoffMs: 1, maxAttempts: 1, pageRows: 2, timeoutMs: 5_000 }), settleMs: 10 * 365 * 86_400_000 });
  const done = await call(runs.GET, "GET", `batch_exports/${id}/runs/`, { id });
  const [run] = done.body.results as { status: string; records_completed: number; latest_error: string | null }[];
  expect(run!.status, run!.latest_error ?? "").toBe("Completed");
  return run!.records_completed;
}

const uuid = (n: number) => `0190b000-0000-7000-8000-${String(n).padStart(12, "0")}`;
let annUuid: string;
let bobUuid: string;
/** What each event's person columns must be, by uuid. */
const expected = new Map<string, { person_id: string | null; person_properties: object | null; set: object | null; set_once: object | null }>();

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "person-columns@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  s3 = await startTestS3("person-columns");
  target = await createEmptyPostgresDatabase();
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  start = new Date(hour - 3_600_000);
  end = new Date(hour + 2 * 3_600_000);

  const person = async (name: string, properties: object) =>
    (await db.prisma.person.create({ data: { projectId, properties, distinctIds: { create: [{ projectId, distinctId: `${name}-1` }] } } })).uuid;
  annUuid = await person("ann", { name: "ann", plan: "free" });
  bobUuid = await person("bob", { name: "bob", nested: { tags: ["a", "b"] } });
  const gone = randomUUID();
  const events = [
    { n: 1, distinctId: "ann-1", personId: annUuid, properties: { $set: { plan: "pro" }, $set_once: { first_seen: "2026-01-01" }, $current_url: "https://a.example/" } },
    { n: 2, distinctId: "anon", personId: null, properties: { $set: "not an object" } },
    { n: 3, distinctId: "bob-1", personId: bobUuid, properties: { n: 3 } },
    { n: 4, distinctId: "ann-1", personId: annUuid, properties: { $set_once: { referrer: "news" } } },
    { n: 5, distinctId: "gone-1", personId: gone, properties: {} },
  ];
  await db.events.insert(events.map((e) => ({ uuid: uuid(e.n), projectId, event: `e${e.n}`, distinctId: e.distinctId, personId: e.personId, properties: e.properties, timestamp: new Date() })));
  // The person as it is at export time: ann changed after her events were stored.
  await db.sql.query(`UPDATE persons SET properties = '{"name": "ann", "plan": "pro"}' WHERE uuid = $1::uuid`, [annUuid]);
  const ann = { name: "ann", plan: "pro" };
  expected.set(uuid(1), { person_id: annUuid, person_properties: ann, set: { plan: "pro" }, set_once: { first_seen: "2026-01-01" } });
  expected.set(uuid(2), { person_id: null, person_properties: null, set: null, set_once: null });
  expected.set(uuid(3), { person_id: bobUuid, person_properties: { name: "bob", nested: { tags: ["a", "b"] } }, set: null, set_once: null });
  expected.set(uuid(4), { person_id: annUuid, person_properties: ann, set: null, set_once: { referrer: "news" } });
  expected.set(uuid(5), { person_id: gone, person_properties: null, set: null, set_once: null });
});

afterAll(async () => {
  await s3?.close();
  await target?.drop();
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  await closeDb();
});

const personColumns = (row: Record<string, unknown>) => ({ person_id: row.person_id, person_properties: row.person_properties, set: row.set, set_once: row.set_once });

describe(`the events model's person columns (${testStoresName})`, () => {
  it("S3 JSON Lines: person_properties as the person is now (null without one), set and set_once from the event", async () => {
    expect(await exportNow(s3Destination("jsonl"))).toBe(5);
    const [key] = await s3.keys("jsonl/");
    const rows = (await s3.object(key!)).toString("utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(new Map(rows.map((row) => [row.uuid as string, personColumns(row)]))).toEqual(expected);
    expect(Object.keys(rows[0]!)).toEqual([
      "uuid", "event", "distinct_id", "person_id", "properties", "person_properties", "elements_chain", "timestamp", "created_at", "_inserted_at", "team_id", "set", "set_once",
    ]);
  });

  it("S3 Parquet: the same columns as JSON strings", async () => {
    expect(await exportNow(s3Destination("parquet", { file_format: "Parquet", compression: "snappy" }))).toBe(5);
    const [key] = await s3.keys("parquet/");
    const file = await s3.object(key!);
    const rows = await parquetReadObjects({ file: file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer });
    const json = (value: unknown) => (value === null ? null : JSON.parse(value as string));
    expect(
      new Map(rows.map((row) => [row.uuid as string, { person_id: row.person_id, person_properties: json(row.person_properties), set: json(row.set), set_once: json(row.set_once) }])),
    ).toEqual(expected);
  });

  it("PostgreSQL: a new table has the columns; a table an earlier version created gets them before its first write", async () => {
    expect(await exportNow(postgresDestination("events_new"))).toBe(5);
    const fresh = await targetQuery<Record<string, unknown>>(`SELECT * FROM events_new`);
    expect(new Map(fresh.map((row) => [row.uuid as string, personColumns(row)]))).toEqual(expected);

    // The events table as the previous version created it, with a row of its own.
    await targetQuery(`CREATE TABLE events_old (uuid uuid PRIMARY KEY, event text NOT NULL, distinct_id text NOT NULL, person_id uuid, properties jsonb,
      elements_chain text, "timestamp" timestamptz, _inserted_at timestamptz, team_id integer)`);
    await targetQuery(`INSERT INTO events_old (uuid, event, distinct_id) VALUES ('${randomUUID()}', 'earlier', 'x')`);
    expect(await exportNow(postgresDestination("events_old"))).toBe(5);
    const old = await targetQuery<Record<string, unknown>>(`SELECT * FROM events_old WHERE event <> 'earlier'`);
    expect(new Map(old.map((row) => [row.uuid as string, personColumns(row)]))).toEqual(expected);
    const [earlier] = await targetQuery<Record<string, unknown>>(`SELECT * FROM events_old WHERE event = 'earlier'`);
    expect(personColumns(earlier!)).toEqual({ person_id: null, person_properties: null, set: null, set_once: null });
    // A second run finds every column there: nothing to add, nothing doubled.
    expect(await exportNow(postgresDestination("events_old"))).toBe(5);
    expect(await targetQuery(`SELECT uuid FROM events_old`)).toHaveLength(6);
  });
});
