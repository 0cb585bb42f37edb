/**
 * Transformations in ingestion: events sent through the real `/batch/` (and `/capture/`)
 * handlers on a real database, configs made through the service, events read back with SQL.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { openDatabase, type Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { lookupGeoIp } from "@/server/geoip/lookup";
import { handleBatch, handleCaptureEvents } from "@/server/http/capture";
import { createConfigInput, updateConfigInput } from "./contract";
import { saltedHash } from "./plugins/pii";
import { transformationRuntime } from "./runtime";
import type { Context } from "@/server/context";
import { testContext } from "@/test-support/context";
import { createConfig, deleteConfig, listAllConfigs, rearrangeConfigs, updateConfig } from "./service";

let db: Database;
let ctx: Context;
let key: string;
const pluginIds = new Map<string, number>();

interface StoredEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  historical_migration: boolean;
}

let counter = 0;
const uniqueId = (label: string) => `${label}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

async function post(handler: (request: Request) => Promise<Response>, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await handler(
    new Request(`http://burrow.test${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
  );
  return { status: response.status, text: await response.text() };
}

/** Sends events through `/batch/` and expects PostHog's success answer. */
async function sendBatch(batch: Record<string, unknown>[], extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const answer = await post(handleBatch, "/batch/", { api_key: key, batch, ...extra }, headers);
  expect(answer).toEqual({ status: 200, text: '{"status":1}' });
}

async function stored(distinctId: string): Promise<StoredEvent[]> {
  return db.sql.query<StoredEvent>(
    `SELECT event, distinct_id, properties, historical_migration FROM events WHERE project_id = $1 AND distinct_id = $2 ORDER BY timestamp, uuid`,
    [ctx.project.id, distinctId],
  );
}

/** One event through `/batch/`, read back (or undefined when it was dropped). */
async function roundTrip(event: string, properties: Record<string, unknown>, headers: Record<string, string> = {}): Promise<StoredEvent | undefined> {
  const distinctId = uniqueId("rt");
  await sendBatch([{ event, distinct_id: distinctId, properties }], {}, headers);
  const rows = await stored(distinctId);
  expect(rows.length).toBeLessThanOrEqual(1);
  return rows[0];
}

async function enable(pluginKey: string, config: Record<string, unknown> = {}, order?: number) {
  return createConfig(ctx, createConfigInput.parse({ plugin: pluginIds.get(pluginKey), enabled: true, config, ...(order === undefined ? {} : { order }) }));
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "transform@example.com", password: "pw12345678" });
  ctx = await testContext(db, owner.user.id, owner.project_id);
  key = owner.project_api_key;
  for (const plugin of await db.prisma.plugin.findMany()) pluginIds.set(plugin.key, plugin.id);
});

afterEach(async () => {
  for (const config of await listAllConfigs(ctx)) await deleteConfig(ctx, config.id);
});

afterAll(async () => {
  await closeDb();
});

