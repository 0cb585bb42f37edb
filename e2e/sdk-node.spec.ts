/**
 * The real posthog-node SDK, unmodified, pointed at a running Burrow on each database:
 * what it sends (gzip'd /batch/ bodies) is stored once per event, with the persons, the
 * alias merge, the group and the historical-migration marks the SDK calls ask for.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { DATABASE_KINDS, createDeployment, personOf, storedEvents, type StoredEvent } from "./support/burrow";

interface SentRequest {
  url: string;
  headers: Record<string, string>;
  /** The request body, gunzipped if it was gzip. */
  payload: { api_key?: string; batch?: unknown[]; historical_migration?: boolean };
  gzipped: boolean;
  status: number;
  body: string;
}

async function bytesOf(body: unknown): Promise<Buffer> {
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Blob) return Buffer.from(await body.arrayBuffer());
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new Error(`unexpected body type ${Object.prototype.toString.call(body)}`);
}

/** posthog-node's own fetch, wrapped to record each request's headers and answer. */
function recordingFetch(log: SentRequest[]) {
  return async (url: string, options: { method: string; headers: Record<string, string>; body?: unknown }) => {
    const bytes = await bytesOf(options.body);
    const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
    const payload = JSON.parse((gzipped ? gunzipSync(bytes) : bytes).toString("utf8"));
    const response = await fetch(url, options as RequestInit);
    const body = await response.clone().text();
    const headers = Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v]));
    log.push({ url, headers, payload, gzipped, status: response.status, body });
    return response;
  };
}

