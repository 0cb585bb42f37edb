/**
 * The REST resource `/api/environments/:project_id/pipeline_transformation_configs/…` and
 * `/api/plugins/`, through the real Next route handlers on a real database: every
 * operation, status and validation error. (Authentication and scopes of every route are
 * in src/server/http/rest/scope-matrix.int.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as pluginsRoute from "@/app/api/plugins/route";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { SECRET_MASK, type ConfigResource } from "./present";
import { transformationRuntime } from "./runtime";
import { restRoute } from "@/test-support/rest-routes";

const configRoute = restRoute("environments", "pipeline_transformation_configs/:id");
const activityRoute = restRoute("environments", "pipeline_transformation_configs/:id/activity");
const frontendRoute = restRoute("environments", "pipeline_transformation_configs/:id/frontend");
const jobRoute = restRoute("environments", "pipeline_transformation_configs/:id/job");
const migrateRoute = restRoute("environments", "pipeline_transformation_configs/:id/migrate");
const rearrangeRoute = restRoute("environments", "pipeline_transformation_configs/rearrange");
const listRoute = restRoute("environments", "pipeline_transformation_configs");
const projectsListRoute = restRoute("projects", "pipeline_transformation_configs");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

let db: Database;
let projectId: number;
let otherProjectId: number;
let key: string;
let projectKey: string;
const plugin = {} as Record<string, number>;

const BASE = () => `/api/environments/${projectId}/pipeline_transformation_configs`;

async function call(
  /** A route module: its exported method handlers. */
  route: object,
  method: Method,
  path: string,
  options: { body?: unknown; raw?: string; params?: Record<string, string>; key?: string } = {},
) {
  const request = new Request(`http://localhost${path}`, {
    method,
    headers: { authorization: `Bearer ${options.key ?? key}`, "content-type": "application/json" },
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const response = await (route as Record<Method, Handler>)[method](request, { params: Promise.resolve({ project_id: String(projectId), ...options.params }) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (the frontend script)
  }
  return { status: response.status, body: body as any, contentType: response.headers.get("content-type") };
}

const create = (body: Record<string, unknown>) => call(listRoute, "POST", `${BASE()}/`, { body });
const retrieve = (id: number) => call(configRoute, "GET", `${BASE()}/${id}/`, { params: { id: String(id) } });
const patch = (id: number, body: unknown) => call(configRoute, "PATCH", `${BASE()}/${id}/`, { body, params: { id: String(id) } });
const list = (query = "") => call(listRoute, "GET", `${BASE()}/${query}`);

async function ingest(properties: Record<string, unknown>, distinctId = `d-${Math.random()}`) {
  await sendBatch(projectKey, [{ event: "rest test", distinct_id: distinctId, properties }]);
  const [row] = await db.sql.query<{ properties: Record<string, unknown> }>(`SELECT properties FROM events WHERE distinct_id = $1`, [distinctId]);
  return row!.properties;
}

/** Removes every config of the project (soft, as DELETE does), so a test starts with none. */
async function clear() {
  const { body } = await list("?limit=1000");
  for (const config of body.results as ConfigResource[]) await call(configRoute, "DELETE", `${BASE()}/${config.id}/`, { params: { id: String(config.id) } });
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "rest-transform@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
  projectKey = owner.project_api_key;
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: "phc_other_transform" } })).id;
  for (const row of await db.prisma.plugin.findMany()) plugin[row.key] = row.id;
});

afterAll(async () => {
  await closeDb();
});

