/**
 * The capture family end to end: real handlers (handleCaptureEvents, handleBatch,
 * handleEngage) called with Request objects on a real database; what was stored is read
 * back with SQL.
 */
import { gzipSync } from "node:zlib";
import LZString from "lz-string";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { MAX_PROPERTY_DEPTH } from "@/server/ingestion/normalise";
import { MAX_BODY_DEPTH } from "./body/json-bytes";
import { handleBatch, handleCaptureEvents, handleEngage } from "./capture";

type Handler = (request: Request) => Promise<Response>;

interface Sent {
  status: number;
  text: string;
  json: Record<string, unknown> | null;
  headers: Headers;
}

interface StoredEvent {
  uuid: string;
  project_id: number;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  person_id: string | null;
  historical_migration: boolean;
}

let db: Database;
let projectId: number;
let key: string;
let personalKey: string;
let otherProjectId: number;
const OTHER_KEY = "phc_capture_other_project_key";

async function send(
  handler: Handler,
  path: string,
  body: unknown,
  options: { method?: string; headers?: Record<string, string>; raw?: BodyInit } = {},
): Promise<Sent> {
  const method = options.method ?? "POST";
  const init: RequestInit = { method, headers: { "content-type": "application/json", ...options.headers } };
  if (method !== "GET" && method !== "OPTIONS" && method !== "HEAD") init.body = options.raw ?? JSON.stringify(body);
  const response = await handler(new Request(`http://burrow.test${path}`, init));
  const text = await response.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: response.status, text, json, headers: response.headers };
}

async function eventsOf(distinctId: string): Promise<StoredEvent[]> {
  return db.sql.query<StoredEvent>(
    `SELECT uuid::text AS uuid, project_id, event, distinct_id, properties, timestamp, person_id::text AS person_id, historical_migration
       FROM events WHERE distinct_id = $1 ORDER BY timestamp, uuid`,
    [distinctId],
  );
}

async function personUuidOf(distinctId: string, project = projectId): Promise<string | null> {
  const rows = await db.sql.query<{ uuid: string }>(
    `SELECT p.uuid::text AS uuid FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id
      WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [project, distinctId],
  );
  return rows[0]?.uuid ?? null;
}

let counter = 0;
const uniqueId = (label: string) => `${label}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const alice = await bootstrap(db.prisma, { email: "capture@example.com", password: "pw12345678" });
  projectId = alice.project_id;
  key = alice.project_api_key;
  personalKey = alice.personal_api_key;
  const other = await db.prisma.project.create({ data: { organizationId: alice.organization_id, name: "Other", apiToken: OTHER_KEY } });
  otherProjectId = other.id;
});

afterAll(async () => {
  await closeDb();
});

