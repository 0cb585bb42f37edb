/**
 * Fuzz: 1,000 random malformed bodies and encodings against the capture handlers, from a
 * seeded PRNG (BURROW_FUZZ_SEED=<n> reproduces a run; BURROW_FUZZ_CASES=<n> changes the
 * count). No answer may be a 5xx: each is a 4xx with a JSON `detail`, or a 200 whose
 * events were stored. Rows that existed before the run must be unchanged afterwards.
 */
import { gzipSync } from "node:zlib";
import LZString from "lz-string";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { decodeRequest } from "./body/decode";
import { handleBatch, handleCaptureEvents, handleEngage } from "./capture";

const SEED = Number(process.env.BURROW_FUZZ_SEED ?? 20_261_122);
const CASES = Number(process.env.BURROW_FUZZ_CASES ?? 1000);

/** mulberry32: small, fast, seedable. */
class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  bool(p = 0.5): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
  ascii(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += String.fromCharCode(32 + this.int(95));
    return s;
  }
  /** Unicode with the awkward parts: NUL, control characters, lone surrogates, emoji, RTL. */
  unicode(n: number): string {
    const parts = ["\u0000", "\u0001", "\u001f", "\ud800", "\udfff", "🦔", "é", "\u202e", "中", "\ufffe", "\\", '"', "\n", "a", "Z", "0", "'", "<", "$", "\u2028"];
    let s = "";
    for (let i = 0; i < n; i++) s += this.bool(0.6) ? String.fromCharCode(32 + this.int(95)) : this.pick(parts);
    return s;
  }
}

type Handler = (request: Request) => Promise<Response>;
type Answer = { detail?: unknown; status?: unknown; errors?: unknown[] };

