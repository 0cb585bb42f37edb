/**
 * Batch exports end to end on a real database with real receivers on loopback: an
 * S3-compatible server (s3rver, checking signatures), a second PostgreSQL database, and an
 * HTTP sink. Events are captured through the real /batch/ handler, then their ingestion
 * times are set by hand so that intervals are known: a backfill exports exactly the events
 * ingested in its range (a late event in the interval it arrived in), a re-run adds no
 * duplicates (keys, row counts and uuids compared), a stopped run resumes from its cursor,
 * and a failing receiver is retried.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createEmptyPostgresDatabase, createTestDatabase, testEventStoreKind } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { startTestS3, type TestS3 } from "@/test-support/s3";
import { intervalStart } from "./intervals";
import { executeRun, runBatchExportsPass, runnerOptions, scheduleDueRuns, startBatchExports, stopBatchExports } from "./runner";
import { claimRun, scheduleRuns } from "./store";

let db: Database;
let projectId: number;
let apiKey: string;
let token: string;
let s3: TestS3;
let target: { url: string; drop(): Promise<void> };
let sink: http.Server;
let sinkPort = 0;
const sinkBodies: { uuids: string[]; apiKey: string }[] = [];
const sinkScript: number[] = [];

const list = restRoute("projects", "batch_exports");
const one = restRoute("projects", "batch_exports/:id");
const runs = restRoute("projects", "batch_exports/:id/runs");
const backfills = restRoute("projects", "batch_exports/:id/backfills");
const retry = restRoute("projects", "batch_exports/:id/runs/:run_id/retry");
const pause = restRoute("projects", "batch_exports/:id/pause");

const call = projectApiCaller(() => ({ projectId, apiKey }));

const H = (hour: number, minute = 0) => new Date(Date.UTC(2026, 0, 10, hour, minute));
const options = () => runnerOptions(db, { backoffMs: 1, maxAttempts: 3, pageRows: 3, timeoutMs: 5_000 });
/** Runs every due run now (the background timer is not started in tests). */
const drain = (overrides: object = {}) => runBatchExportsPass(db, { ...options(), settleMs: 10 * 365 * 86_400_000, ...overrides });

/** Captured events with their ingestion times set: name → uuid. */
const events = new Map<string, { uuid: string; insertedAt: Date; timestamp: Date }>();
let seq = 0;
async function ingest(name: string, insertedAt: Date, timestamp: Date = insertedAt): Promise<string> {
  const uuid = `0190a000-0000-7000-8000-${String(++seq).padStart(12, "0")}`;
  await sendBatch(token, [{ event: name, distinct_id: "exporter", uuid, timestamp: timestamp.toISOString(), properties: { n: seq } }]);
  await db.sql.query(`UPDATE events SET created_at = $2 WHERE project_id = $1 AND uuid = $3::uuid`, [projectId, insertedAt, uuid]);
  events.set(name, { uuid, insertedAt, timestamp });
  return uuid;
}
const uuidsIngested = (from: Date, to: Date) => [...events.values()].filter((e) => e.insertedAt >= from && e.insertedAt < to).map((e) => e.uuid).sort();

const jsonLines = (file: Buffer) =>
  gunzipSync(file)
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { uuid: string; event: string; timestamp: string; _inserted_at: string; properties: Record<string, unknown>; team_id: number });

function s3Destination(prefix: string) {
  return {
    type: "S3",
    config: { bucket_name: s3.bucket, region: "us-east-1", prefix, aws_access_key_id: s3.accessKeyId, aws_secret_access_key: s3.secretAccessKey, endpoint_url: s3.endpoint, compression: "gzip" },
  };
}

async function createExport(name: string, destination: object, extra: object = {}) {
  const response = await call(list.POST, "POST", "batch_exports/", {}, { name, interval: "hour", destination, ...extra });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; destination: { config: Record<string, unknown> } };
}

async function backfill(id: string, start: Date, end: Date) {
  const response = await call(backfills.POST, "POST", `batch_exports/${id}/backfills/`, { id }, { start_at: start.toISOString(), end_at: end.toISOString() });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; total_expected_runs: number; status: string };
}

