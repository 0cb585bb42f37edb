/**
 * Batch exports of the persons and sessions models, and Parquet files, end to end on a real
 * database with real receivers on loopback (s3rver checking signatures, a second PostgreSQL
 * database). Change times are set by hand so that each interval's rows are known: a person's
 * row is exported in the interval of its latest change (the person's or the distinct id's), a
 * session's in the interval its row last changed in. Parquet files are read back with hyparquet.
 * The sessions model also runs as ingestion writes it on either event store (ClickHouse with
 * BURROW_TEST_EVENTS=clickhouse: a session changes when an event of it is stored), over
 * intervals around now.
 */
import { gunzipSync } from "node:zlib";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import type { PostgresEventStore } from "@/server/db/events";
import { createEmptyPostgresDatabase, createTestDatabase, testEventStoreKind } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { startTestS3, type TestS3 } from "@/test-support/s3";
import { exportPersonPage } from "@/server/persons/service";
import { randomUUID } from "node:crypto";
import { runBatchExportsPass, runnerOptions } from "./runner";
import { scheduleRuns } from "./store";

let db: Database;
let projectId: number;
let apiKey: string;
let token: string;
let s3: TestS3;
let target: { url: string; drop(): Promise<void> };

const list = restRoute("projects", "batch_exports");
const one = restRoute("projects", "batch_exports/:id");
const backfills = restRoute("projects", "batch_exports/:id/backfills");
const runs = restRoute("projects", "batch_exports/:id/runs");

const call = projectApiCaller(() => ({ projectId, apiKey }));

const H = (hour: number, minute = 0) => new Date(Date.UTC(2026, 0, 10, hour, minute));
const iso = (date: Date) => date.toISOString();
const drain = () => runBatchExportsPass(db, { ...runnerOptions(db, { backoffMs: 1, maxAttempts: 2, pageRows: 2, timeoutMs: 5_000 }), settleMs: 10 * 365 * 86_400_000 });

function s3Destination(prefix: string, extra: object = {}) {
  return {
    type: "S3",
    config: { bucket_name: s3.bucket, region: "us-east-1", prefix, aws_access_key_id: s3.accessKeyId, aws_secret_access_key: s3.secretAccessKey, endpoint_url: s3.endpoint, ...extra },
  };
}
const postgresDestination = (table: string) => {
  const url = new URL(target.url);
  return { type: "Postgres", config: { host: "127.0.0.1", port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: "", database: url.pathname.slice(1), table_name: table } };
};

async function createExport(model: string, destination: object) {
  const response = await call(list.POST, "POST", "batch_exports/", {}, { name: `${model} export`, model, interval: "hour", destination });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expect(response.body.model).toBe(model);
  return response.body as { id: string };
}

/** A backfill of hours [from, to), run through; answers the runs' records, oldest first. */
async function exportHours(id: string, from: number, to: number): Promise<number[]> {
  const made = await call(backfills.POST, "POST", `batch_exports/${id}/backfills/`, { id }, { start_at: iso(H(from)), end_at: iso(H(to)) });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await drain();
  const done = await call(runs.GET, "GET", `batch_exports/${id}/runs/`, { id });
  const latest = (done.body.results as { status: string; records_completed: number; latest_error: string | null; backfill: string }[]).filter((run) => run.backfill === made.body.id).reverse();
  expect(latest).toHaveLength(to - from);
  for (const run of latest) expect(run.status, run.latest_error ?? "").toBe("Completed");
  return latest.map((run) => run.records_completed);
}

async function readTable<T>(table: string, order: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return (await client.query(`SELECT * FROM ${table} ORDER BY ${order}`)).rows as T[];
  } finally {
    await client.end();
  }
}

const arrayBuffer = (file: Buffer) => file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
const stamp = (date: Date) => date.toISOString().replace(".000Z", "+00:00");
const fileName = (hour: number, extension: string) => `${stamp(H(hour))}-${stamp(H(hour + 1))}.${extension}`;