interface FuzzCase {
  kind: string;
  handler: Handler;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

const HANDLERS: Array<[string, Handler]> = [
  ["/capture/", handleCaptureEvents],
  ["/e/", handleCaptureEvents],
  ["/i/v0/e/", handleCaptureEvents],
  ["/track/", handleCaptureEvents],
  ["/batch/", handleBatch],
  ["/engage/", handleEngage],
];

const SEED_PREFIX = "seed-";

function generator(rng: Rng, realKey: string) {
  const fuzzId = () => (rng.bool(0.7) ? `fz-${rng.int(12)}` : `fz-${rng.unicode(1 + rng.int(12))}`);
  const nested = (levels: number, leaf: string) =>
    rng.bool() ? `${'{"a":'.repeat(levels)}${leaf}${"}".repeat(levels)}` : `${"[".repeat(levels)}${leaf}${"]".repeat(levels)}`;

  function randomJson(depth = 0): unknown {
    const roll = rng.int(depth > 3 ? 6 : 9);
    switch (roll) {
      case 0:
        return null;
      case 1:
        return rng.bool();
      case 2:
        return rng.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, rng.int(1e9), -rng.int(1e12)]);
      case 3:
        return rng.unicode(rng.int(30));
      case 4:
        return rng.ascii(rng.int(20));
      case 5:
        return rng.pick(["", "null", "undefined", "[object Object]", "2025-01-01T00:00:00Z"]);
      case 6:
        return Array.from({ length: rng.int(4) }, () => randomJson(depth + 1));
      default: {
        const obj: Record<string, unknown> = {};
        for (let i = rng.int(5); i > 0; i--) obj[rng.bool(0.7) ? rng.ascii(1 + rng.int(8)) : rng.unicode(1 + rng.int(5))] = randomJson(depth + 1);
        return obj;
      }
    }
  }

  const keyValue = () =>
    rng.pick<unknown>([realKey, realKey, realKey, realKey, ` ${realKey} `, `phc_unknown_${rng.ascii(8)}`, "", null, 123, `phx_${rng.ascii(20)}`, `phc_\u0000${rng.ascii(4)}`, "k".repeat(100), rng.unicode(10), undefined, ["phc"], { k: realKey }]);

  function properties(): unknown {
    const roll = rng.int(10);
    if (roll === 0) return rng.unicode(10);
    if (roll === 1) return [1, 2, 3];
    if (roll === 2) return null;
    if (roll === 3) return rng.int(100);
    const p: Record<string, unknown> = {};
    for (let i = rng.int(4); i > 0; i--) p[rng.unicode(1 + rng.int(6))] = randomJson();
    if (rng.bool(0.3)) p.$set = rng.bool(0.8) ? { [rng.unicode(4)]: randomJson(), plan: rng.pick(["a", "b"]) } : randomJson();
    if (rng.bool(0.2)) p.$set_once = rng.bool(0.8) ? { first: randomJson() } : randomJson();
    if (rng.bool(0.15)) p.$unset = rng.bool() ? ["plan", rng.unicode(3), 5] : randomJson();
    if (rng.bool(0.2)) p.$anon_distinct_id = rng.bool(0.8) ? fuzzId() : randomJson();
    if (rng.bool(0.15)) p.alias = rng.bool(0.8) ? fuzzId() : randomJson();
    if (rng.bool(0.2)) {
      p.$group_type = rng.bool(0.8) ? rng.pick(["company", "team", "fz-type-1", "fz-type-2", "fz-type-3", "fz-type-4", rng.unicode(5)]) : randomJson();
      p.$group_key = rng.bool(0.8) ? `fz-group-${rng.int(5)}` : randomJson();
      p.$group_set = rng.bool(0.8) ? { [rng.unicode(3)]: randomJson() } : randomJson();
    }
    if (rng.bool(0.1)) p.deep = JSON.parse(nested(100 + rng.int(1500), "1"));
    if (rng.bool(0.1)) p.$ip = randomJson();
    if (rng.bool(0.3)) p.token = keyValue();
    if (rng.bool(0.1)) p.distinct_id = rng.bool() ? fuzzId() : randomJson();
    if (rng.bool(0.05)) p.$ignore_sent_at = randomJson();
    return p;
  }

  function event(): unknown {
    if (rng.bool(0.05)) return randomJson();
    if (rng.bool(0.03)) return [{ event: "x", distinct_id: "fz-array" }];
    const e: Record<string, unknown> = {};
    const set = (name: string, p: number, value: () => unknown) => {
      if (rng.bool(p)) e[name] = value();
    };
    if (rng.bool(0.4)) {
      // Mostly well-formed, so persons, groups and merges get exercised too.
      e.event = rng.pick(["$pageview", "clicked", "$identify", "$create_alias", "$merge_dangerously", "$groupidentify", "$group_identify"]);
      e.distinct_id = fuzzId();
      e.properties = properties();
      if (rng.bool(0.3)) e.timestamp = new Date(Date.now() - rng.int(1e10)).toISOString();
      if (rng.bool(0.3)) e.uuid = uuidv7();
      return e;
    }
    set("event", 0.9, () =>
      rng.pick<unknown>(["$pageview", "clicked", "$identify", "$create_alias", "$merge_dangerously", "$groupidentify", "$group_identify", "", null, 42, "x".repeat(201), rng.unicode(12), ["e"], { e: 1 }]),
    );
    set("distinct_id", 0.85, () =>
      rng.pick<unknown>([fuzzId(), fuzzId(), fuzzId(), "", "   ", null, 0, 12345, 1.25, true, { id: 1 }, ["a"], "d".repeat(201), rng.unicode(20)]),
    );
    set("$distinct_id", 0.05, fuzzId);
    set("properties", 0.85, properties);
    set("timestamp", 0.5, () =>
      rng.pick<unknown>([new Date(Date.now() - rng.int(1e10)).toISOString(), "garbage", rng.int(2e12), -1e15, 1e20, "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", new Date(Date.now() + 1e9).toISOString(), {}, null, ""]),
    );
    set("offset", 0.1, () => rng.pick<unknown>([rng.int(1e6), -1e9, 1e15, "10", null, 1e300]));
    set("uuid", 0.4, () => rng.pick<unknown>([uuidv7(), uuidv7().toUpperCase(), "not-a-uuid", 123, null, rng.unicode(36)]));
    set("$set", 0.1, () => (rng.bool(0.7) ? { [rng.unicode(4)]: randomJson() } : randomJson()));
    set("$set_once", 0.05, () => randomJson());
    set("api_key", 0.2, keyValue);
    set("token", 0.1, keyValue);
    set("$token", 0.05, keyValue);
    return e;
  }

  function envelope(): unknown {
    const roll = rng.int(20);
    if (roll < 8) {
      const body: Record<string, unknown> = { batch: Array.from({ length: rng.int(6) }, event) };
      if (rng.bool(0.85)) body[rng.pick(["api_key", "token"])] = rng.bool(0.5) ? realKey : keyValue();
      if (rng.bool(0.4)) body.sent_at = rng.pick<unknown>([new Date(Date.now() - rng.int(1e9)).toISOString(), "nope", 12, null, "0001-01-01T00:00:00Z"]);
      if (rng.bool(0.2)) body.historical_migration = rng.pick<unknown>([true, false, "true", 1, null]);
      return body;
    }
    if (roll < 11) return Array.from({ length: rng.int(5) }, event);
    if (roll < 15) return event();
    if (roll === 15) return { api_key: keyValue(), batch: rng.pick<unknown>([{ event: "x" }, "batch", 5, null, true]) };
    if (roll === 16) return rng.pick<unknown>([0, -1, 1e308, "hello", "", null, true, false, [], {}, [[[]]], [null], [1, 2, 3]]);
    if (roll === 17) return { api_key: realKey, event: "huge", distinct_id: "fz-huge", properties: { blob: "x".repeat(200_000 + rng.int(1_800_000)) } };
    if (roll === 18) return randomJson();
    return { api_key: realKey, event: rng.unicode(8), distinct_id: rng.unicode(8), properties: { [rng.unicode(5)]: rng.unicode(40) } };
  }

  /** Raw bytes of a JSON text that may itself be malformed. */
  function jsonText(): string {
    const roll = rng.int(12);
    if (roll === 0) return nested(500 + rng.int(4500), rng.bool() ? "1" : "");
    if (roll === 1) {
      const text = JSON.stringify(envelope()) ?? "null";
      return text.slice(0, rng.int(text.length + 1)); // truncated JSON
    }
    if (roll === 2) return `{"api_key": "${realKey}", "batch": [${"{".repeat(rng.int(50))}`;
    if (roll === 3) return rng.unicode(rng.int(200));
    return JSON.stringify(envelope()) ?? "null";
  }

  const percentEncode = (bytes: Buffer) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  const contentType = () =>
    rng.pick<string | undefined>(["application/json", "text/plain", "text/plain;charset=UTF-8", undefined, "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/octet-stream", "image/png"]);

  return function nextCase(): FuzzCase {
    const [path, handler] = rng.pick(HANDLERS);
    const query = new URLSearchParams();
    if (rng.bool(0.1)) query.set(rng.bool() ? "sent_at" : "_", rng.pick([String(Date.now()), String(Math.floor(Date.now() / 1000)), "-5", "abc", "99999999999999999999"]));
    if (rng.bool(0.1)) query.set("ver", rng.ascii(6));
    const headers: Record<string, string> = {};
    const type = contentType();
    if (type) headers["content-type"] = type;
    if (rng.bool(0.3)) headers["x-forwarded-for"] = rng.pick(["203.0.113.5", "::ffff:10.0.0.1, 10.0.0.2", "garbage", ", ,", "1.2.3.4, 5.6.7.8"]);
    if (rng.bool(0.2)) headers.origin = rng.pick(["https://a.example", "null", "http://localhost:3000"]);

    const text = jsonText();
    const raw = Buffer.from(text, "utf8");
    let body: Uint8Array | null = raw;
    let method = "POST";
    let kind: string;
    const roll = rng.int(22);
    switch (roll) {
      case 0:
        kind = "random bytes";
        body = rng.bytes(rng.int(3000));
        if (rng.bool(0.3)) query.set("compression", rng.pick(["gzip", "gzip-js", "base64", "lz64", "lz-string", "brotli", ""]));
        break;
      case 1:
        kind = "random bytes after gzip magic";
        body = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08]), rng.bytes(rng.int(500))]);
        break;
      case 2: {
        kind = "truncated gzip";
        const gz = gzipSync(raw);
        body = gz.subarray(0, Math.max(1, rng.int(gz.length)));
        break;
      }
      case 3: {
        kind = "gzip with a flipped byte";
        const gz = Buffer.from(gzipSync(raw));
        const i = 3 + rng.int(Math.max(1, gz.length - 3));
        if (i < gz.length) gz[i] = gz[i]! ^ (1 + rng.int(255));
        body = gz;
        break;
      }
      case 4:
        kind = "gzip via Content-Encoding";
        body = gzipSync(raw);
        headers["content-encoding"] = "gzip";
        break;
      case 5:
        kind = "gzip via hint";
        body = gzipSync(raw);
        query.set("compression", rng.pick(["gzip", "gzip-js"]));
        break;
      case 6:
        kind = "gzip sniffed";
        body = gzipSync(raw);
        headers["content-type"] = "text/plain";
        break;
      case 7:
        kind = "plain JSON with a gzip hint";
        query.set("compression", rng.pick(["gzip", "gzip-js"]));
        if (rng.bool()) headers["content-encoding"] = "gzip";
        break;
      case 8:
        kind = "plain JSON with a base64 or lz64 hint";
        query.set("compression", rng.pick(["base64", "lz64", "lz-string"]));
        break;
      case 9:
        kind = "base64 body";
        body = Buffer.from(raw.toString("base64"), "utf8");
        query.set("compression", rng.pick(["base64", "lz64", "gzip"]));
        break;
      case 10:
        kind = "base64 form";
        body = Buffer.from(`data=${rng.bool() ? encodeURIComponent(raw.toString("base64")) : raw.toString("base64")}${rng.bool(0.3) ? `&api_key=${percentEncode(Buffer.from(String(keyValue())))}` : ""}`);
        headers["content-type"] = "application/x-www-form-urlencoded";
        if (rng.bool(0.8)) query.set("compression", "base64");
        break;
      case 11: {
        kind = "lz64 form or body";
        const lz = LZString.compressToBase64(text);
        const mangled = rng.bool(0.3) ? lz.slice(0, rng.int(lz.length + 1)) : lz;
        if (rng.bool()) {
          body = Buffer.from(`data=${encodeURIComponent(mangled)}`);
          headers["content-type"] = "application/x-www-form-urlencoded";
        } else body = Buffer.from(mangled);
        query.set("compression", rng.pick(["lz64", "lz-string", "base64"]));
        break;
      }
      case 12:
        kind = "garbage lz64";
        body = Buffer.from(rng.bool() ? rng.ascii(rng.int(300)) : rng.bytes(rng.int(300)).toString("base64"));
        query.set("compression", "lz64");
        break;
      case 13:
        kind = "form without data";
        body = Buffer.from(rng.pick(["api_key=x", "", "data", "=&=&", `d=${rng.ascii(20)}`, percentEncode(rng.bytes(40))]));
        headers["content-type"] = "application/x-www-form-urlencoded";
        break;
      case 14:
        kind = "form with garbage data";
        body = Buffer.from(`data=${percentEncode(rng.bytes(rng.int(200)))}`);
        headers["content-type"] = "application/x-www-form-urlencoded";
        break;
      case 15:
        kind = "GET with data";
        method = "GET";
        body = null;
        query.set("data", rng.bool() ? raw.toString("base64") : text);
        if (rng.bool(0.3)) query.set("token", String(keyValue()));
        break;
      case 16:
        kind = "GET with garbage data";
        method = "GET";
        body = null;
        break;
      case 17:
        kind = "GET without data";
        method = "GET";
        body = null;
        break;
      case 18:
        kind = "empty POST";
        body = new Uint8Array();
        break;
      case 19:
        kind = "unsupported method";
        method = rng.pick(["PUT", "DELETE", "PATCH"]);
        break;
      default:
        kind = "plain JSON";
    }
    let url = `http://burrow.test${path}${query.size ? `?${query}` : ""}`;
    if (kind === "GET with garbage data") url += `${query.size ? "&" : "?"}data=${percentEncode(rng.bytes(rng.int(300)))}`;
    return { kind, handler, method, url, headers, body };
  };
}