async function runsOf(id: string) {
  const response = await call(runs.GET, "GET", `batch_exports/${id}/runs/`, { id });
  expect(response.status).toBe(200);
  return response.body.results as { id: string; status: string; records_completed: number; bytes_exported: number; data_interval_start: string; latest_error: string | null; backfill: string | null }[];
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "exports@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  token = owner.project_api_key;
  s3 = await startTestS3("exports");
  target = await createEmptyPostgresDatabase();
  sink = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const status = sinkScript.shift() ?? 200;
      if (status < 300) {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { api_key: string; batch: { uuid: string }[] };
        sinkBodies.push({ apiKey: body.api_key, uuids: body.batch.map((e) => e.uuid) });
      }
      res.writeHead(status).end(status < 300 ? '{"status":1}' : "down");
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sinkPort = (sink.address() as AddressInfo).port;
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";

  // Hours 1, 2 and 3 of 10 January by ingestion time, and one before and one after the range.
  await ingest("before", H(0, 59));
  await ingest("h1-a", H(1, 0));
  await ingest("h1-b", H(1, 30));
  await ingest("h1-c", H(1, 59));
  await ingest("h2-a", H(2, 10));
  for (let i = 0; i < 5; i++) await ingest(`h3-${i}`, H(3, 5 + i));
  // Late: its timestamp is in hour 1, but it arrived in hour 3.
  await ingest("late", H(3, 40), H(1, 15));
  await ingest("after", H(4, 0));
});

afterAll(async () => {
  sink.closeAllConnections();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  await s3.close();
  await target.drop();
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  await closeDb();
});