describe(`pipeline transformation configs REST (${testDbKind})`, () => {
  describe("GET /api/plugins/", () => {
    it("lists the built-in plugins with their config forms", async () => {
      const { status, body } = await call(pluginsRoute, "GET", "/api/plugins/");
      expect(status).toBe(200);
      expect(body.count).toBe(9);
      expect(body.results.map((p: { key: string }) => p.key)).toContain("geoip");
      const flatten = body.results.find((p: { key: string }) => p.key === "flatten");
      expect(flatten).toEqual({
        id: plugin.flatten,
        key: "flatten",
        plugin_type: "builtin",
        name: "Flatten properties",
        description: expect.stringContaining("nested"),
        icon: null,
        config_schema: [
          expect.objectContaining({ key: "separator", type: "string", default: "__" }),
          expect.objectContaining({ key: "keep_nested", type: "boolean", default: true }),
        ],
        capabilities: { methods: ["processEvent"], jobs: ["dry_run"] },
      });
    });

    it("needs plugin:read", async () => {
      const user = await db.prisma.user.findFirstOrThrow({ where: { email: "rest-transform@example.com" } });
      const { key: flagsOnly } = await createPersonalApiKey(db.prisma, user.id, { scopes: ["feature_flag:read"] });
      const { key: pluginRead } = await createPersonalApiKey(db.prisma, user.id, { scopes: ["plugin:read"] });
      expect(await call(pluginsRoute, "GET", "/api/plugins/", { key: flagsOnly })).toMatchObject({
        status: 403,
        body: { type: "authentication_error", code: "permission_denied", detail: "API key missing required scope 'plugin:read'", attr: null },
      });
      expect((await call(pluginsRoute, "GET", "/api/plugins/", { key: pluginRead })).status).toBe(200);
      expect((await call(pluginsRoute, "POST", "/api/plugins/", { body: {} })).status).toBe(405);
    });
  });

  describe("create", () => {
    it("answers 201 with the config: defaults filled, name and description from the plugin, plugin_info", async () => {
      await clear();
      const { status, body } = await create({ plugin: plugin.flatten, order: 3 });
      expect(status).toBe(201);
      expect(body).toEqual({
        id: expect.any(Number),
        plugin: plugin.flatten,
        enabled: false,
        order: 3,
        config: { separator: "__", keep_nested: true },
        error: null,
        team_id: projectId,
        plugin_info: expect.objectContaining({ id: plugin.flatten, key: "flatten", name: "Flatten properties" }),
        delivery_rate_24h: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        name: "Flatten properties",
        description: expect.stringContaining("nested"),
        deleted: false,
      });
      expect((await retrieve(body.id)).body).toEqual(body);
    });

    it("puts a config without order after the last one, keeps its own name and ignores read-only fields", async () => {
      await clear();
      const first = (await create({ plugin: plugin["url-parser"], order: 7 })).body;
      const second = await create({ plugin: plugin.rename, name: "Tidy names", description: "mine", enabled: true, id: 999, team_id: 1, error: "x" });
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ order: first.order + 1, name: "Tidy names", description: "mine", enabled: true, error: null, team_id: projectId });
      expect(second.body.id).not.toBe(999);
    });

    it.each([
      [{}, "plugin", "plugin must be an integer."],
      [{ plugin: "flatten" }, "plugin", "plugin must be an integer."],
      [{ plugin: 99999 }, "plugin", 'Invalid pk "99999" - object does not exist.'],
      [{ plugin: 1.5 }, "plugin", "plugin must be an integer."],
      [{ plugin: "$flatten", order: -1 }, "plugin", "plugin must be an integer."],
      [{ pluginKey: "flatten", order: -1 }, "plugin", "plugin must be an integer."],
    ])("answers 400 for %j", async (body, attr, detail) => {
      expect(await create(body)).toMatchObject({ status: 400, body: { type: "validation_error", code: "invalid_input", attr, detail } });
    });

    it("validates the other fields and the config against the plugin's schema", async () => {
      const bad = async (body: Record<string, unknown>) => (await create({ plugin: plugin.flatten, ...body })).body;
      expect(await bad({ order: -1 })).toMatchObject({ attr: "order", detail: "order must not be negative." });
      expect(await bad({ enabled: "yes" })).toMatchObject({ attr: "enabled", detail: "enabled must be true or false." });
      expect(await bad({ name: 5 })).toMatchObject({ attr: "name" });
      expect(await bad({ config: [] })).toMatchObject({ attr: "config", detail: "config must be a JSON object." });
      expect(await bad({ config: { separator: "" } })).toMatchObject({ attr: "config__separator", detail: "separator: the separator must not be empty." });
      expect(await bad({ config: { keep_nested: "no" } })).toMatchObject({ attr: "config__keep_nested" });
      expect(await bad({ config: { colour: "red" } })).toMatchObject({ attr: "config__colour", detail: expect.stringContaining("Unknown config field 'colour'") });
      const dropFilter = await create({ plugin: plugin["drop-events"], config: { properties: [{ key: "x", operator: "between", value: 1 }] } });
      expect(dropFilter).toMatchObject({ status: 400, body: { attr: expect.stringMatching(/^config__properties/), detail: expect.stringContaining("Unknown operator 'between'") } });
      // Patterns RE2 cannot run in linear time: refused when saved, not left to stall ingestion.
      for (const value of ["(a)\\1", "(?=x)"]) {
        const redos = await create({ plugin: plugin["drop-events"], config: { properties: [{ key: "name", operator: "regex", value }] } });
        expect(redos, value).toMatchObject({
          status: 400,
          body: { type: "validation_error", code: "invalid_input", attr: expect.stringMatching(/^config__properties/), detail: expect.stringContaining("Invalid regular expression") },
        });
      }
      const malformed = await call(listRoute, "POST", `${BASE()}/`, { raw: "{not json" });
      expect(malformed).toMatchObject({ status: 400, body: { type: "validation_error", detail: "Malformed JSON request body." } });
    });

    it("masks secret fields and keeps them when a write sends the mask back", async () => {
      await clear();
      const { body } = await create({ plugin: plugin.pii, config: { salt: "pepper" } });
      expect(body.config.salt).toBe(SECRET_MASK);
      const storedSalt = async () => ((await db.prisma.pluginConfig.findUniqueOrThrow({ where: { id: body.id } })).config as { salt: string }).salt;
      expect(await storedSalt()).toBe("pepper");
      const updated = await patch(body.id, { config: { ...body.config, mode: "redact" } });
      expect(updated.body.config).toMatchObject({ salt: SECRET_MASK, mode: "redact" });
      expect(await storedSalt()).toBe("pepper");
      await patch(body.id, { config: { salt: "salt-2" } });
      expect(await storedSalt()).toBe("salt-2");
      const generated = await create({ plugin: plugin.pii, config: { salt: "" } });
      const row = await db.prisma.pluginConfig.findUniqueOrThrow({ where: { id: generated.body.id } });
      expect((row.config as { salt: string }).salt).toMatch(/^[0-9a-f]{32}$/);
    });
  });

  describe("list and retrieve", () => {
    it("lists by order (then plugin), paginated, without deleted configs, under both prefixes", async () => {
      await clear();
      const c = (await create({ plugin: plugin.geoip, order: 2 })).body;
      const a = (await create({ plugin: plugin.rename, order: 0 })).body;
      const b = (await create({ plugin: plugin.flatten, order: 1 })).body;
      const gone = (await create({ plugin: plugin.pii, order: 0, deleted: true })).body;
      expect(gone.enabled).toBe(false);
      const all = await list();
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ count: 3, next: null, previous: null });
      expect(all.body.results.map((r: ConfigResource) => r.id)).toEqual([a.id, b.id, c.id]);
      const page = await list("?limit=1&offset=1");
      expect(page.body.results.map((r: ConfigResource) => r.id)).toEqual([b.id]);
      expect(page.body.next).toMatch(/limit=1&offset=2$/);
      expect(page.body.previous).toMatch(/limit=1$/);
      expect((await list("?limit=abc")).body).toMatchObject({ attr: "limit" });
      const viaProjects = await call(projectsListRoute, "GET", `/api/projects/${projectId}/pipeline_transformation_configs/`);
      expect(viaProjects.body.results.map((r: ConfigResource) => r.id)).toEqual([a.id, b.id, c.id]);
      expect(await retrieve(gone.id)).toMatchObject({ status: 404, body: { type: "invalid_request", code: "not_found" } });
    });

    it("answers 404 for unknown ids, ids of another project, and non-numeric ids", async () => {
      const other = await db.prisma.pluginConfig.create({ data: { projectId: otherProjectId, pluginId: plugin.flatten!, enabled: true } });
      expect((await retrieve(other.id)).status).toBe(404);
      expect((await patch(other.id, { enabled: false })).status).toBe(404);
      expect((await retrieve(2_000_000_000)).status).toBe(404);
      expect((await call(configRoute, "GET", `${BASE()}/abc/`, { params: { id: "abc" } })).status).toBe(404);
      expect((await call(configRoute, "PUT", `${BASE()}/${other.id}/`, { params: { id: String(other.id) }, body: {} })).status).toBe(405);
    });
  });

  describe("update and delete", () => {
    it("PATCH changes the given fields, merges config, clears error and logs the changes", async () => {
      await clear();
      const { body } = await create({ plugin: plugin["add-properties"], config: { properties: { a: 1 } } });
      await db.prisma.pluginConfig.update({ where: { id: body.id }, data: { error: "Error: old" } });
      const { status, body: updated } = await patch(body.id, { enabled: true, name: "Stamp", config: { override: false } });
      expect(status).toBe(200);
      expect(updated).toMatchObject({ enabled: true, name: "Stamp", order: body.order, config: { properties: { a: 1 }, override: false }, error: null });
      expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(body.updated_at));
      const log = await db.prisma.activityLog.findFirstOrThrow({ where: { itemId: String(body.id), activity: "updated" } });
      expect(log.detail).toMatchObject({
        name: "Stamp",
        changes: expect.arrayContaining([
          { field: "enabled", before: false, after: true },
          { field: "name", before: null, after: "Stamp" },
          { field: "config", before: { properties: { a: 1 }, override: true }, after: { properties: { a: 1 }, override: false } },
        ]),
      });
    });

    it("PATCH refuses another plugin and bad values, changing nothing", async () => {
      await clear();
      const { body } = await create({ plugin: plugin.flatten });
      expect(await patch(body.id, { plugin: plugin.rename })).toMatchObject({ status: 400, body: { attr: "plugin" } });
      expect(await patch(body.id, { order: "first" })).toMatchObject({ status: 400, body: { attr: "order" } });
      expect(await patch(body.id, { config: { separator: "toolong" }, enabled: true })).toMatchObject({ status: 400, body: { attr: "config__separator" } });
      expect((await retrieve(body.id)).body).toEqual(body);
      const drop = (await create({ plugin: plugin["drop-events"], config: { events: ["spam"] } })).body;
      const redos = await patch(drop.id, { config: { properties: [{ key: "name", operator: "not_regex", value: "(?=x)" }] } });
      expect(redos).toMatchObject({ status: 400, body: { type: "validation_error", attr: expect.stringMatching(/^config__properties/), detail: expect.stringContaining("Invalid regular expression") } });
      expect((await retrieve(drop.id)).body).toEqual(drop);
      expect((await patch(body.id, { plugin: plugin.flatten, order: 4 })).body.order).toBe(4);
    });

    it("PATCH deleted: true disables the config and removes it", async () => {
      await clear();
      const { body } = await create({ plugin: plugin.flatten, enabled: true });
      expect((await patch(body.id, { deleted: true })).body).toMatchObject({ deleted: true, enabled: false });
      expect((await retrieve(body.id)).status).toBe(404);
    });

    it("DELETE answers 204 with no body; the config vanishes from lists and stops running", async () => {
      await clear();
      const { body } = await create({ plugin: plugin["add-properties"], enabled: true, config: { properties: { marked: true } } });
      expect(await ingest({})).toEqual({ marked: true });
      const deleted = await call(configRoute, "DELETE", `${BASE()}/${body.id}/`, { params: { id: String(body.id) } });
      expect(deleted).toMatchObject({ status: 204, body: null });
      expect((await retrieve(body.id)).status).toBe(404);
      expect((await list()).body.count).toBe(0);
      expect(await ingest({})).toEqual({});
      expect((await call(configRoute, "DELETE", `${BASE()}/${body.id}/`, { params: { id: String(body.id) } })).status).toBe(404);
      const row = await db.prisma.pluginConfig.findUniqueOrThrow({ where: { id: body.id } });
      expect(row).toMatchObject({ deleted: true, enabled: false });
      expect(await db.prisma.activityLog.count({ where: { itemId: String(body.id), activity: "deleted" } })).toBe(1);
    });
  });

  describe("rearrange", () => {
    it("saves the new order and answers the configs in it", async () => {
      await clear();
      const a = (await create({ plugin: plugin.rename, order: 0, enabled: true })).body;
      const b = (await create({ plugin: plugin.flatten, order: 1, enabled: true })).body;
      const c = (await create({ plugin: plugin.geoip, order: 2 })).body;
      const { status, body } = await call(rearrangeRoute, "PATCH", `${BASE()}/rearrange/`, { body: { orders: { [c.id]: 0, [a.id]: 1, [b.id]: 2 } } });
      expect(status).toBe(200);
      expect(body.map((r: ConfigResource) => [r.id, r.order])).toEqual([
        [c.id, 0],
        [a.id, 1],
        [b.id, 2],
      ]);
      expect((await list()).body.results.map((r: ConfigResource) => r.id)).toEqual([c.id, a.id, b.id]);
      const log = await db.prisma.activityLog.findFirstOrThrow({ where: { itemId: String(c.id), activity: "order_changed" } });
      expect(log.detail).toMatchObject({ changes: [{ field: "order", before: 2, after: 0 }] });
    });

    it("is all or nothing: one unknown or foreign id changes no order", async () => {
      await clear();
      const a = (await create({ plugin: plugin.rename, order: 0 })).body;
      const b = (await create({ plugin: plugin.flatten, order: 1 })).body;
      const foreign = await db.prisma.pluginConfig.create({ data: { projectId: otherProjectId, pluginId: plugin.flatten! } });
      for (const stranger of [foreign.id, 2_000_000_000]) {
        const answer = await call(rearrangeRoute, "PATCH", `${BASE()}/rearrange/`, { body: { orders: { [a.id]: 5, [b.id]: 4, [stranger]: 0 } } });
        expect(answer).toMatchObject({ status: 400, body: { type: "validation_error", attr: `orders__${stranger}`, detail: `${stranger} is not a transformation config of this project.` } });
      }
      expect((await list()).body.results.map((r: ConfigResource) => [r.id, r.order])).toEqual([
        [a.id, 0],
        [b.id, 1],
      ]);
    });

    it.each([
      [{}, "orders"],
      [{ orders: [] }, "orders"],
      [{ orders: {} }, "orders"],
      [{ orders: { abc: 1 } }, "orders__abc"],
      [{ orders: { "1": "first" } }, "orders__1"],
      [{ orders: { "1": -2 } }, "orders__1"],
    ])("answers 400 to %j", async (body, attr) => {
      expect(await call(rearrangeRoute, "PATCH", `${BASE()}/rearrange/`, { body })).toMatchObject({ status: 400, body: { type: "validation_error", attr } });
    });

    it("has no other methods", async () => {
      expect((await call(rearrangeRoute, "POST", `${BASE()}/rearrange/`, { body: {} })).status).toBe(405);
    });
  });

  describe("activity", () => {
    it("pages the change history newest first and shows run statistics", async () => {
      await clear();
      const { body } = await create({ plugin: plugin["drop-events"], enabled: true, config: { events: ["drop me"] } });
      await patch(body.id, { name: "Dropper" });
      await patch(body.id, { description: "drops" });
      const distinctId = `stats-${Date.now()}`;
      await sendBatch(projectKey, [{ event: "drop me", distinct_id: distinctId }, { event: "keep me", distinct_id: distinctId }]);
      await transformationRuntime(db).stats.flush();

      const path = `${BASE()}/${body.id}/activity/`;
      const first = await call(activityRoute, "GET", `${path}?limit=2`, { params: { id: String(body.id) } });
      expect(first.status).toBe(200);
      expect(first.body.total_count).toBe(3);
      expect(first.body.results.map((r: { activity: string }) => r.activity)).toEqual(["updated", "updated"]);
      expect(first.body.results[0]).toMatchObject({
        scope: "PluginConfig",
        item_id: String(body.id),
        user: { email: "rest-transform@example.com" },
        detail: { changes: [{ field: "description", before: null, after: "drops" }] },
      });
      expect(first.body.next).toMatch(/limit=2&page=2$/);
      expect(first.body.previous).toBeNull();
      const second = await call(activityRoute, "GET", `${path}?limit=2&page=2`, { params: { id: String(body.id) } });
      expect(second.body.results.map((r: { activity: string }) => r.activity)).toEqual(["created"]);
      expect(second.body.next).toBeNull();
      expect(second.body.previous).toMatch(/page=1$/);
      expect(first.body.stats.last_24h).toEqual({ events_seen: 2, events_dropped: 1, errors: 0 });
      expect(first.body.stats.hourly).toEqual([{ hour: expect.any(String), events_seen: 2, events_dropped: 1, errors: 0, last_error: null }]);
      expect((await retrieve(body.id)).body.delivery_rate_24h).toBe(1);
      expect((await call(activityRoute, "GET", `${path}?limit=0`, { params: { id: String(body.id) } })).body).toMatchObject({ attr: "limit" });
      expect((await call(activityRoute, "GET", `${path}?page=x`, { params: { id: String(body.id) } })).body).toMatchObject({ attr: "page" });
    });

    it("delivery_rate_24h falls with errors", async () => {
      await clear();
      const { body } = await create({ plugin: plugin.flatten, enabled: true });
      await db.sql.query(`UPDATE plugin_configs SET config = '{"keep_nested": "no"}' WHERE id = $1`, [body.id]);
      transformationRuntime(db).invalidate(projectId);
      await ingest({ a: { b: 1 } });
      await transformationRuntime(db).stats.flush();
      const { body: after } = await retrieve(body.id);
      expect(after.delivery_rate_24h).toBe(0);
      expect(after.error).toMatch(/cannot run/);
    });
  });

  describe("frontend, job and migrate", () => {
    it("frontend answers PostHog's no-frontend stub as JavaScript", async () => {
      await clear();
      const { body } = await create({ plugin: plugin.flatten });
      const answer = await call(frontendRoute, "GET", `${BASE()}/${body.id}/frontend/`, { params: { id: String(body.id) } });
      expect(answer.status).toBe(200);
      expect(answer.contentType).toBe("application/javascript");
      expect(answer.body).toBe('export function getFrontendApp () { return {"no_frontend": true} }');
      expect((await call(frontendRoute, "GET", `${BASE()}/999999/frontend/`, { params: { id: "999999" } })).status).toBe(404);
    });

    it("job dry_run shows sample events before and after, storing nothing", async () => {
      await clear();
      const { body } = await create({ plugin: plugin["drop-events"], config: { events: ["noise"] } });
      const path = `${BASE()}/${body.id}/job/`;
      const events = [
        { event: "noise", distinct_id: "x", properties: { a: 1 } },
        { event: "signal", properties: { a: 2 } },
      ];
      const { status, body: result } = await call(jobRoute, "POST", path, { params: { id: String(body.id) }, body: { job: { type: "dry_run", payload: { events } } } });
      expect(status).toBe(200);
      expect(result.job).toEqual({ type: "dry_run" });
      expect(result.results).toEqual([
        { before: expect.objectContaining({ event: "noise", distinct_id: "x", properties: { a: 1 } }), after: null, dropped: true, error: null },
        {
          before: expect.objectContaining({ event: "signal", distinct_id: "sample-user", properties: { a: 2 } }),
          after: expect.objectContaining({ event: "signal" }),
          dropped: false,
          error: null,
        },
      ]);
      expect(await db.sql.query(`SELECT 1 FROM events WHERE distinct_id = 'x'`)).toEqual([]);
    });

    it("job dry_run without events runs on the project's newest stored events", async () => {
      await clear();
      await ingest({ nested: { deep: 1 } }, "dry-run-source");
      const { body } = await create({ plugin: plugin.flatten, config: { keep_nested: false } });
      const { body: result } = await call(jobRoute, "POST", `${BASE()}/${body.id}/job/`, { params: { id: String(body.id) }, body: { job: { type: "dry_run", payload: { limit: 1 } } } });
      expect(result.results).toHaveLength(1);
      expect(result.results[0].before).toMatchObject({ distinct_id: "dry-run-source", properties: { nested: { deep: 1 } } });
      expect(result.results[0].after).toMatchObject({ properties: { nested__deep: 1 } });
    });

    it("job answers 400 for an unknown job or a bad body", async () => {
      await clear();
      const { body } = await create({ plugin: plugin.flatten });
      const post = (payload: unknown) => call(jobRoute, "POST", `${BASE()}/${body.id}/job/`, { params: { id: String(body.id) }, body: payload });
      expect(await post({ job: { type: "export" } })).toMatchObject({ status: 400, body: { attr: "job__type", detail: "Unknown job 'export'. Jobs of this plugin: dry_run." } });
      expect(await post({})).toMatchObject({ status: 400, body: { attr: "job" } });
      expect(await post({ job: { type: "dry_run", payload: { limit: 1000 } } })).toMatchObject({ status: 400, body: { attr: "job__payload__limit" } });
      expect(await post({ job: { type: "dry_run", payload: { events: [{ properties: {} }] } } })).toMatchObject({ status: 400, body: { attr: "job__payload__events__0__event" } });
    });

    it("migrate fills in fields a stored config lacks, and refuses one the schema does not accept", async () => {
      await clear();
      const { body } = await create({ plugin: plugin.flatten, config: { separator: "." } });
      await db.sql.query(`UPDATE plugin_configs SET config = '{"separator": "."}' WHERE id = $1`, [body.id]);
      const path = `${BASE()}/${body.id}/migrate/`;
      const migrated = await call(migrateRoute, "POST", path, { params: { id: String(body.id) } });
      expect(migrated).toMatchObject({ status: 200, body: { id: body.id, config: { separator: ".", keep_nested: true } } });
      await db.sql.query(`UPDATE plugin_configs SET config = '{"separator": ""}' WHERE id = $1`, [body.id]);
      expect(await call(migrateRoute, "POST", path, { params: { id: String(body.id) } })).toMatchObject({ status: 400, body: { attr: "config__separator" } });
    });
  });
});