let db: Database;
let projectId: number;
let key: string;
let quietId: number;

/** Every row seeded before the run (both projects), for a before/after comparison. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const seeded = `${SEED_PREFIX}%`;
  const tables: Record<string, [string, unknown[]]> = {
    events: [`SELECT * FROM events WHERE distinct_id LIKE $1 OR project_id = $2 ORDER BY project_id, uuid`, [seeded, quietId]],
    persons: [
      `SELECT * FROM persons WHERE project_id = $2 OR id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id LIKE $1) ORDER BY id`,
      [seeded, quietId],
    ],
    person_distinct_ids: [`SELECT * FROM person_distinct_ids WHERE project_id = $2 OR distinct_id LIKE $1 ORDER BY id`, [seeded, quietId]],
    groups: [`SELECT * FROM groups WHERE project_id = $2 OR group_key LIKE $1 ORDER BY id`, [seeded, quietId]],
    group_type_mappings: [`SELECT * FROM group_type_mappings WHERE project_id = $2 OR group_type LIKE $1 OR group_type = 'company' ORDER BY id`, [seeded, quietId]],
  };
  const out: Record<string, unknown[]> = {};
  for (const [table, [sql, params]] of Object.entries(tables)) out[table] = await db.sql.query(sql, params);
  return out;
}

async function eventCount(): Promise<number> {
  const [row] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1`, [projectId]);
  return row!.n;
}

async function seed(apiKey: string, tag: string) {
  const send = (body: unknown) =>
    handleBatch(new Request("http://burrow.test/batch/", { method: "POST", body: JSON.stringify(body) })).then((r) => expect(r.status).toBe(200));
  await send({
    api_key: apiKey,
    batch: [
      { event: "$pageview", distinct_id: `${SEED_PREFIX}${tag}-a`, properties: { $set: { plan: "seed" } } },
      { event: "$identify", distinct_id: `${SEED_PREFIX}${tag}-b`, properties: { $anon_distinct_id: `${SEED_PREFIX}${tag}-c`, $set: { email: "seed@example.com" } } },
      { event: "$groupidentify", distinct_id: `${SEED_PREFIX}${tag}-a`, properties: { $group_type: `${SEED_PREFIX}type`, $group_key: `${SEED_PREFIX}group`, $group_set: { name: "Seed" } } },
      { event: "$groupidentify", distinct_id: `${SEED_PREFIX}${tag}-a`, properties: { $group_type: "company", $group_key: `${SEED_PREFIX}company`, $group_set: { name: "Seed Co" } } },
      { event: "seeded", distinct_id: `${SEED_PREFIX}${tag}-d`, timestamp: "2024-01-01T00:00:00Z" },
    ],
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const alice = await bootstrap(db.prisma, { email: "fuzz@example.com", password: "pw12345678" });
  projectId = alice.project_id;
  key = alice.project_api_key;
  const quiet = await db.prisma.project.create({ data: { organizationId: alice.organization_id, name: "Quiet", apiToken: "phc_fuzz_quiet_project" } });
  quietId = quiet.id;
  await seed(key, "main");
  await seed("phc_fuzz_quiet_project", "quiet");
});

afterAll(async () => {
  await closeDb();
});

describe(`ingestion fuzz (${testDbKind})`, () => {
  it(`answers ${CASES} random malformed requests (seed ${SEED}) with no 5xx and changes no existing row`, { timeout: 60_000 }, async () => {
    const before = await snapshot();
    expect(Object.fromEntries(Object.entries(before).map(([table, rows]) => [table, rows.length]))).toEqual({
      events: 10,
      persons: 6,
      person_distinct_ids: 8,
      groups: 4,
      group_type_mappings: 4,
    });
    const eventsBefore = await eventCount();
    const nextCase = generator(new Rng(SEED), key);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const kinds = new Map<string, number>();
    let expectedStored = 0;
    let accepted = 0;

    for (let i = 0; i < CASES; i++) {
      const c = nextCase();
      kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
      const where = `case ${i} (${c.kind}, ${c.method} ${c.url.slice(0, 120)}) seed ${SEED}`;
      const body = c.body ?? new Uint8Array();
      let response: Response;
      try {
        response = await c.handler(new Request(c.url, { method: c.method, headers: c.headers, body: c.method === "GET" ? undefined : (body as Uint8Array<ArrayBuffer>) }));
      } catch (error) {
        failures.push(`${where}: handler threw ${String(error)}`);
        continue;
      }
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const text = await response.text();
      let json: Answer | null = null;
      try {
        json = JSON.parse(text) as Answer;
      } catch {
        json = null;
      }
      if (response.status >= 500) {
        failures.push(`${where}: ${response.status} ${text.slice(0, 200)}`);
      } else if (response.status === 200) {
        if (json?.status !== 1) failures.push(`${where}: 200 without status 1: ${text.slice(0, 200)}`);
        accepted++;
        // How many events the request held (decoding it again the same way), minus the dropped ones.
        const decoded = (await decodeRequest(c.method, new URL(c.url), new Headers(c.headers), body)).payload as Record<string, unknown>;
        const held = Array.isArray(decoded) ? decoded.length : Array.isArray(decoded?.batch) ? decoded.batch.length : 1;
        expectedStored += held - (json?.errors?.length ?? 0);
      } else if (response.status < 400 || typeof json?.detail !== "string" || json.detail === "") {
        failures.push(`${where}: ${response.status} without a JSON detail: ${text.slice(0, 200)}`);
      }
    }

    const summary = { statuses: Object.fromEntries([...statuses].sort()), kinds: Object.fromEntries(kinds), accepted, expectedStored };
    console.log(`fuzz (${testDbKind}) seed ${SEED}:`, JSON.stringify(summary));
    expect(failures.slice(0, 10), `${failures.length} failures`).toEqual([]);
    expect(accepted).toBeGreaterThan(20); // the generator also makes valid requests
    expect(statuses.size).toBeGreaterThan(3);

    // Every acknowledged event is stored; nothing else is.
    expect(await eventCount()).toBe(eventsBefore + expectedStored);
    // Rows that existed before the run are unchanged, field by field.
    expect(await snapshot()).toEqual(before);
    // What the run wrote is consistent: every event's person exists, every person has an id.
    const dangling = await db.sql.query(`SELECT uuid FROM events e WHERE project_id = $1 AND NOT EXISTS (SELECT 1 FROM persons p WHERE p.uuid = e.person_id)`, [projectId]);
    expect(dangling).toEqual([]);
    const orphans = await db.sql.query(`SELECT id FROM persons p WHERE NOT EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = p.id)`);
    expect(orphans).toEqual([]);
  });
});