/** Persons made with known change times: name → uuid. */
const persons = new Map<string, string>();
async function person(name: string, options: { updatedAt: Date; createdAt: Date; version: number; ids: [string, Date][] }) {
  const row = await db.prisma.person.create({
    data: {
      projectId,
      properties: { name, plan: "pro" },
      version: options.version,
      createdAt: options.createdAt,
      updatedAt: options.updatedAt,
      distinctIds: { create: options.ids.map(([distinctId, updatedAt]) => ({ projectId, distinctId, updatedAt })) },
    },
  });
  persons.set(name, row.uuid);
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "models@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  token = owner.project_api_key;
  s3 = await startTestS3("models");
  target = await createEmptyPostgresDatabase();
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";

  // Worked by hand, hours of 10 January (latest change = the later of the person's and the id's):
  // ann: person changed 1:10; ann-1 attached 1:10 → hour 1; ann-2 attached 2:30 → hour 2.
  await person("ann", { updatedAt: H(1, 10), createdAt: H(0, 5), version: 3, ids: [["ann-1", H(1, 10)], ["ann-2", H(2, 30)]] });
  // bob: person changed 2:05, its id attached at 0:30 → hour 2.
  await person("bob", { updatedAt: H(2, 5), createdAt: H(0, 30), version: 1, ids: [["bob-1", H(0, 30)]] });
  // cy: all before hour 1; dee: all after hour 2.
  await person("cy", { updatedAt: H(0, 10), createdAt: H(0, 10), version: 0, ids: [["cy-1", H(0, 10)]] });
  await person("dee", { updatedAt: H(3, 0), createdAt: H(3, 0), version: 0, ids: [["dee-1", H(3, 0)]] });
});

afterAll(async () => {
  await s3?.close();
  await target?.drop();
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  await closeDb();
});

