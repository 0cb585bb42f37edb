/**
 * /decide, /flags, /flags/definitions, /api/feature_flag/local_evaluation and the remote
 * config, through their real handlers on a real database (flags, persons, groups and
 * hash-key overrides stored with SQL and Prisma).
 */
import { gzipSync } from "node:zlib";
import LZString from "lz-string";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { hashSecret } from "@/server/auth/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { invalidateFlagDefinitions } from "@/server/flags/definitions";
import { flagHash, type FlagFilters } from "@/server/flags/evaluation";
import { handleLocalEvaluation } from "./local-evaluation";
import { handleDecide, handleFlags, handleRemoteConfig } from "./flags";
import { asRouteHandler } from "@/server/http/raw";
import { lz64Bomb } from "@/server/http/body/lz64-bomb";
import { rawFlagDefinitions } from "./local-evaluation";

const handleDefinitions = asRouteHandler(rawFlagDefinitions);

let db: Database;
let projectId: number;
let token: string;
let personalKey: string;
const SECRET = "phs_testSecretKeyForLocalEvaluation0123456789";
const OTHER_TOKEN = "phc_flags_other_project";

type Json = Record<string, any>;

async function call(handler: (r: Request) => Promise<Response>, path: string, init: { method?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string> } = {}) {
  const method = init.method ?? "POST";
  const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
  const body = method === "GET" || method === "OPTIONS" ? undefined : (init.raw ?? JSON.stringify(init.body));
  const response = await handler(new Request(`http://burrow.test${path}`, { method, headers, body }));
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.startsWith("application/json") && text;
  return { status: response.status, headers: response.headers, text, json: (isJson ? JSON.parse(text) : null) as Json };
}

async function createFlag(key: string, filters: FlagFilters, extra: { active?: boolean; ensureExperienceContinuity?: boolean; project?: number } = {}) {
  const flag = await db.prisma.featureFlag.create({
    data: { projectId: extra.project ?? projectId, key, filters: filters as object, active: extra.active ?? true, ensureExperienceContinuity: extra.ensureExperienceContinuity ?? false },
  });
  await invalidateFlagDefinitions(db, extra.project ?? projectId);
  return flag;
}

async function createPerson(distinctIds: string[], properties: Record<string, unknown>): Promise<number> {
  const [person] = await db.sql.query<{ id: number }>(
    `INSERT INTO persons (project_id, properties, updated_at) VALUES ($1, $2::jsonb, now()) RETURNING id`,
    [projectId, JSON.stringify(properties)],
  );
  for (const distinctId of distinctIds) {
    await db.sql.query(`INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) VALUES ($1, $2, $3)`, [projectId, person!.id, distinctId]);
  }
  return person!.id;
}