describe.skipIf(testEventStoreKind === "clickhouse")("batch exports", () => {
  it("refuses loopback endpoints unless allowlisted, models a destination cannot take and bad input, with clear 400s", async () => {
    delete process.env.BURROW_OUTBOUND_ALLOWLIST;
    const refused = await call(list.POST, "POST", "batch_exports/", {}, { name: "x", interval: "hour", destination: s3Destination("") });
    expect(refused.status).toBe(400);
    expect(refused.body.attr).toBe("destination__config__endpoint_url");
    const pgRefused = await call(list.POST, "POST", "batch_exports/", {}, { name: "x", interval: "hour", destination: { type: "Postgres", config: { host: "10.0.0.1", user: "u", database: "d" } } });
    expect(pgRefused.status).toBe(400);
    expect(pgRefused.body.attr).toBe("destination__config__host");
    process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
    const persons = await call(list.POST, "POST", "batch_exports/", {}, { name: "x", model: "persons", interval: "hour", destination: { type: "HTTP", config: { url: `http://127.0.0.1:${sinkPort}/` } } });
    expect(persons.status).toBe(400);
    expect(persons.body.detail).toMatch(/HTTP destination exports events only/);
    for (const bad of [{ interval: "minute" }, { destination: { type: "Snowflake", config: {} } }, { destination: { type: "S3", config: { bucket_name: "B!" } } }, { name: "" }]) {
      const response = await call(list.POST, "POST", "batch_exports/", {}, { name: "x", interval: "hour", destination: s3Destination(""), ...bad });
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.type).toBe("validation_error");
    }
    const missing = await call(runs.GET, "GET", "batch_exports/00000000-0000-4000-8000-000000000000/runs/", { id: "00000000-0000-4000-8000-000000000000" });
    expect(missing.status).toBe(404);
  });

  it("stores secrets sealed and answers them masked; a masked one sent back keeps the stored one", async () => {
    const created = await createExport("secrets", { type: "Postgres", config: { host: "127.0.0.1", user: "u", password: "a-long-database-password-1234", database: "d" } });
    expect(created.destination.config.password).toBe("••••1234");
    const [raw] = await db.sql.query<{ config: { password: string } }>(`SELECT destination_config AS config FROM batch_exports WHERE id = $1::uuid`, [created.id]);
    expect(raw!.config.password).toMatch(/^enc:v1:/);
    expect(JSON.stringify(raw)).not.toContain("a-long-database-password");
    const patched = await call(one.PATCH, "PATCH", `batch_exports/${created.id}/`, { id: created.id }, { name: "renamed", destination: { type: "Postgres", config: { host: "127.0.0.1", user: "u", password: "••••1234", database: "d" } } });
    expect(patched.status).toBe(200);
    const [after] = await db.sql.query<{ config: { password: string } }>(`SELECT destination_config AS config FROM batch_exports WHERE id = $1::uuid`, [created.id]);
    expect(after!.config.password).toBe(raw!.config.password);
    expect((await call(one.DELETE, "DELETE", `batch_exports/${created.id}/`, { id: created.id })).status).toBe(204);
    expect((await call(one.GET, "GET", `batch_exports/${created.id}/`, { id: created.id })).status).toBe(404);
  });

  it("backfills to S3: one gzip JSON Lines file per interval holding exactly the events ingested in it, the late one in its arrival hour", async () => {
    const created = await createExport("to s3", s3Destination("burrow/{table}/{year}-{month}-{day}"), { paused: false, start_at: H(1).toISOString(), end_at: H(4).toISOString() });
    const made = await backfill(created.id, H(1), H(4));
    expect(made.total_expected_runs).toBe(3);
    const pass = await drain();
    expect(pass.ran).toBe(3);
    const done = await runsOf(created.id);
    expect(done.map((r) => [r.data_interval_start, r.status, r.records_completed])).toEqual([
      [H(3).toISOString(), "Completed", 6],
      [H(2).toISOString(), "Completed", 1],
      [H(1).toISOString(), "Completed", 3],
    ]);
    const keys = await s3.keys("burrow/");
    expect(keys).toEqual([1, 2, 3].map((h) => `burrow/events/2026-01-10/${H(h).toISOString().replace(".000Z", "+00:00")}-${H(h + 1).toISOString().replace(".000Z", "+00:00")}.jsonl.gz`));
    for (const [i, key] of keys.entries()) {
      const file = await s3.object(key);
      const rows = jsonLines(file);
      expect(rows.map((r) => r.uuid).sort()).toEqual(uuidsIngested(H(i + 1), H(i + 2)));
      expect(done.find((r) => r.data_interval_start === H(i + 1).toISOString())!.bytes_exported).toBe(file.length);
      for (const row of rows) expect(row.team_id).toBe(projectId);
    }
    const hour3 = jsonLines(await s3.object(keys[2]!));
    const late = hour3.find((r) => r.uuid === events.get("late")!.uuid)!;
    expect(late.timestamp).toBe(H(1, 15).toISOString());
    expect(late._inserted_at).toBe(H(3, 40).toISOString());
    expect(late.properties).toMatchObject({ n: expect.any(Number) });

    // A re-run: the same keys, the same rows, no duplicates.
    await backfill(created.id, H(1), H(4));
    expect((await drain()).ran).toBe(3);
    expect(await s3.keys("burrow/")).toEqual(keys);
    const all = (await Promise.all(keys.map(async (key) => jsonLines(await s3.object(key)).map((r) => r.uuid)))).flat();
    expect(all.sort()).toEqual(uuidsIngested(H(1), H(4)));
    expect(new Set(all).size).toBe(all.length);
    // And a run retried by hand rewrites its own file.
    const first = (await runsOf(created.id)).find((r) => r.data_interval_start === H(2).toISOString())!;
    const retried = await call(retry.POST, "POST", `batch_exports/${created.id}/runs/${first.id}/retry/`, { id: created.id, run_id: first.id });
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe("Starting");
    expect((await drain()).ran).toBe(1);
    expect(await s3.keys("burrow/")).toEqual(keys);
  });

  it("upserts into another PostgreSQL database by uuid: a re-run adds nothing, and a stopped run resumes after its cursor", async () => {
    const url = new URL(target.url);
    const created = await createExport("to postgres", {
      type: "Postgres",
      config: { host: "127.0.0.1", port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: "", database: url.pathname.slice(1), table_name: "burrow_events" },
    });
    const read = async () => {
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        return (await client.query<{ uuid: string }>(`SELECT uuid::text FROM burrow_events ORDER BY uuid`)).rows.map((r) => r.uuid);
      } finally {
        await client.end();
      }
    };
    await backfill(created.id, H(3), H(4));
    // The run stops after its first page (at most 3 rows): it stays Running with its cursor, as if the process had died.
    const sql = db.worker.as("batch-exports");
    const claimed = (await claimRun(sql, 60_000))!;
    let pages = 0;
    await executeRun(db, sql, claimed, options(), () => ++pages >= 1);
    const [stopped] = await runsOf(created.id);
    expect(stopped!.status).toBe("Running");
    expect(stopped!.records_completed).toBeGreaterThan(0);
    expect(stopped!.records_completed).toBeLessThan(6);
    expect(await read()).toHaveLength(stopped!.records_completed);
    // Its lease runs out: the next pass takes it again and goes on after the cursor.
    await db.sql.query(`UPDATE batch_export_runs SET next_attempt_at = now() - interval '1 second' WHERE id = $1::uuid`, [claimed.id]);
    expect((await drain()).ran).toBe(1);
    const [resumed] = await runsOf(created.id);
    expect(resumed!.status).toBe("Completed");
    expect(resumed!.records_completed).toBe(6);
    expect(await read()).toEqual(uuidsIngested(H(3), H(4)));

    await backfill(created.id, H(1), H(4));
    expect((await drain()).ran).toBe(3);
    const rows = await read();
    expect(rows).toEqual(uuidsIngested(H(1), H(4)));
    await backfill(created.id, H(1), H(4));
    await drain();
    expect(await read()).toEqual(rows);
  });

  it("posts PostHog /batch bodies to an HTTP receiver, retrying a 500, with the token as api_key", async () => {
    const created = await createExport("to http", { type: "HTTP", config: { url: `http://127.0.0.1:${sinkPort}/batch/`, token: "phc_receiving_project_token" } });
    expect(created.destination.config.token).toBe("••••oken");
    sinkScript.push(500);
    await backfill(created.id, H(1), H(2));
    // A backoff no slow machine outlasts between two drains; the test then moves the retry's
    // time into the past itself.
    await drain({ backoffMs: 60_000 });
    const [failed] = await runsOf(created.id);
    expect(failed!.status).toBe("FailedRetryable");
    expect(failed!.latest_error).toMatch(/answered 500/);
    expect((await drain()).ran).toBe(0);
    await db.sql.query(`UPDATE batch_export_runs SET next_attempt_at = now() - interval '1 second' WHERE id = $1::uuid`, [failed!.id]);
    expect((await drain()).ran).toBe(1);
    const [completed] = await runsOf(created.id);
    expect(completed!.status).toBe("Completed");
    expect(sinkBodies.flatMap((b) => b.uuids).sort()).toEqual(uuidsIngested(H(1), H(2)));
    expect(new Set(sinkBodies.map((b) => b.apiKey))).toEqual(new Set(["phc_receiving_project_token"]));
  });

  it("schedules a run per completed interval once, and none for a paused export", async () => {
    const created = await createExport("scheduled", s3Destination("scheduled"));
    const sql = db.worker.as("batch-exports");
    const [row] = await db.sql.query<{ created_at: Date }>(`SELECT created_at FROM batch_exports WHERE id = $1::uuid`, [created.id]);
    // Two minutes past the third hour after the one it was created in: three intervals are complete (created at 10:59:30, not four).
    const later = new Date(intervalStart(row!.created_at, "hour").getTime() + 3 * 3_600_000 + 120_000);
    const first = await scheduleDueRuns(sql, { ...options(), now: () => later });
    expect(first).toBeGreaterThanOrEqual(3);
    const count = async () => (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM batch_export_runs WHERE batch_export_id = $1::uuid`, [created.id]))[0]!.n;
    expect(await count()).toBe(3);
    expect(await scheduleDueRuns(sql, { ...options(), now: () => later })).toBe(0);
    expect(await count()).toBe(3);
    // A second server that read the bookmark before the first moved it writes nothing.
    expect(await scheduleRuns(sql, created.id, [{ id: randomUUID(), start: later, end: later }], null, later)).toBe(false);
    expect(await count()).toBe(3);
    expect((await call(pause.POST, "POST", `batch_exports/${created.id}/pause/`, { id: created.id })).body.paused).toBe(true);
    await scheduleDueRuns(sql, { ...options(), now: () => new Date(later.getTime() + 5 * 3_600_000) });
    expect(await count()).toBe(3);
    // A paused export's waiting runs are not taken.
    const due = await claimRun(sql, 60_000);
    expect(due?.batch_export_id ?? null).not.toBe(created.id);
  });

  it("takes a run a crash left Running at the first background pass, firstPassAfterMs after the start (at once on the embedded database; after its lease on a server)", async () => {
    await drain();
    const created = await createExport("left running", { type: "HTTP", config: { url: `http://127.0.0.1:${sinkPort}/batch/`, token: "phc_crash" } });
    await backfill(created.id, H(3), H(4));
    const sql = db.worker.as("batch-exports");
    const claimed = (await claimRun(sql, 60_000))!;
    expect(claimed.batch_export_id).toBe(created.id);
    await executeRun(db, sql, claimed, options(), () => true);
    expect((await runsOf(created.id))[0]!.status).toBe("Running");

    startBatchExports(db, { ...options(), firstPassAfterMs: 200 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await runsOf(created.id))[0]!.status).toBe("Running");
      let status = "Running";
      for (const deadline = Date.now() + (db.worker.embedded ? 5_000 : 500); Date.now() < deadline && status === "Running"; await new Promise((resolve) => setTimeout(resolve, 50))) {
        status = (await runsOf(created.id))[0]!.status;
      }
      // A PostgreSQL server may have another process running it: only its lease ending frees it.
      expect(status).toBe(db.worker.embedded ? "Completed" : "Running");
    } finally {
      await stopBatchExports();
    }
  });
});
