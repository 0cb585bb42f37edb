/**
 * Session replay end to end on a real database: settings through `PATCH /api/projects/:id/`
 * and remote config, `/s/` bodies through the real handler (every encoding, hostile ones),
 * chunks read back byte for byte, metadata, the recordings API with a personal API key,
 * deletion with a person, and the byte budget.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import LZString from "lz-string";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { handleFlags, handleRemoteConfig } from "@/server/http/sdk/flags";
import { handleSnapshotsRoute } from "@/server/http/sdk/recordings";
import { sendBatch } from "@/test-support/ingestion";
import { runPersonDeletions } from "@/server/persons/deletion-worker";
import { enforceRecordingBudget, runRecordingUpkeep } from "./budget";
import { listRecordings, MAX_SNAPSHOT_RESPONSE_BYTES, recordingPlayback, recordingStore, updateRecordingSettings } from "./service";
import { recordingListInput } from "./contract";
import { testContext } from "@/test-support/context";
import { peakRssDuring } from "@/test-support/peak-rss";
import { gzipBomb, packed, pageItems, RECORDING_T0, snapshotEvent } from "@/test-support/recordings";

type Json = Record<string, any>;
let db: Database;
let projectId: number;
let token: string;
let personalKey: string;
let quietToken: string;
let quietProjectId: number;

async function rest(method: "GET" | "PATCH" | "DELETE", pattern: string, path: string, body?: unknown, params: Record<string, string> = {}) {
  const handler = restRoute("projects", pattern)[method] as (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
  const request = new Request(`http://burrow.test/api/projects/${projectId}/${path}`, {
    method,
    headers: { authorization: `Bearer ${personalKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve({ project_id: String(projectId), ...params }) });
  const text = await response.text();
  let json: Json | null = null;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json: json as Json };
}

async function sendSnapshots(body: BodyInit, init: { query?: string; headers?: Record<string, string> } = {}) {
  const response = await handleSnapshotsRoute(
    new Request(`http://burrow.test/s/${init.query ?? ""}`, { method: "POST", headers: { "content-type": "text/plain", ...init.headers }, body }),
  );
  return { status: response.status, json: (await response.json()) as Json };
}

const list = (query: Record<string, string> = {}) => {
  const search = new URLSearchParams({ date_from: "2020-01-01", ...query }).toString();
  return rest("GET", "session_recordings", `session_recordings/?${search}`);
};
const ids = (answer: { json: Json }) => (answer.json.results as { id: string }[]).map((row) => row.id).sort();

async function storedChunks(sessionId: string, project = projectId) {
  const store = recordingStore(db);
  return store.chunksWithData(project, sessionId, (await store.chunks(project, sessionId)).map((chunk) => chunk.id));
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "replay@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  token = owner.project_api_key;
  personalKey = owner.personal_api_key;
  quietToken = "phc_replay_quiet_project";
  quietProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Quiet", apiToken: quietToken } })).id;
});

afterAll(async () => {
  await closeDb();
});

describe(`recording settings and remote config (${testStoresName})`, () => {
  it("remote config answers sessionRecording: false while recording is off", async () => {
    const response = await handleRemoteConfig(new Request(`http://burrow.test/array/${token}/config`));
    expect(((await response.json()) as Json).sessionRecording).toBe(false);
  });

  it("PATCH /api/projects/:id/ sets PostHog's team fields, and remote config answers the recorder's object", async () => {
    const patched = await rest("PATCH", "", "", {
      session_recording_opt_in: true,
      session_recording_sample_rate: "0.5",
      session_recording_minimum_duration_milliseconds: 2000,
      session_recording_linked_flag: { id: 1, key: "beta", variant: "on" },
      session_recording_url_trigger_config: [{ url: "^https://shop\\.example/", matching: "regex" }],
      session_recording_url_blocklist_config: [{ url: "/admin", matching: "regex" }],
      capture_console_log_opt_in: true,
      session_recording_masking_config: { maskAllInputs: true, blockSelector: ".secret" },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ session_recording_opt_in: true, session_recording_sample_rate: 0.5, session_recording_retention_period: "30d" });
    const config = (await (await handleRemoteConfig(new Request(`http://burrow.test/array/${token}/config`))).json()) as Json;
    expect(config.sessionRecording).toEqual({
      endpoint: "/s/",
      consoleLogRecordingEnabled: true,
      recorderVersion: "v2",
      sampleRate: "0.50",
      minimumDurationMilliseconds: 2000,
      linkedFlag: { flag: "beta", variant: "on" },
      networkPayloadCapture: null,
      masking: { maskAllInputs: true, blockSelector: ".secret" },
      urlTriggers: [{ url: "^https://shop\\.example/", matching: "regex" }],
      urlBlocklist: [{ url: "/admin", matching: "regex" }],
      eventTriggers: [],
      triggerMatchType: null,
      scriptConfig: null,
      recordCanvas: false,
      canvasFps: null,
      canvasQuality: null,
      version: 1,
    });
    const script = await (await handleRemoteConfig(new Request(`http://burrow.test/array/${token}/config.js`))).text();
    expect(script).toContain('"endpoint":"/s/"');
    const flags = await handleFlags(
      new Request("http://burrow.test/flags/?v=2&config=true", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, distinct_id: "x" }) }),
    );
    expect(((await flags.json()) as Json).sessionRecording).toMatchObject({ endpoint: "/s/", sampleRate: "0.50" });
  });

  it("refuses bad settings with a 400 naming the field, and resets them", async () => {
    const bad = await rest("PATCH", "", "", { session_recording_sample_rate: 2 });
    expect(bad.status).toBe(400);
    expect(bad.json.attr).toBe("session_recording_sample_rate");
    expect((await rest("PATCH", "", "", { session_recording_url_trigger_config: [{ url: "([", matching: "regex" }] })).status).toBe(400);
    expect((await rest("PATCH", "", "", { session_recording_minimum_duration_milliseconds: 60_000 })).status).toBe(400);
    const reset = await rest("PATCH", "", "", {
      session_recording_sample_rate: null,
      session_recording_minimum_duration_milliseconds: null,
      session_recording_linked_flag: null,
      session_recording_url_trigger_config: null,
      session_recording_url_blocklist_config: [],
    });
    expect(reset.status).toBe(200);
    const config = (await (await handleRemoteConfig(new Request(`http://burrow.test/array/${token}/config`))).json()) as Json;
    expect(config.sessionRecording).toMatchObject({ sampleRate: null, minimumDurationMilliseconds: null, linkedFlag: null, urlTriggers: [] });
  });
});

describe(`/s/ ingestion (${testStoresName})`, () => {
  it("stores a gzip body as one chunk per (session, window), read back byte for byte", async () => {
    const items = pageItems();
    const other = pageItems(RECORDING_T0 + 30_000).slice(2, 4);
    const body = [
      snapshotEvent({ token, sessionId: "sess-gzip", windowId: "win-a", distinctId: "ada", items }),
      snapshotEvent({ token, sessionId: "sess-gzip", windowId: "win-b", distinctId: "ada", items: other }),
    ];
    const answer = await sendSnapshots(gzipSync(JSON.stringify(body)));
    expect(answer).toEqual({ status: 200, json: { status: "Ok" } });
    const chunks = await storedChunks("sess-gzip");
    expect(chunks.map((chunk) => chunk.windowId)).toEqual(["win-a", "win-b"]);
    const expected = items.map((item) => `${JSON.stringify(["win-a", item])}\n`).join("");
    expect(gunzipSync(chunks[0]!.data).toString("utf8")).toBe(expected);
    // The API's blocks are the same bytes.
    const sources = await rest("GET", "session_recordings/:id/snapshots", "session_recordings/sess-gzip/snapshots/", undefined, { id: "sess-gzip" });
    expect(sources.json.sources.map((s: Json) => s.blob_key)).toEqual(["0", "1"]);
    const blocks = await rest("GET", "session_recordings/:id/snapshots", "session_recordings/sess-gzip/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=0", undefined, { id: "sess-gzip" });
    expect(blocks.headers.get("content-type")).toBe("application/jsonl");
    expect(blocks.text).toBe(expected);
  });

  it("keeps the metadata: times, active seconds, clicks, keypresses, console errors, start URL", async () => {
    const row = await rest("GET", "session_recordings/:id", "session_recordings/sess-gzip/", undefined, { id: "sess-gzip" });
    expect(row.status).toBe(200);
    expect(row.json).toMatchObject({
      id: "sess-gzip",
      distinct_id: "ada",
      start_time: new Date(RECORDING_T0).toISOString(),
      end_time: new Date(RECORDING_T0 + 32_000).toISOString(),
      recording_duration: 32,
      click_count: 3,
      keypress_count: 1,
      console_error_count: 1,
      start_url: "https://shop.example/cart",
      snapshot_source: "web",
      snapshot_library: "web",
      person: { id: null, distinct_ids: ["ada"] },
    });
    // Segments: 1 s–3 s and 20 s of window a (2002 ms), 31 s–32 s of window b (1001 ms).
    expect(row.json.active_seconds).toBe(3);
    expect(row.json.storage_bytes).toBeGreaterThan(0);
  });

  it("reads plain, base64, lz64 and form bodies and appends to the recording", async () => {
    const event = (n: number) => [snapshotEvent({ token, sessionId: "sess-enc", distinctId: "bob", items: pageItems(RECORDING_T0 + n * 60_000).slice(0, 3) })];
    expect((await sendSnapshots(JSON.stringify(event(0)), { headers: { "content-type": "application/json" } })).status).toBe(200);
    expect((await sendSnapshots(Buffer.from(JSON.stringify(event(1))).toString("base64"), { query: "?compression=base64" })).status).toBe(200);
    expect((await sendSnapshots(LZString.compressToBase64(JSON.stringify(event(2))), { query: "?compression=lz64" })).status).toBe(200);
    const form = `data=${encodeURIComponent(Buffer.from(JSON.stringify(event(3))).toString("base64"))}&compression=base64`;
    expect((await sendSnapshots(form, { headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(200);
    expect(await storedChunks("sess-enc")).toHaveLength(4);
    expect((await recordingStore(db).get(projectId, "sess-enc"))?.endTime.toISOString()).toBe(new Date(RECORDING_T0 + 3 * 60_000 + 1000).toISOString());
  });

  it("refuses hostile bodies with a 4xx and stores nothing", async () => {
    const before = await recordingStore(db).usage(projectId);
    const good = JSON.stringify([snapshotEvent({ token, sessionId: "sess-hostile", distinctId: "eve", items: pageItems() })]);
    const broken = gzipSync(good).subarray(0, 40);
    expect((await sendSnapshots(broken)).status).toBe(400);
    expect((await sendSnapshots(Buffer.alloc(50 * 1024 * 1024, 0x20))).status).toBe(413);
    // A small gzip body that inflates past the decoded limit.
    expect((await sendSnapshots(gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20)))).status).toBe(413);
    expect((await sendSnapshots(Buffer.from([0, 0, 0, 0x7b, 0]))).status).toBe(400);
    const nulDistinct = JSON.stringify([snapshotEvent({ token, sessionId: "sess-hostile", distinctId: "e\u0000ve", items: pageItems() })]);
    expect((await sendSnapshots(nulDistinct)).status).toBe(400);
    const nulSession = JSON.stringify([snapshotEvent({ token, sessionId: "sess\u0000x", distinctId: "eve", items: pageItems() })]);
    expect((await sendSnapshots(nulSession)).status).toBe(400);
    expect((await sendSnapshots(good.replace(token, "phc_wrong"))).status).toBe(401);
    const noToken = JSON.stringify([{ event: "$snapshot", properties: { $session_id: "sess-hostile", distinct_id: "eve", $snapshot_data: pageItems() } }]);
    expect((await sendSnapshots(noToken)).status).toBe(401);
    expect((await sendSnapshots(JSON.stringify([{ event: "$pageview", properties: { token } }]))).status).toBe(400);
    expect((await sendSnapshots("[]")).status).toBe(400);
    expect(await recordingStore(db).get(projectId, "sess-hostile")).toBeNull();
    expect(await recordingStore(db).usage(projectId)).toEqual(before);
  });

  it("takes a $snapshot of 200k items (within the decoded limit) with a 200, not a 503", async () => {
    const items = Array.from({ length: 200_000 }, (_, n) => ({ type: 3, timestamp: RECORDING_T0 + n }));
    const body = gzipSync(JSON.stringify([snapshotEvent({ token, sessionId: "sess-many", distinctId: "many", items })]));
    expect(await sendSnapshots(body)).toEqual({ status: 200, json: { status: "Ok" } });
    expect((await storedChunks("sess-many")).map((chunk) => chunk.eventCount)).toEqual([200_000]);
  });

  it("stores nothing for a project with recording off", async () => {
    const body = JSON.stringify([snapshotEvent({ token: quietToken, sessionId: "sess-quiet", distinctId: "q", items: pageItems() })]);
    expect((await sendSnapshots(body)).status).toBe(200);
    expect(await recordingStore(db).usage(quietProjectId)).toMatchObject({ recordings: 0, bytes: 0 });
  });
});

describe(`the recordings API (${testStoresName})`, () => {
  beforeAll(async () => {
    const send = (sessionId: string, distinctId: string, start: number, items = pageItems(start)) =>
      sendSnapshots(JSON.stringify([snapshotEvent({ token, sessionId, distinctId, items })]));
    await send("list-long", "carol", Date.parse("2026-11-10T10:00:00Z"));
    await send("list-short", "carol-anon", Date.parse("2026-11-11T10:00:00Z"), pageItems(Date.parse("2026-11-11T10:00:00Z")).slice(0, 3));
    await send("list-dave", "dave", Date.parse("2026-11-12T10:00:00Z"), pageItems(Date.parse("2026-11-12T10:00:00Z")).filter((item) => item.type !== 6));
    await sendBatch(token, [
      { event: "$pageview", distinct_id: "carol-anon", uuid: "01890000-0000-7000-8000-000000000001" },
      { event: "$identify", distinct_id: "carol", uuid: "01890000-0000-7000-8000-000000000002", properties: { $anon_distinct_id: "carol-anon", $set: { email: "carol@example.com" } } },
    ]);
    // What the sessions did, as posthog-js reports it beside the snapshots (for "events performed").
    const seen = (n: number, event: string, distinctId: string, sessionId: string, at: string, properties: Json = {}) => ({
      event,
      distinct_id: distinctId,
      uuid: `01890000-0000-7000-8000-0000000001${String(n).padStart(2, "0")}`,
      timestamp: at,
      properties: { $session_id: sessionId, ...properties },
    });
    await sendBatch(token, [
      seen(1, "$pageview", "carol", "list-long", "2026-11-10T10:00:01Z", { $pathname: "/pricing" }),
      seen(2, "purchase", "carol", "list-long", "2026-11-10T10:00:09Z", { plan: "pro" }),
      seen(3, "$pageview", "carol-anon", "list-short", "2026-11-11T10:00:01Z", { $pathname: "/home" }),
      seen(4, "$pageview", "dave", "list-dave", "2026-11-12T10:00:01Z", { $pathname: "/pricing" }),
      seen(5, "purchase", "dave", "list-dave", "2026-11-12T10:00:05Z", { plan: "free" }),
      seen(6, "purchase", "dave", "not-recorded", "2026-11-12T11:00:00Z", { plan: "pro" }),
    ]);
  });

  it("filters by distinct id, person, date range, duration and console errors", async () => {
    expect(ids(await list({ distinct_ids: JSON.stringify(["dave"]) }))).toEqual(["list-dave"]);
    const [carol] = await db.sql.query<{ uuid: string }>(
      "SELECT p.uuid::text AS uuid FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = 'carol'",
      [projectId],
    );
    const byPerson = await list({ person_uuid: carol!.uuid });
    expect(ids(byPerson)).toEqual(["list-long", "list-short"]);
    expect(byPerson.json.results[0].person).toMatchObject({ uuid: carol!.uuid, name: "carol@example.com" });
    expect(ids(await list({ date_from: "2026-11-11T00:00:00Z", date_to: "2026-11-11T23:59:59Z" }))).toEqual(["list-short"]);
    const long = await list({ date_to: "2026-11-13", having_predicates: JSON.stringify([{ key: "duration", operator: "gt", value: 10, type: "recording" }]) });
    expect(ids(long)).toEqual(["list-dave", "list-long"]);
    const errors = await list({ date_to: "2026-11-13", console_log_filters: JSON.stringify([{ key: "level", value: ["error"], operator: "exact", type: "log_entry" }]) });
    expect(ids(errors)).toEqual(["list-long"]);
    const page = await list({ date_to: "2026-11-13", limit: "2", order: "start_time" });
    expect(page.json).toMatchObject({ has_next: true, version: 4 });
    expect(page.json.results.map((row: Json) => row.id)).toEqual(["list-dave", "list-short"]);
    expect((await list({ having_predicates: "not json" })).status).toBe(400);
    expect((await list({ order: "nonsense" })).status).toBe(400);
  });

  it("compares count filters as numbers: 1.5 and 1e10 are thresholds, not a 500", async () => {
    const having = (key: string, operator: string, value: number) => list({ date_to: "2026-11-13", having_predicates: JSON.stringify([{ key, operator, value }]) });
    // list-long and list-dave have 2 clicks, list-short none; list-long the only console error.
    expect(ids(await having("click_count", "gt", 1.5))).toEqual(["list-dave", "list-long"]);
    expect(ids(await having("click_count", "gt", 2.5))).toEqual([]);
    expect(ids(await having("click_count", "lt", 1e10))).toEqual(["list-dave", "list-long", "list-short"]);
    expect(ids(await having("keypress_count", "gte", 0.5))).toEqual(["list-dave", "list-long"]);
    expect(ids(await having("console_error_count", "exact", 1e10))).toEqual([]);
    expect(ids(await having("console_error_count", "gt", -1e300))).toEqual(["list-dave", "list-long", "list-short"]);
  });

  it("filters by events performed, with their properties, on the event store's data", async () => {
    const performed = (events: Json[], query: Record<string, string> = {}) => list({ events: JSON.stringify(events), ...query });
    expect(ids(await performed([{ id: "purchase", type: "events" }]))).toEqual(["list-dave", "list-long"]);
    const pro = [{ key: "plan", value: "pro", operator: "exact", type: "event" }];
    expect(ids(await performed([{ id: "purchase", type: "events", properties: pro }]))).toEqual(["list-long"]);
    const pricing = { id: "$pageview", type: "events", properties: [{ key: "$pathname", value: "/pricing", operator: "exact", type: "event" }] };
    expect(ids(await performed([pricing]))).toEqual(["list-dave", "list-long"]);
    // Several: all of them (AND, the default) or any (OR); with the other filters by the same operand.
    const home = { id: "$pageview", type: "events", properties: [{ key: "$pathname", value: "/home", operator: "exact", type: "event" }] };
    expect(ids(await performed([pricing, { id: "purchase", properties: pro }]))).toEqual(["list-long"]);
    expect(ids(await performed([home, { id: "purchase", properties: pro }], { operand: "OR" }))).toEqual(["list-long", "list-short"]);
    expect(ids(await performed([pricing], { distinct_ids: JSON.stringify(["dave"]) }))).toEqual(["list-dave"]);
    // The date range applies to the events too.
    expect(ids(await performed([pricing], { date_from: "2026-11-12T00:00:00Z" }))).toEqual(["list-dave"]);
    expect(ids(await performed([{ id: "never-sent" }]))).toEqual([]);
    // Bad filters are a 400 on `events`.
    for (const bad of ["[{}]", '[{"id":""}]', '[{"id":"x","type":"actions"}]', '[{"id":"x","properties":[{"key":"p","operator":"regex","value":"(("}]}]', '[{"id":"x","properties":[{"type":"cohort","key":"id","value":999999}]}]', "{"]) {
      const answer = await list({ events: bad });
      expect(answer.status, bad).toBe(400);
    }
    // The Replay page's list (tRPC input, lists as they are) takes the same filter.
    const owner = await db.prisma.user.findFirstOrThrow({ where: { email: "replay@example.com" } });
    const page = await listRecordings(await testContext(db, owner.id, projectId), recordingListInput.parse({ date_from: "2020-01-01", events: [{ id: "purchase", type: "events" }] }));
    expect(page.results.map((row) => row.id).sort()).toEqual(["list-dave", "list-long"]);
  });

  it("answers 404 for an unknown recording and 400 for an unknown snapshot source", async () => {
    expect((await rest("GET", "session_recordings/:id", "session_recordings/nope/", undefined, { id: "nope" })).status).toBe(404);
    expect((await rest("GET", "session_recordings/:id", "session_recordings/x/", undefined, { id: "../etc" })).status).toBe(404);
    const bad = await rest("GET", "session_recordings/:id/snapshots", "session_recordings/list-dave/snapshots/?source=realtime", undefined, { id: "list-dave" });
    expect(bad.status).toBe(400);
  });

  it("DELETE removes a recording and its snapshots", async () => {
    expect((await rest("DELETE", "session_recordings/:id", "session_recordings/list-dave/", undefined, { id: "list-dave" })).status).toBe(204);
    expect((await rest("GET", "session_recordings/:id", "session_recordings/list-dave/", undefined, { id: "list-dave" })).status).toBe(404);
    expect(await storedChunks("list-dave")).toEqual([]);
    expect((await rest("DELETE", "session_recordings/:id", "session_recordings/list-dave/", undefined, { id: "list-dave" })).status).toBe(404);
  });

  it("deletes a person's recordings with the person's events", async () => {
    const [carol] = await db.sql.query<{ uuid: string }>(
      "SELECT p.uuid::text AS uuid FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = 'carol'",
      [projectId],
    );
    const handler = restRoute("projects", "persons/:id").DELETE as (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
    const response = await handler(
      new Request(`http://burrow.test/api/projects/${projectId}/persons/${carol!.uuid}/?delete_events=true`, { method: "DELETE", headers: { authorization: `Bearer ${personalKey}` } }),
      { params: Promise.resolve({ project_id: String(projectId), id: carol!.uuid }) },
    );
    expect(response.status).toBeLessThan(300);
    await runPersonDeletions(db);
    expect(await recordingStore(db).get(projectId, "list-long")).toBeNull();
    expect(await recordingStore(db).get(projectId, "list-short")).toBeNull();
    expect(await storedChunks("list-long")).toEqual([]);
    expect(await recordingStore(db).get(projectId, "sess-gzip")).not.toBeNull();
  });

  it("keys need session_recording scopes", async () => {
    const { createPersonalApiKey } = await import("@/server/accounts/service");
    const owner = await db.prisma.user.findFirstOrThrow({ where: { email: "replay@example.com" } });
    const created = await createPersonalApiKey(db.prisma, owner.id, { label: "flags only", scopes: ["feature_flag:read"] });
    const handler = restRoute("projects", "session_recordings").GET as (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
    const response = await handler(new Request(`http://burrow.test/api/projects/${projectId}/session_recordings/`, { headers: { authorization: `Bearer ${created.key}` } }), {
      params: Promise.resolve({ project_id: String(projectId) }),
    });
    expect(response.status).toBe(403);
  });
});

describe(`playback and snapshots of hostile recordings (${testStoresName})`, () => {
  const T1 = Date.parse("2026-11-25T10:00:00Z");
  // A packed value that inflates to 256 MiB of zeros (~260 KiB of gzip, ~0.9 MB in JSON, ~3 KiB on the wire); six to a request.
  let bomb: string;
  const bombItems = (start: number, count: number) =>
    Array.from({ length: count }, (_, n) =>
      n % 2 === 0
        ? { type: 2, cv: "2024-10", data: bomb, timestamp: start + n }
        : { type: 3, cv: "2024-10", data: { source: 0, texts: packed([]), attributes: packed([]), removes: packed([]), adds: bomb }, timestamp: start + n },
    );
  const send = (sessionId: string, items: Record<string, unknown>[]) => sendSnapshots(gzipSync(JSON.stringify([snapshotEvent({ token, sessionId, distinctId: "mallory", items })])));
  const playback = async (sessionId: string) => {
    const owner = await db.prisma.user.findFirstOrThrow({ where: { email: "replay@example.com" } });
    const ctx = await testContext(db, owner.id, projectId);
    const { value, rssGrowthMb } = await peakRssDuring(async () => {
      const started = performance.now();
      const answer = await recordingPlayback(ctx, sessionId);
      return { answer, ms: performance.now() - started };
    });
    return { ...value, rssGrowthMb };
  };

  beforeAll(() => {
    bomb = gzipBomb(256 * 1024 * 1024);
  });

  it("plays a recording with gzip bombs in packed values quickly, in bounded memory, without them and with everything else", async () => {
    // Accepted at /s/: ingestion stores events as sent and never inflates packed parts.
    expect((await send("sess-bomb", pageItems(T1))).status).toBe(200);
    expect((await send("sess-bomb", bombItems(T1 + 30_000, 6))).status).toBe(200);
    expect((await send("sess-bomb", pageItems(T1 + 60_000))).status).toBe(200);
    const { answer, ms, rssGrowthMb } = await playback("sess-bomb");
    expect(ms).toBeLessThan(2000);
    expect(rssGrowthMb).toBeLessThan(300);
    // Every event of the two pages, full snapshots unpacked; none of the bombs.
    const expected = [...pageItems(T1), ...pageItems(T1 + 60_000)];
    expect(answer.events.map((event) => event.timestamp)).toEqual(expected.map((item) => item.timestamp));
    expect(answer.events.filter((event) => event.type === 2).map((event) => typeof event.data)).toEqual(["object", "object"]);
    expect(answer.events.some((event) => "cv" in event)).toBe(false);
    expect(answer.truncated).toBe(true);
  });

  it("stops inflating at the playback's budget: more bombs than it covers still play quickly, up to there", async () => {
    expect((await send("sess-bombs", pageItems(T1))).status).toBe(200);
    for (let n = 0; n < 3; n++) expect((await send("sess-bombs", bombItems(T1 + 30_000 + n * 100, 6))).status).toBe(200);
    const { answer, ms, rssGrowthMb } = await playback("sess-bombs");
    expect(ms).toBeLessThan(2000);
    expect(rssGrowthMb).toBeLessThan(300);
    expect(answer.events.map((event) => event.timestamp)).toEqual(pageItems(T1).map((item) => item.timestamp));
    expect(answer.truncated).toBe(true);
  });

  it("serves a range of blocks up to the byte cap, and refuses a longer one with the keys that fit", async () => {
    // Blocks of a single 8 MB event each (a large event is sent alone): the cap falls inside 0–17.
    const block = 8_000_000;
    const big = (n: number) => [{ type: 5, data: { tag: "big", payload: "x".repeat(block) }, timestamp: T1 + n * 1000 }];
    for (let n = 0; n < 18; n++) expect((await send("sess-big", big(n))).status).toBe(200);
    const snapshots = (start: number, end: number) =>
      rest("GET", "session_recordings/:id/snapshots", `session_recordings/sess-big/snapshots/?source=blob_v2&start_blob_key=${start}&end_blob_key=${end}`, undefined, { id: "sess-big" });
    const raw = (await storedChunks("sess-big")).map((chunk) => chunk.rawBytes);
    const fit = raw.findIndex((_, n) => raw.slice(0, n + 1).reduce((a, b) => a + b, 0) > MAX_SNAPSHOT_RESPONSE_BYTES);
    expect(fit).toBeGreaterThan(0);
    const refused = await snapshots(0, 17);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ type: "validation_error", attr: "end_blob_key" });
    expect(refused.json.detail).toContain(`ask for 0–${fit - 1}, then from ${fit}`);
    const served = await snapshots(0, fit - 1);
    expect(served.status).toBe(200);
    expect(served.text.length).toBe(raw.slice(0, fit).reduce((a, b) => a + b, 0));
    const lines = served.text.trimEnd().split("\n");
    expect(lines).toHaveLength(fit);
    expect(JSON.parse(lines.at(-1)!)[1].timestamp).toBe(T1 + (fit - 1) * 1000);
    // The rest, from where the first answer stopped.
    const rest2 = await snapshots(fit, 17);
    expect(rest2.status).toBe(200);
    expect(rest2.text.trimEnd().split("\n")).toHaveLength(18 - fit);
  });
});

describe(`the byte budget (${testStoresName})`, () => {
  it("evicts the oldest recordings beyond the budget, and those past retention", async () => {
    const owner = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    const budgetToken = "phc_replay_budget_project";
    const budgetProject = (await db.prisma.project.create({ data: { organizationId: owner.organizationId, name: "Budget", apiToken: budgetToken } })).id;
    await updateRecordingSettings(db, budgetProject, { session_recording_opt_in: true });
    const send = (sessionId: string, start: number) =>
      sendSnapshots(JSON.stringify([snapshotEvent({ token: budgetToken, sessionId, distinctId: "bud", items: pageItems(start, { href: `https://b.example/${sessionId}` }) })]));
    for (let n = 0; n < 4; n++) expect((await send(`budget-${n}`, Date.now() - (10 - n) * 60_000)).status).toBe(200);
    // An old one, past the 30-day retention.
    expect((await send("budget-ancient", Date.now() - 40 * 86_400_000)).status).toBe(200);
    const size = async (id: string) => (await recordingStore(db).get(budgetProject, id))!.sizeBytes;
    const budget = (await size("budget-2")) + (await size("budget-3"));
    await updateRecordingSettings(db, budgetProject, { session_recording_storage_budget_bytes: budget });
    const result = await enforceRecordingBudget(db, budgetProject);
    expect(result).toEqual({ expired: 1, evicted: 2 });
    const left = await Promise.all(["budget-ancient", "budget-0", "budget-1", "budget-2", "budget-3"].map(async (id) => (await recordingStore(db).get(budgetProject, id)) !== null));
    expect(left).toEqual([false, false, false, true, true]);
    expect((await recordingStore(db).usage(budgetProject)).bytes).toBe(budget);
    // Other projects keep theirs.
    expect(await recordingStore(db).get(projectId, "sess-gzip")).not.toBeNull();
  });

  it("the hourly timer expires recordings of a project that no longer records, with no new snapshot", async () => {
    const owner = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    const idleToken = "phc_replay_idle_project";
    const idleProject = (await db.prisma.project.create({ data: { organizationId: owner.organizationId, name: "Idle", apiToken: idleToken } })).id;
    await updateRecordingSettings(db, idleProject, { session_recording_opt_in: true });
    const send = (sessionId: string, start: number) =>
      sendSnapshots(JSON.stringify([snapshotEvent({ token: idleToken, sessionId, distinctId: "idle", items: pageItems(start, { href: `https://i.example/${sessionId}` }) })]));
    // Twenty days old (within the 30-day retention when sent), and two days old; then the project stops recording.
    for (let n = 0; n < 25; n++) expect((await send(`idle-old-${n}`, Date.now() - 20 * 86_400_000 + n * 60_000)).status).toBe(200);
    expect((await send("idle-recent", Date.now() - 2 * 86_400_000)).status).toBe(200);
    await updateRecordingSettings(db, idleProject, { session_recording_opt_in: false });
    expect((await recordingStore(db).usage(idleProject)).recordings).toBe(26);
    // Fifteen days on, no snapshot has come: the timer's pass deletes the 25 now 35 days old, in chunks.
    const pass = await runRecordingUpkeep(db, { now: new Date(Date.now() + 15 * 86_400_000) });
    expect(pass.expired).toBeGreaterThanOrEqual(25);
    expect((await recordingStore(db).usage(idleProject)).recordings).toBe(1);
    expect(await recordingStore(db).get(idleProject, "idle-recent")).not.toBeNull();
    expect(await storedChunks("idle-old-0", idleProject)).toEqual([]);
    // A pass that is told to stop deletes nothing more.
    expect(await runRecordingUpkeep(db, { now: new Date(Date.now() + 400 * 86_400_000), shouldStop: () => true })).toEqual({ expired: 0, evicted: 0 });
    expect(await recordingStore(db).get(idleProject, "idle-recent")).not.toBeNull();
  });
});