describe("batch export models and formats: hostile input", () => {
  it("refuses what cannot run with 400s naming what can", async () => {
    const refusals: [object, RegExp, string][] = [
      [{ model: "groups", destination: s3Destination("") }, /model must be one of events, persons, sessions/, "model"],
      [{ model: "persons", destination: { type: "HTTP", config: { url: "http://127.0.0.1:9/batch/", token: "t" } } }, /HTTP destination exports events only/, "model"],
      [{ model: "persons", destination: { ...postgresDestination("x"), config: { ...postgresDestination("x").config, table_name: undefined } } }, /choose a table for the persons model/, "destination__config__table_name"],
      [{ destination: s3Destination("", { file_format: "CSV" }) }, /file_format must be one of JSONLines, Parquet/, "destination__config__file_format"],
      [{ destination: s3Destination("", { file_format: "JSONLines", compression: "snappy" }) }, /snappy is not supported with JSONLines: use gzip, brotli, zstd, lz4/, "destination__config__compression"],
      [{ destination: s3Destination("", { max_file_size_mb: 0 }) }, /max_file_size_mb must be 1 or more/, "destination__config__max_file_size_mb"],
      [{ destination: s3Destination("", { compression: "rar" }) }, /compression must be one of/, "destination__config__compression"],
      [{ destination: s3Destination("", { file_format: ["Parquet"] }) }, /file_format/, "destination__config__file_format"],
      [{ model: { $ne: "events" }, destination: s3Destination("") }, /model must be one of/, "model"],
    ];
    for (const [body, detail, attr] of refusals) {
      const response = await call(list.POST, "POST", "batch_exports/", {}, { name: "x", interval: "hour", ...body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.detail, JSON.stringify(body)).toMatch(detail);
      expect(response.body.attr, JSON.stringify(body)).toBe(attr);
    }
    // The model stays; a destination changed later is checked against it.
    const created = await createExport("persons", s3Destination("hostile"));
    const patched = await call(one.PATCH, "PATCH", `batch_exports/${created.id}/`, { id: created.id }, { destination: { type: "HTTP", config: { url: "http://127.0.0.1:9/", token: "t" } } });
    expect(patched.status).toBe(400);
    expect(patched.body.attr).toBe("model");
    expect((await call(one.DELETE, "DELETE", `batch_exports/${created.id}/`, { id: created.id })).status).toBe(204);
  });
});

type PersonRow = { team_id: number; distinct_id: string; person_id: string; properties: object; person_version: string; person_distinct_id_version: string; created_at: Date; _inserted_at: Date };
const personRow = (name: string, distinctId: string, version: number, insertedAt: Date, createdAt: Date, properties: object = { name, plan: "pro" }): PersonRow => ({
  team_id: projectId,
  distinct_id: distinctId,
  person_id: persons.get(name)!,
  properties,
  person_version: String(version),
  person_distinct_id_version: "0",
  created_at: createdAt,
  _inserted_at: insertedAt,
});

describe("the persons model", () => {
  it("writes each interval's (distinct id, person) rows to S3 as JSON Lines and as Parquet with JSON strings and timestamps", async () => {
    const lines = await createExport("persons", s3Destination("jsonl/{table}", { compression: "gzip" }));
    expect(await exportHours(lines.id, 1, 4)).toEqual([1, 2, 1]);
    expect(await s3.keys("jsonl/")).toEqual([1, 2, 3].map((h) => `jsonl/persons/${fileName(h, "jsonl.gz")}`));
    const hour2 = gunzipSync(await s3.object(`jsonl/persons/${fileName(2, "jsonl.gz")}`)).toString("utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(hour2).toEqual([
      { team_id: projectId, distinct_id: "bob-1", person_id: persons.get("bob"), properties: { name: "bob", plan: "pro" }, person_version: 1, person_distinct_id_version: 0, created_at: iso(H(0, 30)), _inserted_at: iso(H(2, 5)) },
      { team_id: projectId, distinct_id: "ann-2", person_id: persons.get("ann"), properties: { name: "ann", plan: "pro" }, person_version: 3, person_distinct_id_version: 0, created_at: iso(H(0, 5)), _inserted_at: iso(H(2, 30)) },
    ]);

    const parquet = await createExport("persons", s3Destination("parquet", { file_format: "Parquet", compression: "brotli" }));
    expect(await exportHours(parquet.id, 1, 3)).toEqual([1, 2]);
    expect(await s3.keys("parquet/")).toEqual([1, 2].map((h) => `parquet/${fileName(h, "parquet.br")}`));
    const file = arrayBuffer(await s3.object(`parquet/${fileName(2, "parquet.br")}`));
    expect(parquetMetadata(file).row_groups[0]!.columns[0]!.meta_data!.codec).toBe("BROTLI");
    const { brotliDecompressSync } = await import("node:zlib");
    const read = await parquetReadObjects({ file, compressors: { BROTLI: (input: Uint8Array) => new Uint8Array(brotliDecompressSync(input)) } });
    expect(read).toEqual(
      hour2.map((row) => ({
        ...row,
        team_id: BigInt(projectId),
        person_version: BigInt(row.person_version as number),
        person_distinct_id_version: 0n,
        properties: JSON.stringify(row.properties),
        created_at: new Date(row.created_at as string),
        _inserted_at: new Date(row._inserted_at as string),
      })),
    );
  });

  it("upserts into PostgreSQL by distinct id: a re-run adds nothing, a later change of the person replaces its rows", async () => {
    const created = await createExport("persons", postgresDestination("burrow_persons"));
    expect(await exportHours(created.id, 1, 3)).toEqual([1, 2]);
    const expected = [personRow("ann", "ann-1", 3, H(1, 10), H(0, 5)), personRow("ann", "ann-2", 3, H(2, 30), H(0, 5)), personRow("bob", "bob-1", 1, H(2, 5), H(0, 30))];
    expect(await readTable<PersonRow>("burrow_persons", "distinct_id")).toEqual(expected);
    expect(await exportHours(created.id, 1, 3)).toEqual([1, 2]);
    expect(await readTable<PersonRow>("burrow_persons", "distinct_id")).toEqual(expected);

    // Ann changes in hour 5: both her rows again, replaced by the newer change; an older run again changes nothing back.
    await db.sql.query(`UPDATE persons SET properties = '{"name": "ann", "plan": "free"}', version = 4, updated_at = $2 WHERE uuid = $1::uuid`, [persons.get("ann"), H(5, 1)]);
    expect(await exportHours(created.id, 5, 6)).toEqual([2]);
    const changed = [personRow("ann", "ann-1", 4, H(5, 1), H(0, 5), { name: "ann", plan: "free" }), personRow("ann", "ann-2", 4, H(5, 1), H(0, 5), { name: "ann", plan: "free" }), expected[2]];
    expect(await readTable<PersonRow>("burrow_persons", "distinct_id")).toEqual(changed);
    expect(await exportHours(created.id, 2, 3)).toEqual([1]);
    expect(await readTable<PersonRow>("burrow_persons", "distinct_id")).toEqual(changed);
  });
});