interface SentMessage {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

for (const kind of DATABASE_KINDS) {
  test.describe(`posthog-node against Burrow on the ${kind} database`, () => {
    test("capture, identify, alias, groupIdentify, groups and a historical migration are stored as sent", async () => {
      test.setTimeout(90_000);
      const deployment = await createDeployment(kind);
      const run = randomBytes(3).toString("hex");
      const user = `node-user-${run}`;
      const anon = `node-anon-${run}`;
      const orderUuid = randomUUID();
      const requests: SentRequest[] = [];
      const errors: unknown[] = [];
      const sent: SentMessage[] = [];
      const startedAt = Date.now();
      try {
        const server = await deployment.start();
        try {
          const client = new PostHog(deployment.projectKey, {
            host: server.url,
            flushAt: 2,
            flushInterval: 0,
            fetch: recordingFetch(requests),
          });
          client.on("error", (error) => errors.push(error));
          client.on("flush", (messages: SentMessage[]) => sent.push(...messages));

          client.capture({ distinctId: anon, event: "viewed pricing", properties: { plan: "free", referrer: "https://example.com/" } });
          client.capture({
            distinctId: user,
            event: "order placed",
            uuid: orderUuid,
            properties: { amount: 42.5, currency: "EUR", items: ["a", "b"], shipping: { express: true, country: "DE" }, note: "grüße ✓" },
          });
          client.identify({ distinctId: user, properties: { email: `${user}@example.com`, plan: "pro" } });
          client.alias({ distinctId: user, alias: anon });
          client.groupIdentify({ groupType: "company", groupKey: "acme", properties: { name: "Acme Inc", employees: 50 } });
          client.capture({ distinctId: user, event: "report exported", groups: { company: "acme" }, properties: { format: "csv" } });
          await client.shutdown();

          const historical = new PostHog(deployment.projectKey, {
            host: server.url,
            flushAt: 3,
            flushInterval: 0,
            historicalMigration: true,
            fetch: recordingFetch(requests),
          });
          historical.on("error", (error) => errors.push(error));
          historical.on("flush", (messages: SentMessage[]) => sent.push(...messages));
          const oldTimes = ["2021-03-04T05:06:07.000Z", "2022-11-12T13:14:15.123Z", "2023-01-01T00:00:00.000Z"];
          for (const [i, time] of oldTimes.entries()) {
            historical.capture({ distinctId: user, event: "imported purchase", timestamp: new Date(time), properties: { index: i } });
          }
          await historical.shutdown();
        } finally {
          expect(await server.stop()).toBe(0);
        }
        const finishedAt = Date.now();

        // What the SDK did: gzip'd /batch/ posts, every one answered {"status": 1}, no error.
        expect(errors).toEqual([]);
        // One or more batches per client (the SDK coalesces what is queued while a flush runs).
        expect(requests.length).toBeGreaterThanOrEqual(2);
        for (const request of requests) {
          expect(new URL(request.url).pathname).toBe("/batch/");
          expect(request.headers["content-encoding"]).toBe("gzip");
          expect(request.gzipped).toBe(true);
          expect(request.payload.api_key).toBe(deployment.projectKey);
          const historical = (request.payload.batch as SentMessage[]).every((m) => m.event === "imported purchase");
          expect(request.payload.historical_migration, "historical_migration in the body").toBe(historical ? true : undefined);
          expect(request.headers["user-agent"]).toMatch(/^posthog-node\//);
          expect(request.status, request.body).toBe(200);
          expect(JSON.parse(request.body)).toEqual({ status: 1 });
        }
        expect(sent.map((m) => m.event).sort()).toEqual(
          ["$create_alias", "$groupidentify", "$identify", "imported purchase", "imported purchase", "imported purchase", "order placed", "report exported", "viewed pricing"].sort(),
        );
        expect(sent.find((m) => m.event === "order placed")!.uuid).toBe(orderUuid);

        const stored = await deployment.read(async (query) => {
          const events = await storedEvents(query, deployment.projectId);
          const duplicates = await query(`SELECT uuid FROM events GROUP BY uuid HAVING count(*) > 1`);
          const person = await personOf(query, deployment.projectId, user);
          const anonPerson = await personOf(query, deployment.projectId, anon);
          const persons = await query<{ uuid: string }>(`SELECT uuid::text AS uuid FROM persons WHERE project_id = $1`, [deployment.projectId]);
          const mappings = await query(`SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1`, [deployment.projectId]);
          const groups = await query(`SELECT group_type_index, group_key, group_properties FROM groups WHERE project_id = $1`, [deployment.projectId]);
          return { events, duplicates, person, anonPerson, persons, mappings, groups };
        });

        // Each sent event is stored exactly once, as sent, in this project.
        expect(stored.duplicates).toEqual([]);
        expect(stored.events.map((e) => e.uuid).sort()).toEqual(sent.map((m) => m.uuid.toLowerCase()).sort());
        const byUuid = new Map(stored.events.map((e) => [e.uuid, e]));
        for (const message of sent) {
          const event = byUuid.get(message.uuid.toLowerCase())!;
          expect(event.project_id).toBe(deployment.projectId);
          expect(event.event).toBe(message.event);
          expect(event.distinct_id).toBe(message.distinct_id);
          expect(event.person_id, `${message.event} has a person`).toMatch(/^[0-9a-f-]{36}$/);
          expect(event.properties).toMatchObject({ ...(JSON.parse(JSON.stringify(message.properties)) as object), $lib: "posthog-node", $lib_version: expect.any(String) });
          expect(event.properties.$ip).toBe("127.0.0.1");
          expect(event.properties.token).toBeUndefined();
        }
        const one = (name: string) => {
          const matching = stored.events.filter((e) => e.event === name);
          expect(matching, name).toHaveLength(1);
          return matching[0]!;
        };

        const order = one("order placed");
        expect(order.uuid).toBe(orderUuid);
        expect(order.properties).toMatchObject({ amount: 42.5, currency: "EUR", items: ["a", "b"], shipping: { express: true, country: "DE" }, note: "grüße ✓" });
        // Live events: clock-skew corrected against sent_at, so within the run and not marked.
        for (const event of stored.events.filter((e) => e.event !== "imported purchase")) {
          expect(event.historical_migration).toBe(false);
          expect(event.timestamp.getTime()).toBeGreaterThanOrEqual(startedAt - 1_000);
          expect(event.timestamp.getTime()).toBeLessThanOrEqual(finishedAt + 1_000);
        }

        // identify: $identify with $set; the person has those properties and is identified.
        const identify = one("$identify");
        expect(identify.distinct_id).toBe(user);
        expect(identify.properties.$set).toEqual({ email: `${user}@example.com`, plan: "pro" });
        expect(stored.person).not.toBeNull();
        expect(stored.person!.properties).toMatchObject({ email: `${user}@example.com`, plan: "pro" });
        expect(stored.person!.is_identified).toBe(true);

        // alias: the anonymous id joined the user's person; its earlier event moved along.
        const alias = one("$create_alias");
        expect(alias.properties).toMatchObject({ distinct_id: user, alias: anon });
        expect(stored.anonPerson?.uuid).toBe(stored.person!.uuid);
        expect(stored.person!.distinct_ids.sort()).toEqual([anon, user].sort());
        for (const event of stored.events.filter((e) => e.distinct_id === user || e.distinct_id === anon)) {
          expect(event.person_id, `${event.event} of ${event.distinct_id}`).toBe(stored.person!.uuid);
        }
        // Every person_id points at a person that exists (the merged-away one is gone).
        const personUuids = new Set(stored.persons.map((p) => p.uuid));
        for (const event of stored.events) expect(personUuids.has(event.person_id!), `${event.event}'s person exists`).toBe(true);

        // groupIdentify: the group type got index 0 and the group its properties.
        const groupIdentify = one("$groupidentify");
        expect(groupIdentify.distinct_id).toBe("$company_acme");
        expect(groupIdentify.properties).toMatchObject({ $group_type: "company", $group_key: "acme", $group_set: { name: "Acme Inc", employees: 50 } });
        expect(stored.mappings).toEqual([{ group_type: "company", group_type_index: 0 }]);
        expect(stored.groups).toEqual([{ group_type_index: 0, group_key: "acme", group_properties: { name: "Acme Inc", employees: 50 } }]);
        expect(one("report exported").properties.$groups).toEqual({ company: "acme" });

        // Historical migration: marked, and stored at the time each event says (no skew correction).
        const imported: StoredEvent[] = stored.events.filter((e) => e.event === "imported purchase");
        expect(imported).toHaveLength(3);
        expect(imported.map((e) => e.timestamp.toISOString())).toEqual(["2021-03-04T05:06:07.000Z", "2022-11-12T13:14:15.123Z", "2023-01-01T00:00:00.000Z"]);
        expect(imported.map((e) => e.properties.index)).toEqual([0, 1, 2]);
        for (const event of imported) {
          expect(event.historical_migration).toBe(true);
          expect(event.person_id).toBe(stored.person!.uuid);
        }
      } finally {
        await deployment.dispose();
      }
    });
  });
}