/** An id whose rollout hash for `key` is inside (or outside) `percentage`. */
function idWhere(key: string, inside: boolean, percentage = 50, prefix = "id"): string {
  for (let index = 0; ; index++) {
    const id = `${prefix}-${index}`;
    if (flagHash(key, id) <= percentage / 100 === inside) return id;
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const alice = await bootstrap(db.prisma, { email: "flags@example.com", password: "pw12345678" });
  projectId = alice.project_id;
  token = alice.project_api_key;
  personalKey = alice.personal_api_key;
  await db.prisma.project.update({ where: { id: projectId }, data: { secretApiTokenHash: hashSecret(SECRET) } });
  await db.prisma.project.create({ data: { organizationId: alice.organization_id, name: "Other", apiToken: OTHER_TOKEN } });

  await createFlag("always-on", { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"banner":"hello"}' } });
  await createFlag("never", { groups: [{ properties: [], rollout_percentage: 0 }] });
  await createFlag("pro-users", { groups: [{ properties: [{ key: "plan", value: "pro", operator: "exact", type: "person" }], rollout_percentage: 100 }] });
  await createFlag("swedes", { groups: [{ properties: [{ key: "$geoip_country_code", value: ["SE"], operator: "exact", type: "person" }] }] });
  await createFlag("colors", {
    groups: [{ properties: [], rollout_percentage: 100, variant: "blue" }],
    multivariate: { variants: [{ key: "red", rollout_percentage: 50 }, { key: "blue", rollout_percentage: 50 }] },
    payloads: { blue: '{"hex":"#00f"}', red: '"plain"' },
  });
  await createFlag("disabled", { groups: [{ rollout_percentage: 100 }] }, { active: false });
});

afterAll(async () => {
  await closeDb();
});

describe(`/decide and /flags (${testDbKind})`, () => {
  it("/decide?v=3 answers every flag, payloads of the enabled ones, and the config part", async () => {
    await createPerson(["decide-pro"], { plan: "pro" });
    const { status, json, headers } = await call(handleDecide, "/decide/?v=3", { body: { api_key: token, distinct_id: "decide-pro" }, headers: { origin: "https://app.example" } });
    expect(status).toBe(200);
    expect(headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(json.featureFlags).toEqual({ "always-on": true, never: false, "pro-users": true, swedes: false, colors: "blue", disabled: false });
    expect(json.featureFlagPayloads).toEqual({ "always-on": '{"banner":"hello"}', colors: '{"hex":"#00f"}' });
    expect(json).toMatchObject({
      errorsWhileComputingFlags: false,
      config: { enable_collect_everything: true },
      toolbarParams: {},
      isAuthenticated: false,
      supportedCompression: ["gzip", "gzip-js", "lz64"],
      sessionRecording: false,
    });
    expect(json.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("/decide v1, v2 and v4 shapes", async () => {
    const body = { token, distinct_id: "nobody-stored" };
    expect((await call(handleDecide, "/decide/", { body })).json.featureFlags).toEqual(["always-on", "colors"]);
    expect((await call(handleDecide, "/decide/?v=2", { body })).json.featureFlags).toEqual({ "always-on": true, colors: "blue" });
    const v4 = (await call(handleDecide, "/decide?v=4", { body })).json;
    expect(v4.flags["colors"]).toEqual({
      key: "colors",
      enabled: true,
      variant: "blue",
      reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" },
      metadata: { id: expect.any(Number), version: 1, description: null, payload: '{"hex":"#00f"}' },
    });
    expect(v4.flags["disabled"]).toMatchObject({ enabled: false, reason: { code: "flag_disabled" } });
    expect(v4.errorsWhileComputingFlags).toBe(false);
  });

  it("/flags?v=2 answers the flags map; config=true adds the config; no v answers the legacy maps", async () => {
    const body = { token, distinct_id: "flags-user", person_properties: { plan: "pro" } };
    const v2 = (await call(handleFlags, "/flags/?v=2", { body })).json;
    expect(Object.keys(v2).sort()).toEqual(["errorsWhileComputingFlags", "evaluatedAt", "flags", "requestId"]);
    expect(v2.flags["pro-users"]).toMatchObject({ enabled: true, variant: null, reason: { code: "condition_match" }, metadata: { payload: null } });
    expect(v2.flags["never"]).toMatchObject({ enabled: false, reason: { code: "out_of_rollout_bound", condition_index: 0, description: "Out of rollout bound" } });
    const withConfig = (await call(handleFlags, "/flags?v=2&config=true", { body })).json;
    expect(withConfig).toMatchObject({ supportedCompression: ["gzip", "gzip-js", "lz64"], config: { enable_collect_everything: true }, flags: expect.any(Object) });
    const legacy = (await call(handleFlags, "/flags", { body })).json;
    expect(legacy).toMatchObject({ featureFlags: { "pro-users": true, never: false }, featureFlagPayloads: { "always-on": '{"banner":"hello"}' }, errorsWhileComputingFlags: false });
  });

  it("request person_properties override the stored person's", async () => {
    await createPerson(["override-me"], { plan: "pro" });
    const stored = await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "override-me" } });
    expect(stored.json.flags["pro-users"].enabled).toBe(true);
    const overridden = await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "override-me", person_properties: { plan: "free" } } });
    expect(overridden.json.flags["pro-users"].enabled).toBe(false);
  });

  it("adds GeoIP properties from the client address, unless geoip_disable", async () => {
    const headers = { "x-forwarded-for": "89.160.20.129, 10.0.0.1" };
    expect((await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "geo" }, headers })).json.flags["swedes"].enabled).toBe(true);
    expect((await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "geo", geoip_disable: true }, headers })).json.flags["swedes"].enabled).toBe(false);
    const british = { "x-forwarded-for": "81.2.69.142" };
    expect((await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "geo" }, headers: british })).json.flags["swedes"].enabled).toBe(false);
    // The request's own properties win over GeoIP.
    const claimed = { token, distinct_id: "geo", person_properties: { $geoip_country_code: "SE" } };
    expect((await call(handleFlags, "/flags/?v=2", { body: claimed, headers: british })).json.flags["swedes"].enabled).toBe(true);
  });

  it("accepts the encodings ingestion accepts: gzip, base64 and lz64 forms, text/plain", async () => {
    const body = JSON.stringify({ token, distinct_id: "enc", person_properties: { plan: "pro" } });
    const gz = await call(handleFlags, "/flags/?v=2", { raw: gzipSync(body), headers: { "content-type": "text/plain" } });
    expect(gz.json.flags["pro-users"].enabled).toBe(true);
    const form = await call(handleFlags, "/flags/?v=2&compression=base64", {
      raw: `data=${encodeURIComponent(Buffer.from(body).toString("base64"))}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.json.flags["pro-users"].enabled).toBe(true);
    const lz = await call(handleDecide, "/decide/?v=3&compression=lz64", { raw: LZString.compressToBase64(body), headers: { "content-type": "text/plain" } });
    expect(lz.json.featureFlags["pro-users"]).toBe(true);
  });

  it("honours compression=lz64 and gzip-js sent as form fields beside data=, on /decide and /flags", async () => {
    const body = JSON.stringify({ token, distinct_id: "enc-form", person_properties: { plan: "pro" } });
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const lz = await call(handleDecide, "/decide/?v=3", { raw: `data=${encodeURIComponent(LZString.compressToBase64(body))}&compression=lz64`, headers: form });
    expect(lz.json.featureFlags["pro-users"]).toBe(true);
    const gz = await call(handleFlags, "/flags/?v=2", { raw: `data=${encodeURIComponent(gzipSync(body).toString("base64"))}&compression=gzip-js`, headers: form });
    expect(gz.json.flags["pro-users"].enabled).toBe(true);
  });

  it("refuses an lz64 bomb (55 KB that would expand to 289 MB) with 413, as a body or as form data=", async () => {
    const bomb = lz64Bomb(24_000);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    for (const [handler, path] of [[handleDecide, "/decide/?v=3"], [handleFlags, "/flags/?v=2"]] as const) {
      const raw = await call(handler, `${path}&compression=lz64`, { raw: bomb, headers: { "content-type": "text/plain" } });
      expect(raw.status).toBe(413);
      expect(raw.json).toMatchObject({ type: "validation_error", code: "request_too_large" });
      const inForm = await call(handler, path, { raw: `data=${encodeURIComponent(bomb)}&compression=lz64`, headers: form });
      expect(inForm.status).toBe(413);
    }
  });

  it("answers CORS preflights", async () => {
    for (const handler of [handleDecide, handleFlags]) {
      const { status, headers } = await call(handler, "/flags/?v=2", {
        method: "OPTIONS",
        headers: { origin: "https://site.example", "access-control-request-headers": "content-type" },
      });
      expect(status).toBe(200);
      expect(headers.get("access-control-allow-origin")).toBe("https://site.example");
      expect(headers.get("access-control-allow-headers")).toBe("content-type");
      expect(headers.get("access-control-allow-methods")).toContain("POST");
    }
  });

  it("refuses missing and wrong keys (401), a missing distinct id and malformed bodies (400)", async () => {
    // PostHog's type and code, but the way to the key is Burrow's settings, as capture says.
    for (const handler of [handleDecide, handleFlags]) {
      expect(await call(handler, "/flags/?v=2", { body: { distinct_id: "x" } })).toMatchObject({
        status: 401,
        json: {
          type: "authentication_error",
          code: "no_api_key",
          detail: "No project API key provided. You can find your project API key in Burrow's project settings.",
          attr: null,
        },
      });
      const wrong = await call(handler, "/decide/?v=3", { body: { api_key: "phc_nope", distinct_id: "x" } });
      expect(wrong.status).toBe(401);
      expect(wrong.json).toEqual({
        type: "authentication_error",
        code: "invalid_api_key",
        detail: "Project API key invalid. You can find your project API key in Burrow's project settings.",
        attr: null,
      });
    }
    const localEvaluation = await call(handleLocalEvaluation, "/api/feature_flag/local_evaluation/?token=phc_nope", {
      method: "GET",
      headers: { authorization: `Bearer ${personalKey}` },
    });
    expect(localEvaluation).toMatchObject({
      status: 401,
      json: { detail: "Project API key invalid. You can find your project API key in Burrow's project settings." },
    });
    expect(await call(handleFlags, "/flags/?v=2", { body: { token } })).toMatchObject({ status: 400, json: { code: "missing_distinct_id", detail: "Decide requires a distinct_id." } });
    expect((await call(handleFlags, "/flags/?v=2", { raw: "{not json" })).json).toMatchObject({ type: "validation_error", code: "malformed_data" });
    const badShape = await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "x", person_properties: "not an object" } });
    expect(badShape).toMatchObject({ status: 400, json: { code: "malformed_data" } });
  });

  it("answers a bare GET /decide/ with the config and no flags; disable_flags with no flags", async () => {
    const get = await call(handleDecide, "/decide/", { method: "GET" });
    expect(get.status).toBe(200);
    expect(get.json).toMatchObject({ featureFlags: {}, config: { enable_collect_everything: true } });
    const disabled = await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "d", disable_flags: true } });
    expect(disabled.json.flags).toEqual({});
  });

  it("evaluates only flag_keys_to_evaluate (and flag_keys) when given", async () => {
    const only = await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "k", flag_keys_to_evaluate: ["never", "always-on"] } });
    expect(Object.keys(only.json.flags).sort()).toEqual(["always-on", "never"]);
    const alias = await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "k", flag_keys: ["colors"] } });
    expect(Object.keys(alias.json.flags)).toEqual(["colors"]);
  });

  it("evaluates a catastrophic regex in linear time for an anonymous caller", async () => {
    // V8's backtracking took minutes on this input (1.7 s at 27 characters, doubling with each), blocking every other request.
    const person = (operator: string) => ({ groups: [{ properties: [{ key: "name", type: "person", operator, value: "^(a+)+$" }], rollout_percentage: 100 }] });
    await createFlag("redos-regex", person("regex"));
    await createFlag("redos-not-regex", person("not_regex"));
    const ask = () => call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "redos", person_properties: { name: `${"a".repeat(34)}b` }, flag_keys_to_evaluate: ["redos-regex", "redos-not-regex"] } });
    await ask(); // warm: definitions loaded, patterns compiled
    const start = performance.now();
    const answer = await ask();
    const elapsed = performance.now() - start;
    expect(answer.json.flags["redos-regex"].enabled).toBe(false);
    expect(answer.json.flags["redos-not-regex"].enabled).toBe(true);
    expect(elapsed).toBeLessThan(5_000); // backtracking: minutes
  });

  it("serves a changed flag at once after invalidation", async () => {
    const flag = await createFlag("toggled", { groups: [{ rollout_percentage: 100 }] });
    const ask = async () => (await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "t" } })).json.flags["toggled"];
    expect((await ask()).enabled).toBe(true);
    await db.prisma.featureFlag.update({ where: { id: flag.id }, data: { active: false, version: { increment: 1 } } });
    await invalidateFlagDefinitions(db, projectId);
    expect(await ask()).toMatchObject({ enabled: false, metadata: { version: 2 } });
    await db.prisma.featureFlag.update({ where: { id: flag.id }, data: { deleted: true } });
    await invalidateFlagDefinitions(db, projectId);
    expect(await ask()).toBeUndefined();
  });

  describe("group flags", () => {
    beforeAll(async () => {
      await db.prisma.groupTypeMapping.create({ data: { projectId, groupType: "company", groupTypeIndex: 0 } });
      await db.sql.query(`INSERT INTO groups (project_id, group_type_index, group_key, group_properties, updated_at) VALUES ($1, 0, 'acme', '{"tier":"enterprise"}', now())`, [projectId]);
      await createFlag("enterprise-companies", {
        aggregation_group_type_index: 0,
        groups: [{ properties: [{ key: "tier", value: "enterprise", type: "group", group_type_index: 0 }], rollout_percentage: 100 }],
      });
    });

    it("reads the stored group's properties, overridden by group_properties", async () => {
      const ask = async (body: Json) => (await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "g", ...body } })).json.flags["enterprise-companies"];
      expect(await ask({ groups: { company: "acme" } })).toMatchObject({ enabled: true });
      expect(await ask({ groups: { company: "acme" }, group_properties: { company: { tier: "free" } } })).toMatchObject({ enabled: false, reason: { code: "no_condition_match" } });
      expect(await ask({ groups: { company: "unknown-co" }, group_properties: { company: { tier: "enterprise" } } })).toMatchObject({ enabled: true });
      expect(await ask({})).toMatchObject({ enabled: false, reason: { code: "no_group_type" } });
    });
  });

  describe("experience continuity", () => {
    it("keeps bucketing on $anon_distinct_id after identify", async () => {
      const key = "continuous";
      await createFlag(key, { groups: [{ rollout_percentage: 50 }] }, { ensureExperienceContinuity: true });
      const anon = idWhere(key, true, 50, "anon");
      const identified = idWhere(key, false, 50, "user");
      const personId = await createPerson([anon, identified], {});
      const ask = async (body: Json) => (await call(handleFlags, "/flags/?v=2", { body: { token, ...body } })).json.flags[key].enabled;
      expect(await ask({ distinct_id: identified })).toBe(false);
      expect(await ask({ distinct_id: identified, $anon_distinct_id: anon })).toBe(true);
      // The override is stored: later requests without the anonymous id keep the value.
      expect(await ask({ distinct_id: identified })).toBe(true);
      const rows = await db.sql.query<{ hash_key: string; person_id: number }>(`SELECT hash_key, person_id FROM feature_flag_hash_key_overrides WHERE feature_flag_key = $1`, [key]);
      expect(rows).toEqual([{ hash_key: anon, person_id: personId }]);
      // A second $anon_distinct_id does not replace the first.
      await ask({ distinct_id: identified, $anon_distinct_id: "someone-else" });
      expect((await db.sql.query(`SELECT hash_key FROM feature_flag_hash_key_overrides WHERE feature_flag_key = $1`, [key])).length).toBe(1);
    });
  });

  describe("when the database fails", () => {
    it("answers 200 with the flags that need no stored data and errorsWhileComputingFlags", async () => {
      // Warm the caches (project key, definitions), then let person lookups fail.
      await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "warm" } });
      const failing: Database = {
        ...db,
        sql: {
          ...db.sql,
          query: (text: string, params?: unknown[]) =>
            text.includes("person_distinct_ids") ? Promise.reject(new Error("connection terminated")) : db.sql.query(text, params),
        } as Database["sql"],
      };
      registerDb(failing);
      try {
        const { status, json } = await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "down" } });
        expect(status).toBe(200);
        expect(json.errorsWhileComputingFlags).toBe(true);
        expect(json.flags["always-on"]).toMatchObject({ enabled: true });
        expect(json.flags["never"]).toMatchObject({ enabled: false });
        expect(json.flags["pro-users"]).toBeUndefined();
        const v3 = await call(handleDecide, "/decide/?v=3", { body: { token, distinct_id: "down" } });
        expect(v3.json).toMatchObject({ errorsWhileComputingFlags: true, featureFlags: { "always-on": true } });
        expect(v3.json.featureFlags).not.toHaveProperty("pro-users");
      } finally {
        registerDb(db);
      }
    });
  });
});

describe(`local evaluation definitions (${testDbKind})`, () => {
  let readOnlyKey: string;
  let noFlagScopeKey: string;
  beforeEach(async () => {
    readOnlyKey ??= (await createPersonalApiKey(db.prisma, (await db.prisma.user.findFirstOrThrow()).id, { scopes: ["feature_flag:read"] })).key;
    noFlagScopeKey ??= (await createPersonalApiKey(db.prisma, (await db.prisma.user.findFirstOrThrow()).id, { scopes: ["dashboard:read"] })).key;
  });

  it("/flags/definitions serves PostHog's shape to a personal key, with an ETag and 304", async () => {
    const first = await call(handleDefinitions, `/flags/definitions?token=${token}&send_cohorts`, { method: "GET", headers: { authorization: `Bearer ${readOnlyKey}` } });
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(first.json.group_type_mapping).toEqual(expect.any(Object));
    expect(first.json.cohorts).toEqual({});
    const colors = first.json.flags.find((flag: Json) => flag.key === "colors");
    expect(colors).toMatchObject({ id: expect.any(Number), team_id: projectId, key: "colors", active: true, deleted: false, ensure_experience_continuity: false, filters: { multivariate: { variants: expect.any(Array) } } });
    expect(first.json.flags.find((flag: Json) => flag.key === "disabled")).toMatchObject({ active: false });

    const again = await call(handleDefinitions, `/flags/definitions?token=${token}&send_cohorts`, { method: "GET", headers: { authorization: `Bearer ${readOnlyKey}`, "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");

    await createFlag("new-for-etag", { groups: [{ rollout_percentage: 10 }] });
    const changed = await call(handleDefinitions, `/flags/definitions?token=${token}`, { method: "GET", headers: { authorization: `Bearer ${readOnlyKey}`, "if-none-match": etag! } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(changed.json.flags.some((flag: Json) => flag.key === "new-for-etag")).toBe(true);
  });

  it("serves flag conditions (stored by flag id) by key with their dependency_chain, and evaluates them", async () => {
    const base = await createFlag("dep-base", { groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }] }] });
    const middle = await createFlag("dep-middle", { groups: [{ properties: [{ key: String(base.id), value: true, operator: "flag_evaluates_to", type: "flag" }] }] });
    await createFlag("dep-top", { groups: [{ properties: [{ key: String(middle.id), value: true, operator: "flag_evaluates_to", type: "flag" }] }] });
    const cycleA = await createFlag("cycle-a", { groups: [] });
    const cycleB = await createFlag("cycle-b", { groups: [{ properties: [{ key: String(cycleA.id), value: true, operator: "flag_evaluates_to", type: "flag" }] }] });
    await db.prisma.featureFlag.update({ where: { id: cycleA.id }, data: { filters: { groups: [{ properties: [{ key: String(cycleB.id), value: true, operator: "flag_evaluates_to", type: "flag" }] }] } } });
    await invalidateFlagDefinitions(db, projectId);

    const { json } = await call(handleDefinitions, `/flags/definitions?token=${token}`, { method: "GET", headers: { authorization: `Bearer ${readOnlyKey}` } });
    const filterOf = (key: string) => json.flags.find((flag: Json) => flag.key === key).filters.groups[0].properties[0];
    expect(filterOf("dep-top")).toMatchObject({ key: "dep-middle", type: "flag", dependency_chain: ["dep-base", "dep-middle"] });
    expect(filterOf("dep-middle")).toMatchObject({ key: "dep-base", dependency_chain: ["dep-base"] });
    expect(filterOf("cycle-a")).toMatchObject({ key: "cycle-b", dependency_chain: [] });

    const ask = async (plan: string) => (await call(handleFlags, "/flags/?v=2", { body: { token, distinct_id: "dep", person_properties: { plan } } })).json.flags;
    expect((await ask("pro"))["dep-top"].enabled).toBe(true);
    expect((await ask("free"))["dep-top"].enabled).toBe(false);
    expect((await ask("pro"))["cycle-a"].enabled).toBe(false);
  });

  it("/flags/definitions takes the project's secret key", async () => {
    const ok = await call(handleDefinitions, `/flags/definitions?token=${token}&send_cohorts`, { method: "GET", headers: { authorization: `Bearer ${SECRET}` } });
    expect(ok.status).toBe(200);
    const wrongProject = await call(handleDefinitions, `/flags/definitions?token=${OTHER_TOKEN}`, { method: "GET", headers: { authorization: `Bearer ${SECRET}` } });
    expect(wrongProject.status).toBe(403);
    const badSecret = await call(handleDefinitions, `/flags/definitions?token=${token}`, { method: "GET", headers: { authorization: "Bearer phs_wrong" } });
    expect(badSecret).toMatchObject({ status: 401, json: { type: "authentication_error", code: "authentication_failed" } });
  });

  it("/flags/definitions refuses no key, a wrong key, a key without feature_flag:read and an unknown token", async () => {
    const path = `/flags/definitions?token=${token}`;
    expect(await call(handleDefinitions, path, { method: "GET" })).toMatchObject({ status: 401, json: { code: "not_authenticated" } });
    expect(await call(handleDefinitions, path, { method: "GET", headers: { authorization: "Bearer phx_nope" } })).toMatchObject({ status: 401, json: { code: "authentication_failed" } });
    expect(await call(handleDefinitions, path, { method: "GET", headers: { authorization: `Bearer ${noFlagScopeKey}` } })).toMatchObject({
      status: 403,
      json: { code: "permission_denied", detail: "API key missing required scope 'feature_flag:read'" },
    });
    expect(await call(handleDefinitions, "/flags/definitions?token=phc_unknown", { method: "GET", headers: { authorization: `Bearer ${personalKey}` } })).toMatchObject({ status: 401 });
  });

  it("/api/feature_flag/local_evaluation/ serves the same body by token, project_id or the current project", async () => {
    const byToken = await call(handleLocalEvaluation, `/api/feature_flag/local_evaluation/?token=${token}&send_cohorts`, { method: "GET", headers: { authorization: `Bearer ${personalKey}` } });
    expect(byToken.status).toBe(200);
    const byId = await call(handleLocalEvaluation, `/api/feature_flag/local_evaluation/?project_id=${projectId}`, { method: "GET", headers: { authorization: `Bearer ${personalKey}` } });
    const current = await call(handleLocalEvaluation, `/api/feature_flag/local_evaluation`, { method: "GET", headers: { authorization: `Bearer ${personalKey}` } });
    expect(byId.text).toBe(byToken.text);
    expect(current.text).toBe(byToken.text);
    expect(byToken.headers.get("etag")).toBeTruthy();
  });
});

describe(`remote config (${testDbKind})`, () => {
  it("/array/<key>/config answers the config part; config.js assigns it for posthog-js", async () => {
    const json = await call(handleRemoteConfig, `/array/${token}/config`, { method: "GET" });
    expect(json.status).toBe(200);
    expect(json.json).toMatchObject({ token, hasFeatureFlags: true, supportedCompression: ["gzip", "gzip-js", "lz64"], sessionRecording: false, surveys: false, siteApps: [] });
    const js = await call(handleRemoteConfig, `/array/${token}/config.js`, { method: "GET" });
    expect(js.headers.get("content-type")).toBe("application/javascript");
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: Json }> } = {};
    new Function("window", js.text)(window);
    expect(window._POSTHOG_REMOTE_CONFIG?.[token]?.config).toEqual(json.json);
    expect((await call(handleRemoteConfig, `/array/phc_unknown/config`, { method: "GET" })).status).toBe(404);
  });
});