describe("the persons model, as ingestion writes it", () => {
  it("a merge marks the moved distinct id changed: both ids come out on the merged person with the id's version bumped", async () => {
    await sendBatch(token, [{ event: "$pageview", distinct_id: "merge-anon", properties: {} }]);
    await sendBatch(token, [{ event: "$pageview", distinct_id: "merge-known", properties: {} }]);
    // The rows as they were before the merge, dated back, so that only the merge's writes fall in the range read below.
    await db.sql.query(
      `UPDATE persons SET updated_at = $2 WHERE project_id = $1 AND id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id IN ('merge-anon', 'merge-known'))`,
      [projectId, H(0)],
    );
    await db.sql.query(`UPDATE person_distinct_ids SET updated_at = $2 WHERE project_id = $1 AND distinct_id IN ('merge-anon', 'merge-known')`, [projectId, H(0)]);
    const since = new Date(Date.now() - 1_000);
    expect(await exportPersonPage(db.sql, projectId, { from: since, to: new Date(Date.now() + 60_000), after: null, limit: 10 })).toEqual([]);
    await sendBatch(token, [{ event: "$merge_dangerously", distinct_id: "merge-known", properties: { alias: "merge-anon" } }]);
    const rows = await exportPersonPage(db.sql, projectId, { from: since, to: new Date(Date.now() + 60_000), after: null, limit: 10 });
    expect(rows.map((row) => [row.distinct_id, row.person_distinct_id_version])).toEqual(
      expect.arrayContaining([
        ["merge-anon", 1],
        ["merge-known", 0],
      ]),
    );
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.person_id)).size).toBe(1);
  });

  it("an id attached to a person that does not otherwise change is exported by the id's own change time", async () => {
    await sendBatch(token, [{ event: "$pageview", distinct_id: "alias-known", properties: {} }]);
    await db.sql.query(`UPDATE persons SET updated_at = $2 WHERE project_id = $1 AND id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id = 'alias-known')`, [projectId, H(0)]);
    await db.sql.query(`UPDATE person_distinct_ids SET updated_at = $2 WHERE project_id = $1 AND distinct_id = 'alias-known'`, [projectId, H(0)]);
    const since = new Date(Date.now() - 1_000);
    await sendBatch(token, [{ event: "$create_alias", distinct_id: "alias-known", properties: { alias: "alias-new" } }]);
    const rows = await exportPersonPage(db.sql, projectId, { from: since, to: new Date(Date.now() + 60_000), after: null, limit: 10 });
    const [known] = await db.sql.query<{ uuid: string }>(`SELECT p.uuid::text FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.distinct_id = 'alias-known'`);
    expect(rows.filter((row) => row.distinct_id.startsWith("alias-")).map((row) => [row.distinct_id, row.person_id])).toEqual([["alias-new", known!.uuid]]);
  });
});