describe(`capture endpoints (${testDbKind})`, () => {
  describe("every path accepts events and answers {\"status\":1}", () => {
    it.each([
      ["/capture/", handleCaptureEvents],
      ["/e/", handleCaptureEvents],
      ["/i/v0/e/", handleCaptureEvents],
      ["/track", handleCaptureEvents],
      ["/batch/", handleBatch],
      ["/engage/", handleEngage],
    ] as const)("%s stores the event with its project, person, properties and $ip", async (path, handler) => {
      const distinctId = uniqueId("path");
      const response = await send(
        handler,
        path,
        { api_key: key, event: "path test", distinct_id: distinctId, properties: { plan: "pro", nested: { n: 1 } } },
        { headers: { "x-forwarded-for": "203.0.113.7, 10.0.0.1, 10.0.0.2" } },
      );
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"status":1}');
      const [row, ...rest] = await eventsOf(distinctId);
      expect(rest).toHaveLength(0);
      expect(row).toMatchObject({ project_id: projectId, event: "path test", distinct_id: distinctId, historical_migration: false });
      expect(row!.properties).toEqual({ plan: "pro", nested: { n: 1 }, $ip: "203.0.113.7" });
      expect(row!.person_id).toBe(await personUuidOf(distinctId));
      expect(row!.person_id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("stores a posthog-js batch: gzip sent as text/plain with no hint, key from properties.token", async () => {
      const distinctId = uniqueId("js");
      const sentAt = new Date().toISOString();
      const body = gzipSync(
        JSON.stringify({
          api_key: key,
          batch: [
            { event: "$pageview", properties: { token: key, distinct_id: distinctId, $lib: "web" }, timestamp: sentAt, uuid: uuidv7() },
            { event: "$autocapture", properties: { token: key, distinct_id: distinctId, $lib: "web" }, timestamp: sentAt, uuid: uuidv7() },
          ],
          sent_at: sentAt,
        }),
      );
      const response = await send(handleCaptureEvents, "/e/?ver=1.449.2", null, { raw: body, headers: { "content-type": "text/plain" } });
      expect(response.status).toBe(200);
      const rows = await eventsOf(distinctId);
      expect(rows.map((r) => r.event).sort()).toEqual(["$autocapture", "$pageview"]);
      expect(rows.every((r) => r.properties.token === undefined && r.properties.$lib === "web")).toBe(true);
    });

    it("stores a sendBeacon form post: data=<base64> with ?compression=base64", async () => {
      const distinctId = uniqueId("beacon");
      const payload = Buffer.from(JSON.stringify([{ event: "beacon", properties: { token: key, distinct_id: distinctId } }])).toString("base64");
      const response = await send(handleCaptureEvents, "/e/?compression=base64", null, {
        raw: `data=${encodeURIComponent(payload)}`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(response.status).toBe(200);
      expect((await eventsOf(distinctId)).map((r) => r.event)).toEqual(["beacon"]);
    });

    it("stores an lz64 form post", async () => {
      const distinctId = uniqueId("lz");
      const payload = LZString.compressToBase64(JSON.stringify({ event: "lz", distinct_id: distinctId, token: key }));
      const response = await send(handleCaptureEvents, "/e/?compression=lz64", null, {
        raw: `data=${encodeURIComponent(payload)}`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(response.status).toBe(200);
      expect((await eventsOf(distinctId)).map((r) => r.event)).toEqual(["lz"]);
    });

    it("stores lz64 and gzip-js form posts whose compression hint is a form field, on /e/ and /engage/", async () => {
      const form = { "content-type": "application/x-www-form-urlencoded" };
      const lzId = uniqueId("lz-field");
      const lz = LZString.compressToBase64(JSON.stringify({ event: "lz field", distinct_id: lzId, token: key }));
      expect((await send(handleCaptureEvents, "/e/", null, { raw: `data=${encodeURIComponent(lz)}&compression=lz64`, headers: form })).status).toBe(200);
      expect((await eventsOf(lzId)).map((r) => r.event)).toEqual(["lz field"]);
      const engageId = uniqueId("engage-field");
      const engage = LZString.compressToBase64(JSON.stringify({ $token: key, $distinct_id: engageId, $set: { plan: "lz" } }));
      expect((await send(handleEngage, "/engage/", null, { raw: `compression=lz64&data=${encodeURIComponent(engage)}`, headers: form })).status).toBe(200);
      expect((await eventsOf(engageId)).map((r) => r.event)).toEqual(["$identify"]);
      const gzId = uniqueId("gz-field");
      const gz = gzipSync(JSON.stringify([{ event: "gz field", distinct_id: gzId, properties: { token: key } }])).toString("base64");
      expect((await send(handleCaptureEvents, "/e/", null, { raw: `data=${encodeURIComponent(gz)}&compression=gzip-js`, headers: form })).status).toBe(200);
      expect((await eventsOf(gzId)).map((r) => r.event)).toEqual(["gz field"]);
    });

    it("stores a GET /e/?data= event, the key from the data", async () => {
      const distinctId = uniqueId("get");
      const data = Buffer.from(JSON.stringify({ event: "get event", properties: { token: key, distinct_id: distinctId } })).toString("base64");
      const response = await send(handleCaptureEvents, `/e/?data=${encodeURIComponent(data)}`, null, { method: "GET" });
      expect(response.status).toBe(200);
      expect((await eventsOf(distinctId)).map((r) => r.event)).toEqual(["get event"]);
    });

    it("stores a gzip batch from posthog-node (Content-Encoding: gzip)", async () => {
      const distinctId = uniqueId("node");
      const body = gzipSync(JSON.stringify({ api_key: key, batch: [{ event: "n", distinct_id: distinctId, properties: { $lib: "posthog-node" } }], sent_at: new Date().toISOString() }));
      const response = await send(handleBatch, "/batch/", null, { raw: body, headers: { "content-encoding": "gzip" } });
      expect(response.status).toBe(200);
      expect(await eventsOf(distinctId)).toHaveLength(1);
    });

    it("has no $ip when the request has no X-Forwarded-For", async () => {
      const distinctId = uniqueId("noip");
      await send(handleCaptureEvents, "/capture/", { api_key: key, event: "x", distinct_id: distinctId });
      expect((await eventsOf(distinctId))[0]!.properties).not.toHaveProperty("$ip");
    });

    it("does not store $ip for a project that anonymises IPs", async () => {
      const anonymous = await db.prisma.project.create({
        data: { organizationId: (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).organizationId, name: "Anon", apiToken: "phc_anonymize_ips", anonymizeIps: true },
      });
      const distinctId = uniqueId("anonip");
      const response = await send(handleCaptureEvents, "/capture/", { api_key: "phc_anonymize_ips", event: "x", distinct_id: distinctId }, { headers: { "x-forwarded-for": "203.0.113.8" } });
      expect(response.status).toBe(200);
      const [row] = await eventsOf(distinctId);
      expect(row!.project_id).toBe(anonymous.id);
      expect(row!.properties).not.toHaveProperty("$ip");
      // Nor one the client sent itself (PostHog deletes properties.$ip for such projects).
      const sentIp = uniqueId("anonip");
      await send(handleCaptureEvents, "/capture/", { api_key: "phc_anonymize_ips", event: "x", distinct_id: sentIp, properties: { $ip: "198.51.100.4", kept: 1 } });
      expect((await eventsOf(sentIp))[0]!.properties).toEqual({ kept: 1 });
    });

    it("keeps an $ip the client sent over the request's address", async () => {
      const distinctId = uniqueId("ownip");
      await send(handleCaptureEvents, "/capture/", { api_key: key, event: "x", distinct_id: distinctId, properties: { $ip: "198.51.100.4" } }, { headers: { "x-forwarded-for": "203.0.113.9" } });
      expect((await eventsOf(distinctId))[0]!.properties.$ip).toBe("198.51.100.4");
    });

    it("strips the ::ffff: prefix of an IPv4-mapped address", async () => {
      const distinctId = uniqueId("mapped");
      await send(handleCaptureEvents, "/capture/", { api_key: key, event: "x", distinct_id: distinctId }, { headers: { "x-forwarded-for": "::ffff:192.0.2.1" } });
      expect((await eventsOf(distinctId))[0]!.properties.$ip).toBe("192.0.2.1");
    });
  });

  describe("project key", () => {
    it.each([
      ["api_key at the top of a batch", (d: string) => ({ api_key: key, batch: [{ event: "k", distinct_id: d }] })],
      ["token at the top of a batch", (d: string) => ({ token: key, batch: [{ event: "k", distinct_id: d }] })],
      ["api_key on the event", (d: string) => ({ api_key: key, event: "k", distinct_id: d })],
      ["token on the event", (d: string) => ({ token: key, event: "k", distinct_id: d })],
      ["$token on the event", (d: string) => ({ $token: key, event: "k", distinct_id: d })],
      ["properties.token", (d: string) => ({ event: "k", distinct_id: d, properties: { token: key } })],
      ["every event of an array", (d: string) => [{ event: "k", distinct_id: d, properties: { token: key } }, { event: "k", distinct_id: d, token: key }]],
      ["a key with surrounding spaces", (d: string) => ({ api_key: `  ${key} `, event: "k", distinct_id: d })],
    ])("is taken from %s", async (_label, body) => {
      const distinctId = uniqueId("key");
      const response = await send(handleBatch, "/batch/", body(distinctId));
      expect(response.status).toBe(200);
      const rows = await eventsOf(distinctId);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.project_id === projectId)).toBe(true);
    });

    it("routes each key to its own project", async () => {
      const distinctId = uniqueId("other");
      await send(handleCaptureEvents, "/capture/", { api_key: OTHER_KEY, event: "o", distinct_id: distinctId });
      const [row] = await eventsOf(distinctId);
      expect(row!.project_id).toBe(otherProjectId);
      expect(row!.person_id).toBe(await personUuidOf(distinctId, otherProjectId));
      expect(await personUuidOf(distinctId, projectId)).toBeNull();
    });

    it("answers 401 missing_api_key without a key, and stores nothing", async () => {
      const distinctId = uniqueId("nokey");
      const response = await send(handleCaptureEvents, "/capture/", { event: "x", distinct_id: distinctId });
      expect(response.status).toBe(401);
      expect(response.json).toMatchObject({ type: "authentication_error", code: "missing_api_key", detail: expect.stringMatching(/API key not provided/) });
      expect(await eventsOf(distinctId)).toHaveLength(0);
      expect(await personUuidOf(distinctId)).toBeNull();
    });

    it("answers 401 missing_api_key for an empty or non-string key", async () => {
      for (const api_key of ["", "   ", 123, { k: 1 }]) {
        const response = await send(handleCaptureEvents, "/capture/", { api_key, event: "x", distinct_id: "d" });
        expect(response.status).toBe(401);
        expect(response.json?.code).toBe("missing_api_key");
      }
    });

    it("answers 401 for an unknown key", async () => {
      const distinctId = uniqueId("badkey");
      const response = await send(handleCaptureEvents, "/capture/", { api_key: "phc_does_not_exist", event: "x", distinct_id: distinctId });
      expect(response.status).toBe(401);
      expect(response.json).toMatchObject({ type: "authentication_error", code: "invalid_api_key", detail: expect.any(String) });
      expect(await eventsOf(distinctId)).toHaveLength(0);
    });

    it("answers 401 for a personal API key (phx_…)", async () => {
      expect(personalKey.startsWith("phx_")).toBe(true);
      const response = await send(handleCaptureEvents, "/capture/", { api_key: personalKey, event: "x", distinct_id: "d" });
      expect(response.status).toBe(401);
      expect(response.json?.detail).toMatch(/personal API key/);
    });

    it.each([
      ["a key with a NUL byte", "phc_\u0000abc"],
      ["a key over 64 characters", `phc_${"k".repeat(80)}`],
      ["a non-ASCII key", "phc_ключ"],
    ])("answers 401 (not 5xx) for %s", async (_label, api_key) => {
      const response = await send(handleCaptureEvents, "/capture/", { api_key, event: "x", distinct_id: "d" });
      expect(response.status).toBe(401);
      expect(response.json?.detail).toEqual(expect.any(String));
    });

    it("answers 401 for an array whose events carry different keys, storing none", async () => {
      const distinctId = uniqueId("mixed");
      const response = await send(handleCaptureEvents, "/e/", [
        { event: "a", distinct_id: distinctId, properties: { token: key } },
        { event: "b", distinct_id: distinctId, properties: { token: OTHER_KEY } },
      ]);
      expect(response.status).toBe(401);
      expect(response.json?.detail).toMatch(/inconsistent api_key/);
      expect(await eventsOf(distinctId)).toHaveLength(0);
    });
  });

  describe("historical migration", () => {
    it("marks every event of a historical_migration batch and keeps their timestamps", async () => {
      const distinctId = uniqueId("hist");
      const response = await send(handleBatch, "/batch/", {
        api_key: key,
        historical_migration: true,
        sent_at: new Date().toISOString(),
        batch: [
          { event: "old 1", distinct_id: distinctId, timestamp: "2019-01-01T00:00:00.000Z" },
          { event: "old 2", distinct_id: distinctId, timestamp: "2019-01-02T00:00:00.000Z" },
          { event: "old 3", distinct_id: distinctId, timestamp: "2019-01-03T00:00:00.000Z" },
        ],
      });
      expect(response.status).toBe(200);
      const rows = await eventsOf(distinctId);
      expect(rows).toHaveLength(3);
      expect(rows.every((r) => r.historical_migration)).toBe(true);
      expect(rows.map((r) => r.timestamp.toISOString())).toEqual(["2019-01-01T00:00:00.000Z", "2019-01-02T00:00:00.000Z", "2019-01-03T00:00:00.000Z"]);
    });

    it("drops historical events without a timestamp, naming their index", async () => {
      const distinctId = uniqueId("histbad");
      const response = await send(handleBatch, "/batch/", {
        api_key: key,
        historical_migration: true,
        batch: [{ event: "ok", distinct_id: distinctId, timestamp: "2019-01-01T00:00:00Z" }, { event: "no ts", distinct_id: distinctId }],
      });
      expect(response.status).toBe(200);
      expect(response.json?.errors).toEqual([{ index: 1, detail: expect.stringMatching(/timestamp/) }]);
      expect((await eventsOf(distinctId)).map((r) => r.event)).toEqual(["ok"]);
    });

    it("does not mark ordinary batches or a single event carrying the flag", async () => {
      const a = uniqueId("nothist");
      await send(handleBatch, "/batch/", { api_key: key, batch: [{ event: "x", distinct_id: a }] });
      await send(handleCaptureEvents, "/capture/", { api_key: key, event: "y", distinct_id: a, historical_migration: true });
      const rows = await eventsOf(a);
      expect(rows).toHaveLength(2);
      expect(rows.every((r) => !r.historical_migration)).toBe(true);
    });
  });

  describe("validation", () => {
    it("stores the good events of a batch with a bad one and lists the bad one under errors", async () => {
      const distinctId = uniqueId("partial");
      const response = await send(handleBatch, "/batch/", {
        api_key: key,
        batch: [
          { event: "good 0", distinct_id: distinctId },
          { event: "bad: no distinct id" },
          { event: "good 2", distinct_id: distinctId },
          { distinct_id: distinctId },
          "not an object",
          { event: "x".repeat(201), distinct_id: distinctId },
          { event: "good 6", distinct_id: distinctId },
        ],
      });
      expect(response.status).toBe(200);
      expect(response.json?.status).toBe(1);
      expect(response.json?.errors).toEqual([
        { index: 1, detail: expect.stringMatching(/Event 1: 'distinct_id' is required/) },
        { index: 3, detail: expect.stringMatching(/Event 3: 'event' is required/) },
        { index: 4, detail: expect.stringMatching(/Event 4: must be a JSON object/) },
        { index: 5, detail: expect.stringMatching(/Event 5: the event name is longer than 200/) },
      ]);
      expect((await eventsOf(distinctId)).map((r) => r.event).sort()).toEqual(["good 0", "good 2", "good 6"]);
    });

    it("answers 400 naming index and reason when every event is bad", async () => {
      const response = await send(handleBatch, "/batch/", {
        api_key: key,
        batch: [{ event: "a" }, { event: "b", distinct_id: "d".repeat(201) }],
      });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ type: "validation_error", code: "invalid_payload" });
      expect(response.json?.detail).toMatch(/Event 0: 'distinct_id' is required/);
      expect(response.json?.detail).toMatch(/Event 1: distinct_id is longer than 200/);
    });

    it("answers 400 for a single event without distinct_id", async () => {
      const response = await send(handleCaptureEvents, "/capture/", { api_key: key, event: "x" });
      expect(response.status).toBe(400);
      expect(response.json?.detail).toMatch(/Event 0: 'distinct_id' is required/);
    });

    it("answers 400 for an empty batch", async () => {
      const response = await send(handleBatch, "/batch/", { api_key: key, batch: [] });
      expect(response.status).toBe(400);
      expect(response.json?.detail).toMatch(/no event/);
    });

    it("answers 400 when batch is not an array", async () => {
      const response = await send(handleBatch, "/batch/", { api_key: key, batch: { event: "x" } });
      expect(response.status).toBe(400);
      expect(response.json?.detail).toMatch(/'batch' must be an array/);
    });

    it.each([["a number", 42], ["a string", "hello"], ["null", null], ["true", true]])("answers 400 for a body that is %s", async (_label, body) => {
      const response = await send(handleBatch, "/batch/", body);
      expect(response.status).toBe(400);
      expect(response.json?.detail).toEqual(expect.any(String));
    });

    it("answers 400 for unparsable JSON", async () => {
      const response = await send(handleCaptureEvents, "/capture/", null, { raw: "{not json" });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ code: "invalid_payload", detail: expect.stringMatching(/not valid JSON/) });
    });

    it("answers 400 no_data for an empty POST", async () => {
      const response = await send(handleCaptureEvents, "/capture/", null, { raw: "" });
      expect(response.status).toBe(400);
      expect(response.json?.code).toBe("no_data");
    });

    it("refuses 20 MB of nested arrays (plain and gzip) with 400 before parsing them, and still stores an event whose properties nest to the limit", async () => {
      const nested = `{"api_key":"${key}","batch":${"[".repeat(10_000_000)}${"]".repeat(10_000_000)}}`;
      for (const [raw, headers] of [
        [nested, {}],
        [gzipSync(nested), { "content-encoding": "gzip" }],
      ] as const) {
        const response = await send(handleBatch, "/batch/", null, { raw, headers });
        expect(response.status).toBe(400);
        expect(response.json).toMatchObject({ code: "invalid_payload", detail: `Malformed request data: the body is nested more than ${MAX_BODY_DEPTH} levels deep.` });
      }
      const distinctId = uniqueId("deep");
      const deepest = JSON.parse(`${"[".repeat(MAX_PROPERTY_DEPTH - 1)}${"]".repeat(MAX_PROPERTY_DEPTH - 1)}`) as unknown;
      const response = await send(handleBatch, "/batch/", { api_key: key, batch: [{ event: "deep", distinct_id: distinctId, properties: { deepest, pad: "x".repeat(40_000) } }] });
      expect(response.status).toBe(200);
      expect(JSON.stringify((await eventsOf(distinctId))[0]!.properties.deepest)).toBe(JSON.stringify(deepest));
    });

    it("answers 413 for a body over 20 MB", async () => {
      const response = await send(handleBatch, "/batch/", null, { raw: new Uint8Array(20 * 1024 * 1024 + 1).fill(0x20) });
      expect(response.status).toBe(413);
      expect(response.json).toMatchObject({ code: "request_too_large", detail: expect.any(String) });
    });
  });

  describe("timestamps through the handler", () => {
    it("corrects clock skew using the batch's sent_at", async () => {
      const distinctId = uniqueId("skew");
      const clientNow = Date.now() - 3 * 86_400_000; // client clock 3 days behind
      const before = Date.now();
      await send(handleBatch, "/batch/", {
        api_key: key,
        sent_at: new Date(clientNow).toISOString(),
        batch: [{ event: "s", distinct_id: distinctId, timestamp: new Date(clientNow - 10_000).toISOString() }],
      });
      const after = Date.now();
      const [row] = await eventsOf(distinctId);
      expect(row!.timestamp.getTime()).toBeGreaterThanOrEqual(before - 10_000 - 5);
      expect(row!.timestamp.getTime()).toBeLessThanOrEqual(after - 10_000 + 5);
    });

    it("corrects clock skew using ?_= in ms", async () => {
      const distinctId = uniqueId("skewq");
      const clientNow = Date.now() - 86_400_000;
      const before = Date.now();
      await send(handleCaptureEvents, `/e/?_=${clientNow}`, [{ event: "s", properties: { distinct_id: distinctId, token: key }, timestamp: new Date(clientNow - 60_000).toISOString() }]);
      const [row] = await eventsOf(distinctId);
      expect(Math.abs(row!.timestamp.getTime() - (before - 60_000))).toBeLessThan(2_000);
    });

    it.each([
      ["a year-0 timestamp", "0000-06-01T00:00:00Z"],
      ["a negative epoch far before year 1", -1e15],
      ["an offset landing before year 1", undefined],
    ])("stores %s as the time of receipt instead of failing", async (_label, timestamp) => {
      const distinctId = uniqueId("range");
      const before = Date.now();
      const event = timestamp === undefined ? { event: "r", distinct_id: distinctId, offset: 1e15 } : { event: "r", distinct_id: distinctId, timestamp };
      const response = await send(handleCaptureEvents, "/capture/", { api_key: key, ...event });
      expect(response.status).toBe(200);
      const [row] = await eventsOf(distinctId);
      expect(row!.timestamp.getTime()).toBeGreaterThanOrEqual(before - 5);
    });
  });

  describe("text the database cannot store as is", () => {
    it("stores properties holding NUL characters and lone surrogates (made storable)", async () => {
      const distinctId = uniqueId("nul");
      const response = await send(handleCaptureEvents, "/capture/", {
        api_key: key,
        event: "nul\u0000event",
        distinct_id: distinctId,
        properties: { "k\u0000ey": "va\u0000lue", lone: "\ud800x", nested: { deep: ["\u0000", "\udfff"] } },
      });
      expect(response.status).toBe(200);
      const [row] = await eventsOf(distinctId);
      expect(row!.event).toBe("nul\ufffdevent");
      expect(row!.properties).toMatchObject({ "k\ufffdey": "va\ufffdlue", lone: "\ufffdx", nested: { deep: ["\ufffd", "\ufffd"] } });
    });

    it("stores an event whose distinct id holds a NUL character", async () => {
      const distinctId = uniqueId("nul\u0000id");
      const response = await send(handleCaptureEvents, "/capture/", { api_key: key, event: "x", distinct_id: distinctId });
      expect(response.status).toBe(200);
      const stored = distinctId.replace("\u0000", "\ufffd");
      const [row] = await eventsOf(stored);
      expect(row!.person_id).toBe(await personUuidOf(stored));
    });

    it("stores a $set holding a NUL character on the person", async () => {
      const distinctId = uniqueId("nulset");
      const response = await send(handleCaptureEvents, "/capture/", { api_key: key, event: "x", distinct_id: distinctId, $set: { "n\u0000": "v\u0000" } });
      expect(response.status).toBe(200);
      const [person] = await db.sql.query<{ properties: Record<string, unknown> }>(`SELECT properties FROM persons WHERE uuid = $1::uuid`, [await personUuidOf(distinctId)]);
      expect(person!.properties).toEqual({ "n\ufffd": "v\ufffd" });
    });

    it("answers a deeply nested property (3,000 levels) without a 5xx", async () => {
      const distinctId = uniqueId("deep");
      const deep = `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`;
      const raw = `{"api_key":${JSON.stringify(key)},"event":"deep","distinct_id":${JSON.stringify(distinctId)},"properties":{"d":${deep}}}`;
      const response = await send(handleCaptureEvents, "/capture/", null, { raw });
      expect(response.status).toBeLessThan(500);
      expect(response.json?.detail ?? response.json?.status).toBeDefined();
      if (response.status === 200) expect(await eventsOf(distinctId)).toHaveLength(1);
    });
  });

  describe("/engage/", () => {
    it("stores an event without a name as $identify and applies its $set", async () => {
      const distinctId = uniqueId("engage");
      const response = await send(handleEngage, "/engage/", { api_key: key, distinct_id: distinctId, $set: { email: "e@example.com" } });
      expect(response.status).toBe(200);
      const [row] = await eventsOf(distinctId);
      expect(row!.event).toBe("$identify");
      expect(row!.properties.$set).toEqual({ email: "e@example.com" });
      const [person] = await db.sql.query<{ properties: Record<string, unknown>; is_identified: boolean }>(
        `SELECT properties, is_identified FROM persons WHERE uuid = $1::uuid`,
        [row!.person_id],
      );
      expect(person).toEqual({ properties: { email: "e@example.com" }, is_identified: true });
    });

    it("accepts the Mixpanel-style engage body: $token, $distinct_id and a top-level $set", async () => {
      const distinctId = uniqueId("mixpanel");
      const response = await send(handleEngage, "/engage/", { $token: key, $distinct_id: distinctId, $set: { plan: "team" } });
      expect(response.status).toBe(200);
      const [row] = await eventsOf(distinctId);
      expect(row!.event).toBe("$identify");
      const [person] = await db.sql.query<{ properties: Record<string, unknown> }>(`SELECT properties FROM persons WHERE uuid = $1::uuid`, [row!.person_id]);
      expect(person!.properties).toEqual({ plan: "team" });
    });

    it("does not invent an event name on the capture paths", async () => {
      const response = await send(handleCaptureEvents, "/capture/", { api_key: key, distinct_id: "d", $set: { a: 1 } });
      expect(response.status).toBe(400);
    });
  });

  describe("HTTP", () => {
    it("answers an OPTIONS preflight with 204 and CORS headers mirroring Origin and requested headers", async () => {
      for (const handler of [handleCaptureEvents, handleBatch, handleEngage]) {
        const response = await send(handler, "/e/", null, {
          method: "OPTIONS",
          headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-custom" },
        });
        expect(response.status).toBe(204);
        expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example");
        expect(response.headers.get("access-control-allow-headers")).toBe("content-type,x-custom");
        expect(response.headers.get("access-control-allow-credentials")).toBe("true");
        expect(response.headers.get("access-control-allow-methods")).toMatch(/POST/);
        expect(response.headers.get("access-control-allow-methods")).toMatch(/GET/);
      }
    });

    it("puts access-control-allow-origin on POST answers, successful or not", async () => {
      const ok = await send(handleCaptureEvents, "/e/", { api_key: key, event: "x", distinct_id: uniqueId("cors") }, { headers: { origin: "https://a.example" } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://a.example");
      expect(ok.headers.get("content-type")).toMatch(/application\/json/);
      const bad = await send(handleCaptureEvents, "/e/", { event: "x" }, { headers: { origin: "https://b.example" } });
      expect(bad.status).toBe(401);
      expect(bad.headers.get("access-control-allow-origin")).toBe("https://b.example");
      const noOrigin = await send(handleCaptureEvents, "/e/", { api_key: key, event: "x", distinct_id: uniqueId("cors") });
      expect(noOrigin.headers.get("access-control-allow-origin")).toBe("*");
    });

    it.each(["PUT", "DELETE", "PATCH"])("answers %s with 405 and a JSON detail", async (method) => {
      const response = await send(handleCaptureEvents, "/e/", { api_key: key, event: "x", distinct_id: "d" }, { method });
      expect(response.status).toBe(405);
      expect(response.json).toMatchObject({ code: "method_not_allowed", detail: expect.stringContaining(method) });
    });
  });

  describe("durability and idempotency", () => {
    it("stores an event sent twice with the same uuid once (retry)", async () => {
      const distinctId = uniqueId("retry");
      const uuid = uuidv7();
      const body = { api_key: key, batch: [{ event: "once", distinct_id: distinctId, uuid }] };
      expect((await send(handleBatch, "/batch/", body)).status).toBe(200);
      expect((await send(handleBatch, "/batch/", body)).status).toBe(200);
      const rows = await eventsOf(distinctId);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.uuid).toBe(uuid);
    });

    it("stores a uuid repeated within one batch, or in concurrent requests, once", async () => {
      const distinctId = uniqueId("dupe");
      const uuid = uuidv7().toUpperCase();
      const event = { event: "dupe", distinct_id: distinctId, uuid };
      const responses = await Promise.all(Array.from({ length: 5 }, () => send(handleBatch, "/batch/", { api_key: key, batch: [event, event] })));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const rows = await eventsOf(distinctId);
      expect(rows.map((r) => r.uuid)).toEqual([uuid.toLowerCase()]);
    });

    it("answers 200 only after the rows are in the table", async () => {
      const checks = Array.from({ length: 30 }, async (_, i) => {
        const distinctId = uniqueId(`durable${i}`);
        const uuids = Array.from({ length: 3 }, () => uuidv7());
        const response = await send(handleBatch, "/batch/", { api_key: key, batch: uuids.map((uuid) => ({ event: "d", distinct_id: distinctId, uuid })) });
        expect(response.status).toBe(200);
        const rows = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND uuid = ANY($2::uuid[])`, [projectId, uuids]);
        return rows[0]!.n;
      });
      expect(await Promise.all(checks)).toEqual(Array(30).fill(3));
    });
  });
});