describe(`transformations in ingestion (${testDbKind})`, () => {
  it("stores events unchanged when the project has no configs", async () => {
    const row = await roundTrip("$pageview", { $current_url: "https://example.com/a?b=c", nested: { x: 1 } });
    expect(row!.properties).toEqual({ $current_url: "https://example.com/a?b=c", nested: { x: 1 } });
  });

  describe("each built-in plugin, through /batch/", () => {
    it("drop-events: matching events are not stored, the request still succeeds", async () => {
      await enable("drop-events", { events: ["$autocapture"], properties: [] });
      await enable("drop-events", { properties: [{ key: "$host", value: "localhost" }] });
      const distinctId = uniqueId("drop");
      await sendBatch([
        { event: "$autocapture", distinct_id: distinctId, properties: {} },
        { event: "$pageview", distinct_id: distinctId, properties: { $host: "localhost" } },
        { event: "$pageview", distinct_id: distinctId, properties: { $host: "example.com" } },
      ]);
      expect((await stored(distinctId)).map((row) => [row.event, row.properties.$host])).toEqual([["$pageview", "example.com"]]);
    });

    it("property-filter: listed properties are gone, also from the person", async () => {
      await enable("property-filter", { properties: ["secret", "address.street"] });
      const distinctId = uniqueId("filter");
      await sendBatch([{ event: "signup", distinct_id: distinctId, properties: { secret: "s", plan: "pro", address: { street: "x", city: "y" }, $set: { secret: "s", name: "Ann" } } }]);
      const [row] = await stored(distinctId);
      expect(row!.properties).toEqual({ plan: "pro", address: { city: "y" }, $set: { name: "Ann" } });
      const [person] = await db.sql.query<{ properties: Record<string, unknown> }>(
        `SELECT p.properties FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = $2`,
        [ctx.project.id, distinctId],
      );
      expect(person!.properties).toEqual({ name: "Ann" });
    });

    it("rename: event and property names standardised", async () => {
      await enable("rename", { event_renames: { "Order Completed": "order done" }, event_case: "snake_case", property_case: "camelCase" });
      const row = await roundTrip("Order Completed", { "Plan Type": "pro", $browser: "Chrome" });
      expect(row!.event).toBe("order_done");
      expect(row!.properties).toEqual({ planType: "pro", $browser: "Chrome" });
    });

    it("flatten: nested properties become top-level ones", async () => {
      await enable("flatten", { keep_nested: false });
      const row = await roundTrip("$pageview", { address: { city: "Paris" }, tags: ["a"] });
      expect(row!.properties).toEqual({ address__city: "Paris", tags__0: "a" });
    });

    it("pii: e-mail hashed with the salt, in the event and on the person", async () => {
      await enable("pii", { properties: ["email"], salt: "pepper" });
      const row = await roundTrip("$identify", { email: "ann@example.com", $set: { email: "ann@example.com" } });
      expect(row!.properties.email).toBe(saltedHash("pepper", "ann@example.com"));
      expect(row!.properties.$set).toEqual({ email: saltedHash("pepper", "ann@example.com") });
    });

    it("add-properties: added and overridden", async () => {
      await enable("add-properties", { properties: { environment: "production", team: { name: "core" } } });
      const row = await roundTrip("$pageview", { environment: "dev" });
      expect(row!.properties).toEqual({ environment: "production", team: { name: "core" } });
    });

    it("geoip: $geoip_* from the client's address", async () => {
      await enable("geoip");
      const row = await roundTrip("$pageview", {}, { "x-forwarded-for": "8.8.8.8" });
      const geo = lookupGeoIp("8.8.8.8")!;
      expect(geo.$geoip_country_code).toBe("US");
      expect(row!.properties).toMatchObject({ $ip: "8.8.8.8", ...geo, $set: geo });
    });

    it("url-parser: $current_url split", async () => {
      await enable("url-parser");
      const row = await roundTrip("$pageview", { $current_url: "https://shop.example.com/cart?utm_source=news" });
      expect(row!.properties).toMatchObject({ url_host: "shop.example.com", url_path: "/cart", url_params: { utm_source: "news" }, url_protocol: "https" });
    });

    it("user-agent: browser, OS and device", async () => {
      await enable("user-agent");
      const row = await roundTrip("$pageview", {
        $raw_user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
      });
      expect(row!.properties).toMatchObject({ $browser: "Chrome", $os: "Windows", $device_type: "Desktop" });
    });
  });

  it("runs the chain in order: url-parser then flatten differs from flatten then url-parser, and rearrange swaps them at once", async () => {
    const parser = await enable("url-parser", {}, 0);
    const flatten = await enable("flatten", {}, 1);
    const url = "https://example.com/p?utm_source=news";
    const parsedFirst = await roundTrip("$pageview", { $current_url: url });
    expect(parsedFirst!.properties).toMatchObject({ url_params: { utm_source: "news" }, url_params__utm_source: "news" });

    await rearrangeConfigs(ctx, { orders: { [String(parser.id)]: 1, [String(flatten.id)]: 0 } });
    const flattenedFirst = await roundTrip("$pageview", { $current_url: url });
    expect(flattenedFirst!.properties).toMatchObject({ url_params: { utm_source: "news" } });
    expect(flattenedFirst!.properties).not.toHaveProperty("url_params__utm_source");
  });

  it("a second rename sees the first one's result, so order decides the name", async () => {
    const a = await enable("rename", { event_renames: { signup: "registered" } }, 0);
    const b = await enable("rename", { event_renames: { registered: "account created" } }, 1);
    expect((await roundTrip("signup", {}))!.event).toBe("account created");
    await rearrangeConfigs(ctx, { orders: { [String(a.id)]: 1, [String(b.id)]: 0 } });
    expect((await roundTrip("signup", {}))!.event).toBe("registered");
  });

  it("changes apply to the next request: enable, edit, disable, delete", async () => {
    const config = await enable("add-properties", { properties: { stage: "one" } });
    expect((await roundTrip("e", {}))!.properties).toEqual({ stage: "one" });
    await updateConfig(ctx, config.id, updateConfigInput.parse({ config: { properties: { stage: "two" } } }));
    expect((await roundTrip("e", {}))!.properties).toEqual({ stage: "two" });
    await updateConfig(ctx, config.id, updateConfigInput.parse({ enabled: false }));
    expect((await roundTrip("e", {}))!.properties).toEqual({});
    await updateConfig(ctx, config.id, updateConfigInput.parse({ enabled: true }));
    expect((await roundTrip("e", {}))!.properties).toEqual({ stage: "two" });
    await deleteConfig(ctx, config.id);
    expect((await roundTrip("e", {}))!.properties).toEqual({});
  });

  it("runs on /capture/ and on historical migrations too", async () => {
    await enable("add-properties", { properties: { transformed: true } });
    const single = uniqueId("capture");
    expect(await post(handleCaptureEvents, "/capture/", { api_key: key, event: "one", distinct_id: single })).toEqual({ status: 200, text: '{"status":1}' });
    expect((await stored(single))[0]!.properties).toEqual({ transformed: true });
    const historical = uniqueId("historical");
    await sendBatch([{ event: "old", distinct_id: historical, timestamp: "2020-01-01T00:00:00Z", properties: {} }], { historical_migration: true });
    expect(await stored(historical)).toEqual([{ event: "old", distinct_id: historical, properties: { transformed: true }, historical_migration: true }]);
  });

  it("a failing config leaves the event unchanged, the rest of the chain runs, and the error is recorded", async () => {
    const broken = await enable("flatten", {}, 0);
    const after = await enable("add-properties", { properties: { after: 1 } }, 1);
    // A stored config the plugin no longer accepts (e.g. written by another version): it cannot run.
    await db.sql.query(`UPDATE plugin_configs SET config = '{"separator": ""}' WHERE id = $1`, [broken.id]);
    transformationRuntime(db).invalidate(ctx.project.id);

    const distinctId = uniqueId("broken");
    await sendBatch([
      { event: "a", distinct_id: distinctId, properties: { nested: { x: 1 } } },
      { event: "b", distinct_id: distinctId, properties: { nested: { y: 2 } } },
    ]);
    expect((await stored(distinctId)).map((row) => row.properties)).toEqual([
      { nested: { x: 1 }, after: 1 },
      { nested: { y: 2 }, after: 1 },
    ]);

    await transformationRuntime(db).stats.flush();
    const [config] = await db.sql.query<{ error: string | null }>(`SELECT error FROM plugin_configs WHERE id = $1`, [broken.id]);
    expect(config!.error).toMatch(/^Error: The config cannot run: separator: the separator must not be empty\.$/);
    const [metrics] = await db.sql.query<{ events_seen: number; errors: number; last_error: string }>(
      `SELECT events_seen, errors, last_error FROM plugin_config_metrics WHERE plugin_config_id = $1`,
      [broken.id],
    );
    expect(metrics).toEqual({ events_seen: 2, errors: 2, last_error: config!.error });
    const activity = await db.prisma.activityLog.findMany({ where: { scope: "PluginConfig", itemId: String(broken.id), activity: "error" } });
    expect(activity).toHaveLength(1);
    expect(activity[0]!.detail).toMatchObject({ message: config!.error, errors: 2 });
    const [healthy] = await db.sql.query<{ error: string | null; seen: number }>(
      `SELECT c.error, m.events_seen AS seen FROM plugin_configs c JOIN plugin_config_metrics m ON m.plugin_config_id = c.id WHERE c.id = $1`,
      [after.id],
    );
    expect(healthy).toEqual({ error: null, seen: 2 });

    // The same error again is counted but not logged again.
    await roundTrip("c", { nested: { z: 3 } });
    await transformationRuntime(db).stats.flush();
    expect(await db.prisma.activityLog.count({ where: { scope: "PluginConfig", itemId: String(broken.id), activity: "error" } })).toBe(1);
    const [total] = await db.sql.query<{ errors: number }>(`SELECT errors FROM plugin_config_metrics WHERE plugin_config_id = $1`, [broken.id]);
    expect(total!.errors).toBe(3);
  });

  it("counts seen and dropped events per config and hour, written in one row per config-hour", async () => {
    const drop = await enable("drop-events", { events: ["noise"] });
    const distinctId = uniqueId("stats");
    await sendBatch([
      { event: "noise", distinct_id: distinctId },
      { event: "noise", distinct_id: distinctId },
      { event: "signal", distinct_id: distinctId },
    ]);
    await sendBatch([{ event: "noise", distinct_id: distinctId }]);
    await transformationRuntime(db).stats.flush();
    const rows = await db.sql.query<{ hour: Date; events_seen: number; events_dropped: number; errors: number }>(
      `SELECT hour, events_seen, events_dropped, errors FROM plugin_config_metrics WHERE plugin_config_id = $1`,
      [drop.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ events_seen: 4, events_dropped: 3, errors: 0 });
    expect(rows[0]!.hour.getTime() % 3_600_000).toBe(0);
    expect((await stored(distinctId)).map((row) => row.event)).toEqual(["signal"]);
  });

  // Nodes share a PostgreSQL server; the embedded database has one process by construction.
  // The wait stays well below the chains' 10 s safety-net TTL, so only the notification can pass it.
  if (testDbKind === "postgres") it("another node on the same database drops its chain within seconds of a change", async () => {
    if (db.config.kind !== "postgres") return;
    const otherNode = await openDatabase({ kind: "postgres", url: db.config.url });
    try {
      const elsewhere = transformationRuntime(otherNode);
      const before = await elsewhere.transformationsFor(ctx.project.id);
      expect(before.configIds).toEqual([]);
      const flatten = await enable("flatten");
      await expect.poll(async () => (await elsewhere.transformationsFor(ctx.project.id)).configIds, { timeout: 5_000, interval: 50 }).toEqual([flatten.id]);
    } finally {
      await otherNode.close();
    }
  });

  it("answers a project's chain from memory until a config changes", async () => {
    const runtime = transformationRuntime(db);
    const first = runtime.transformationsFor(ctx.project.id);
    expect(runtime.transformationsFor(ctx.project.id)).toBe(first);
    expect((await first).configIds).toEqual([]);
    const flatten = await enable("flatten");
    const second = runtime.transformationsFor(ctx.project.id);
    expect(second).not.toBe(first);
    expect((await second).configIds).toEqual([flatten.id]);
    expect(runtime.transformationsFor(ctx.project.id)).toBe(second);
  });
});