describe.skipIf(testEventStoreKind === "clickhouse")("the sessions model", () => {
  type SessionRecord = Record<string, unknown> & { session_id: string };
  const expected: SessionRecord[] = [];

  beforeAll(async () => {
    const event = (n: number, name: string, session: string, at: Date, properties: object = {}) => ({
      event: name,
      distinct_id: "visitor",
      uuid: `0190a000-0000-7000-9000-${String(n).padStart(12, "0")}`,
      timestamp: iso(at),
      properties: { $session_id: session, ...properties },
    });
    await sendBatch(token, [
      // s-one: entry on /a from a newsletter, an autocapture, exit on /b.
      event(1, "$pageview", "s-one", H(0, 50), { $current_url: "https://shop.example/a?x=1", utm_source: "news", utm_campaign: "jan", $referring_domain: "mail.example" }),
      event(2, "$autocapture", "s-one", H(0, 55)),
      event(3, "$pageview", "s-one", H(1, 5), { $current_url: "https://shop.example/b", $pathname: "/b" }),
      event(4, "$pageview", "s-two", H(1, 30), { $current_url: "https://shop.example/" }),
      event(5, "$screen", "s-three", H(3, 0)),
    ]);
    await (db.events as PostgresEventStore).mergeSessionDeltas();
    // When each row last changed, by hand: s-one in hour 1, s-two in hour 2 (merged late), s-three in hour 3.
    for (const [session, at] of [["s-one", H(1, 20)], ["s-two", H(2, 10)], ["s-three", H(3, 1)]] as const) {
      await db.sql.query(`UPDATE sessions SET updated_at = $3 WHERE project_id = $1 AND session_id = $2`, [projectId, session, at]);
    }
    const [visitor] = await db.sql.query<{ uuid: string }>(`SELECT p.uuid::text FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.distinct_id = 'visitor'`);
    const none = { entry_url: null, entry_pathname: null, entry_referring_domain: null, entry_utm_source: null, entry_utm_medium: null, entry_utm_campaign: null, entry_utm_term: null, entry_utm_content: null, exit_url: null, exit_pathname: null };
    expected.push(
      {
        team_id: projectId, session_id: "s-one", distinct_id: "visitor", person_id: visitor!.uuid, start_timestamp: iso(H(0, 50)), end_timestamp: iso(H(1, 5)), duration: 900,
        pageview_count: 2, screen_count: 0, autocapture_count: 1, ...none, entry_url: "https://shop.example/a?x=1", entry_pathname: "/a", entry_referring_domain: "mail.example",
        entry_utm_source: "news", entry_utm_campaign: "jan", exit_url: "https://shop.example/b", exit_pathname: "/b", _inserted_at: iso(H(1, 20)),
      },
      {
        team_id: projectId, session_id: "s-two", distinct_id: "visitor", person_id: visitor!.uuid, start_timestamp: iso(H(1, 30)), end_timestamp: iso(H(1, 30)), duration: 0,
        pageview_count: 1, screen_count: 0, autocapture_count: 0, ...none, entry_url: "https://shop.example/", entry_pathname: "/", exit_url: "https://shop.example/", exit_pathname: "/", _inserted_at: iso(H(2, 10)),
      },
    );
  });

  it("writes to S3 as Parquet (snappy) exactly the sessions whose row changed in each interval, read back with hyparquet", async () => {
    const created = await createExport("sessions", s3Destination("sessions-parquet/{table}", { file_format: "Parquet", compression: "snappy" }));
    expect(await exportHours(created.id, 1, 3)).toEqual([1, 1]);
    const keys = await s3.keys("sessions-parquet/");
    expect(keys).toEqual([1, 2].map((h) => `sessions-parquet/sessions/${fileName(h, "parquet.sz")}`));
    for (const [i, key] of keys.entries()) {
      const read = await parquetReadObjects({ file: arrayBuffer(await s3.object(key)) });
      const want = expected[i]!;
      expect(read).toEqual([
        Object.fromEntries(
          Object.entries(want).map(([name, value]) => [
            name,
            typeof value === "number" ? BigInt(value) : name.endsWith("timestamp") || name === "_inserted_at" ? new Date(value as string) : value,
          ]),
        ),
      ]);
    }
    // A re-run rewrites the same keys with the same rows.
    expect(await exportHours(created.id, 1, 3)).toEqual([1, 1]);
    expect(await s3.keys("sessions-parquet/")).toEqual(keys);
  });

  it("upserts into PostgreSQL by session id: a re-run adds nothing, a session that changed again is replaced", async () => {
    const created = await createExport("sessions", postgresDestination("burrow_sessions"));
    expect(await exportHours(created.id, 1, 4)).toEqual([1, 1, 1]);
    const read = async () =>
      (await readTable<Record<string, unknown>>("burrow_sessions", "session_id")).map((row) =>
        Object.fromEntries(Object.entries(row).map(([name, value]) => [name, value instanceof Date ? value.toISOString() : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value])),
      );
    const first = await read();
    expect(first.map((row) => row.session_id)).toEqual(["s-one", "s-three", "s-two"]);
    expect(first[0]).toEqual(expected[0]);
    expect(first[2]).toEqual(expected[1]);
    expect(await exportHours(created.id, 1, 4)).toEqual([1, 1, 1]);
    expect(await read()).toEqual(first);

    // s-two gets a late event, merged in hour 6: its row is replaced.
    await sendBatch(token, [{ event: "$pageview", distinct_id: "visitor", uuid: "0190a000-0000-7000-9000-000000000006", timestamp: iso(H(1, 40)), properties: { $session_id: "s-two", $current_url: "https://shop.example/c" } }]);
    await (db.events as PostgresEventStore).mergeSessionDeltas();
    await db.sql.query(`UPDATE sessions SET updated_at = $2 WHERE project_id = $1 AND session_id = 's-two'`, [projectId, H(6, 0)]);
    expect(await exportHours(created.id, 6, 7)).toEqual([1]);
    const after = await read();
    expect(after[2]).toMatchObject({ session_id: "s-two", pageview_count: 2, duration: 600, exit_url: "https://shop.example/c", _inserted_at: iso(H(6, 0)) });
    expect(after.slice(0, 2)).toEqual(first.slice(0, 2));
  });
});

describe.skipIf(testEventStoreKind === "clickhouse")("events as Parquet", () => {
  it("holds exactly the events ingested in the interval, timestamps as timestamps and properties as JSON strings; a re-run rewrites the same key", async () => {
    const uuids: string[] = [];
    for (const [n, at] of [[11, H(7, 0)], [12, H(7, 30)], [13, H(7, 59)], [14, H(8, 0)]] as const) {
      const uuid = `0190a000-0000-7000-a000-${String(n).padStart(12, "0")}`;
      await sendBatch(token, [{ event: `e${n}`, distinct_id: "buyer", uuid, timestamp: iso(H(5, n)), properties: { n, cart: { items: [n] } } }]);
      await db.sql.query(`UPDATE events SET created_at = $2 WHERE project_id = $1 AND uuid = $3::uuid`, [projectId, at, uuid]);
      if (at < H(8)) uuids.push(uuid);
    }
    const created = await createExport("events", s3Destination("events-parquet", { file_format: "Parquet", compression: "gzip" }));
    expect(await exportHours(created.id, 7, 8)).toEqual([3]);
    const key = `events-parquet/${fileName(7, "parquet.gz")}`;
    expect(await s3.keys("events-parquet/")).toEqual([key]);
    const read = async () => parquetReadObjects({ file: arrayBuffer(await s3.object(key)), compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) } });
    const rows = await read();
    expect(rows.map((row) => row.uuid)).toEqual(uuids);
    expect(rows[0]).toMatchObject({ event: "e11", distinct_id: "buyer", timestamp: H(5, 11), created_at: H(7, 0), _inserted_at: H(7, 0), team_id: BigInt(projectId) });
    expect(JSON.parse(rows[0]!.properties as string)).toMatchObject({ n: 11, cart: { items: [11] } });
    expect(await exportHours(created.id, 7, 8)).toEqual([3]);
    expect(await s3.keys("events-parquet/")).toEqual([key]);
    expect((await read()).map((row) => row.uuid)).toEqual(uuids);
  });
});

describe("the sessions model as ingestion writes it, on either event store", () => {
  it("exports each session with the interval its latest event was stored in, its counts and exit from all its events", async () => {
    // Whole seconds apart: an S3 key names its interval's bounds to the second.
    const nextSecond = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_010 - (Date.now() % 1_000)));
      return new Date(Math.floor(Date.now() / 1_000) * 1_000);
    };
    // PostgreSQL's sessions follow the events' deltas a moment after each insert (at once here); ClickHouse's at insert.
    const settle = async () => {
      if (testEventStoreKind !== "clickhouse") await (db.events as PostgresEventStore).mergeSessionDeltas();
    };
    const event = (n: number, name: string, session: string, minute: number, properties: object = {}) => ({
      event: name,
      distinct_id: "either",
      uuid: `0190a000-0000-7000-b000-${String(n).padStart(12, "0")}`,
      timestamp: iso(H(9, minute)),
      properties: { $session_id: session, ...properties },
    });
    const start = await nextSecond();
    await sendBatch(token, [
      event(1, "$pageview", "either-one", 0, { $current_url: "https://either.example/a" }),
      event(2, "$pageview", "either-two", 10, { $current_url: "https://either.example/b?x=1" }),
    ]);
    await settle();
    const middle = await nextSecond();
    await sendBatch(token, [event(3, "$pageview", "either-two", 12, { $current_url: "https://either.example/c" }), event(4, "$autocapture", "either-three", 20)]);
    await settle();
    const end = await nextSecond();
    const [person] = await db.sql.query<{ uuid: string }>(`SELECT p.uuid::text FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.distinct_id = 'either'`);

    const created = await createExport("sessions", s3Destination("either/{table}"));
    const intervals = [{ id: randomUUID(), start, end: middle }, { id: randomUUID(), start: middle, end }];
    expect(await scheduleRuns(db.worker.as("test"), created.id, intervals, null, end)).toBe(true);
    await drain();
    const done = await call(runs.GET, "GET", `batch_exports/${created.id}/runs/`, { id: created.id });
    const results = done.body.results as { status: string; latest_error: string | null; records_completed: number }[];
    expect(results.map((run) => [run.status, run.latest_error])).toEqual([["Completed", null], ["Completed", null]]);

    const fileOf = async ({ start: from, end: to }: { start: Date; end: Date }) => {
      const key = `either/sessions/${from.toISOString().replace(".000Z", "+00:00")}-${to.toISOString().replace(".000Z", "+00:00")}.jsonl`;
      return (await s3.object(key)).toString("utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    };
    const first = await fileOf(intervals[0]!);
    const second = await fileOf(intervals[1]!);
    // either-two changed again in the second interval: it goes out there only, with both its events.
    expect(first.map((row) => row.session_id)).toEqual(["either-one"]);
    expect(second.map((row) => row.session_id).sort()).toEqual(["either-three", "either-two"]);
    expect(first[0]).toMatchObject({ team_id: projectId, distinct_id: "either", person_id: person!.uuid, pageview_count: 1, duration: 0, entry_url: "https://either.example/a", exit_url: "https://either.example/a" });
    expect(second.find((row) => row.session_id === "either-two")).toMatchObject({
      person_id: person!.uuid,
      start_timestamp: iso(H(9, 10)),
      end_timestamp: iso(H(9, 12)),
      duration: 120,
      pageview_count: 2,
      autocapture_count: 0,
      entry_url: "https://either.example/b?x=1",
      entry_pathname: "/b",
      exit_url: "https://either.example/c",
      exit_pathname: "/c",
    });
    expect(second.find((row) => row.session_id === "either-three")).toMatchObject({ pageview_count: 0, autocapture_count: 1, entry_url: null, exit_url: null });
    for (const row of [...first, ...second]) {
      const changed = new Date(row._inserted_at as string);
      const interval = row === first[0] ? intervals[0]! : intervals[1]!;
      expect(changed >= interval.start && changed < interval.end, row.session_id as string).toBe(true);
    }
  });
});
