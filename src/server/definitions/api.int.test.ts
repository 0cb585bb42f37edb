/**
 * Event and property definitions end to end on a real database (PGlite, PostgreSQL, and with
 * the events in ClickHouse): kept by ingestion (/batch/ through the real pipeline), backfilled
 * from the event store for events that predate them, listed by REST and tRPC with PostHog's
 * shapes, filters, ordering, scopes and project isolation, and hostile search text.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { createCaller } from "@/server/http/trpc/root";
import { ingestionServices } from "@/server/ingestion/service";
import { sendBatch } from "@/test-support/ingestion";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const routes = {
  events: restRoute("projects", "event_definitions").GET as Handler,
  event: restRoute("projects", "event_definitions/:id").GET as Handler,
  properties: restRoute("projects", "property_definitions").GET as Handler,
  property: restRoute("projects", "property_definitions/:id").GET as Handler,
  envEvents: restRoute("environments", "event_definitions").GET as Handler,
};

let db: Database;
let projectId: number;
let otherProjectId: number;
let key: string;
let queryOnlyKey: string;
let eventsOnlyKey: string;
let api: ReturnType<typeof createCaller>;

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function get(handler: Handler, path: string, params: Record<string, string>, token = key): Promise<Answer> {
  const response = await handler(new Request(`http://internal.test${path}`, { headers: { authorization: `Bearer ${token}` } }), { params: Promise.resolve(params) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

const eventList = (query: Record<string, string> = {}, project = projectId, token = key) =>
  get(routes.events, `/api/projects/${project}/event_definitions/?${new URLSearchParams(query)}`, { project_id: String(project) }, token);
const propertyList = (query: Record<string, string> = {}, project = projectId, token = key) =>
  get(routes.properties, `/api/projects/${project}/property_definitions/?${new URLSearchParams(query)}`, { project_id: String(project) }, token);
const names = (answer: Answer) => {
  expect(answer.status, answer.text).toBe(200);
  return (answer.body.results as { name: string }[]).map((row) => row.name);
};

const NOW = Date.now();
const minutesAgo = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
const event = (name: string, properties: Record<string, unknown>, minutes = 5, distinctId = "ann") => ({
  uuid: randomUUID(),
  event: name,
  distinct_id: distinctId,
  timestamp: minutesAgo(minutes),
  properties,
});

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "definitions@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
  queryOnlyKey = (await createPersonalApiKey(db.prisma, owner.user.id, { scopes: ["query:read"] })).key;
  eventsOnlyKey = (await createPersonalApiKey(db.prisma, owner.user.id, { scopes: ["event_definition:read"] })).key;
  const other = await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: "phc_other_definitions" } });
  otherProjectId = other.id;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "definitions@example.com" } });
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });

  await sendBatch(owner.project_api_key, [
    event("$pageview", { $browser: "Chrome", $current_url: "https://a.test/", load_ms: 120 }),
    event("$pageview", { $browser: "Chrome", $current_url: "https://a.test/x", load_ms: 80 }),
    event("$pageview", { $browser: "Safari", $current_url: "https://a.test/y" }),
    event("signed_up", { plan: "pro", is_paid: true, trial_ends: "2026-12-24T00:00:00Z", created_at: 1_764_000_000 }),
    event("$identify", { $set: { email: "ann@example.com", age: 31 }, $set_once: { first_seen_plan: "free" } }),
    event("100%_done", { "weird%_key": "x" }),
    event("abc", {}),
  ]);
  await sendBatch("phc_other_definitions", [event("other_only", { secret_prop: 1 })]);
  await ingestionServices(db).definitions.flush();
});

afterAll(async () => {
  await closeDb();
});

describe(`definitions (${testStoresName})`, () => {
  it("ingestion writes event and property definitions, with property types guessed from values", async () => {
    const events = await db.prisma.eventDefinition.findMany({ where: { projectId }, orderBy: { name: "asc" } });
    expect(events.map((row) => row.name)).toEqual(["$identify", "$pageview", "100%_done", "abc", "signed_up"]);
    const properties = await db.prisma.propertyDefinition.findMany({ where: { projectId }, orderBy: [{ type: "asc" }, { name: "asc" }] });
    const typed = Object.fromEntries(properties.map((row) => [`${row.type}:${row.name}`, row.propertyType]));
    expect(typed).toMatchObject({
      "1:$browser": "String",
      "1:load_ms": "Numeric",
      "1:is_paid": "Boolean",
      "1:trial_ends": "DateTime",
      "1:created_at": "DateTime",
      "2:email": "String",
      "2:age": "Numeric",
      "2:first_seen_plan": "String",
    });
    // $set and $set_once are person updates, not event properties.
    expect(Object.keys(typed)).not.toContain("1:$set");
    const pairs = await db.prisma.eventProperty.findMany({ where: { projectId, event: "signed_up" }, orderBy: { property: "asc" } });
    expect(pairs.map((pair) => pair.property)).toEqual(["created_at", "is_paid", "plan", "trial_ends"]);
  });

  it("lists event definitions most used first in PostHog's page shape, under both prefixes", async () => {
    const answer = await eventList();
    expect(names(answer)).toEqual(["$pageview", "$identify", "100%_done", "abc", "signed_up"]);
    expect(answer.body).toMatchObject({ count: 5, next: null, previous: null });
    expect(answer.body.results[0]).toMatchObject({ name: "$pageview", volume_30_day: 3, query_usage_30_day: null, tags: [], id: expect.any(String) });
    expect(Date.parse(answer.body.results[0].last_seen_at)).toBeGreaterThan(NOW - 10 * 60_000);
    expect(answer.body.results[1].volume_30_day).toBe(1);

    const env = await get(routes.envEvents, `/api/environments/${projectId}/event_definitions/?search=page`, { project_id: String(projectId) });
    expect(names(env)).toEqual(["$pageview"]);

    const paged = await eventList({ limit: "2", offset: "2" });
    expect(names(paged)).toEqual(["100%_done", "abc"]);
    expect(paged.body.count).toBe(5);
    expect(paged.body.next).toMatch(/offset=4/);
    expect(paged.body.previous).toMatch(/limit=2/);
  });

  it("counts further ingestion into the volumes, and moves the order", async () => {
    await sendBatch((await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).apiToken, [
      event("abc", {}, 1),
      event("abc", {}, 1),
      event("abc", {}, 1),
      event("abc", {}, 1),
    ]);
    await ingestionServices(db).definitions.flush();
    const answer = await eventList({ limit: "2" });
    expect(answer.body.results.map((row: { name: string; volume_30_day: number }) => [row.name, row.volume_30_day])).toEqual([
      ["abc", 5],
      ["$pageview", 3],
    ]);
  });

  it("searches as a case-insensitive contains match where % and _ are literal", async () => {
    expect(names(await eventList({ search: "PAGE" }))).toEqual(["$pageview"]);
    expect(names(await eventList({ search: "%" }))).toEqual(["100%_done"]);
    expect(names(await eventList({ search: "_" }))).toEqual(["100%_done", "signed_up"]);
    expect(names(await eventList({ search: ".*" }))).toEqual([]);
    expect(names(await eventList({ search: "(" }))).toEqual([]);
    expect(names(await propertyList({ search: "%_" }))).toEqual(["weird%_key"]);
  });

  it("answers hostile search text with a 400 or an empty list, never a 500", async () => {
    const nul = await eventList({ search: "a\u0000b" });
    expect(nul.status).toBe(400);
    const huge = await eventList({ search: "x".repeat(10_000) });
    expect(huge.status).toBe(400);
    expect(huge.body).toMatchObject({ type: "validation_error", attr: "search" });
    const bad = await propertyList({ type: "group" });
    expect(bad.status).toBe(400);
    expect((await propertyList({ event_names: "[not json" })).status).toBe(400);
    expect((await propertyList({ event_names: JSON.stringify(Array.from({ length: 101 }, (_, i) => `e${i}`)) })).status).toBe(400);
    expect((await eventList({ limit: "-1" })).status).toBe(400);
  });

  it("lists property definitions by type, numerical, and seen on the given events first", async () => {
    const person = await propertyList({ type: "person" });
    expect(names(person).sort()).toEqual(["age", "email", "first_seen_plan"]);
    expect(person.body.results.find((row: { name: string }) => row.name === "age")).toMatchObject({ type: "person", is_numerical: true, property_type: "Numeric" });

    const numerical = await propertyList({ type: "event", is_numerical: "true" });
    expect(names(numerical)).toEqual(["load_ms"]);

    const onSignup = await propertyList({ type: "event", event_names: JSON.stringify(["signed_up"]) });
    const rows = onSignup.body.results as { name: string; is_seen_on_filtered_events: boolean }[];
    expect(rows.slice(0, 4).map((row) => row.name).sort()).toEqual(["created_at", "is_paid", "plan", "trial_ends"]);
    expect(rows.slice(0, 4).every((row) => row.is_seen_on_filtered_events)).toBe(true);
    expect(rows.slice(4).every((row) => row.is_seen_on_filtered_events === false)).toBe(true);
    expect(rows.length).toBeGreaterThan(4);

    const only = await propertyList({ type: "event", event_names: JSON.stringify(["signed_up"]), filter_by_event_names: "true" });
    expect(names(only).sort()).toEqual(["created_at", "is_paid", "plan", "trial_ends"]);

    // Most used first: $browser and $current_url are on 3 events, load_ms on 2.
    const all = names(await propertyList({ type: "event" }));
    expect(all.slice(0, 3)).toEqual(["$browser", "$current_url", "load_ms"]);
  });

  it("gets one definition by id, and 404s for another project's or a malformed id", async () => {
    const first = (await eventList({ search: "signed" })).body.results[0];
    const one = await get(routes.event, `/api/projects/${projectId}/event_definitions/${first.id}/`, { project_id: String(projectId), id: first.id });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual(first);
    const property = (await propertyList({ search: "plan", type: "event" })).body.results[0];
    const prop = await get(routes.property, `/api/projects/${projectId}/property_definitions/${property.id}/`, { project_id: String(projectId), id: property.id });
    expect(prop.body).toEqual({ ...property, is_seen_on_filtered_events: null });

    const foreign = (await eventList({}, otherProjectId)).body.results.find((row: { name: string }) => row.name === "other_only");
    expect(foreign).toBeDefined();
    const cross = await get(routes.event, `/api/projects/${projectId}/event_definitions/${foreign.id}/`, { project_id: String(projectId), id: foreign.id });
    expect(cross.status).toBe(404);
    expect((await get(routes.event, `/api/projects/${projectId}/event_definitions/nope/`, { project_id: String(projectId), id: "nope" })).status).toBe(404);
  });

  it("keeps another project's definitions out of the list", async () => {
    expect(names(await eventList({ search: "other" }))).toEqual([]);
    expect(names(await propertyList({ search: "secret" }))).toEqual([]);
    expect(names(await eventList({}, otherProjectId))).toContain("other_only");
  });

  it("needs event_definition:read and property_definition:read", async () => {
    expect((await eventList({}, projectId, queryOnlyKey)).status).toBe(403);
    expect((await propertyList({}, projectId, queryOnlyKey)).status).toBe(403);
    expect((await eventList({}, projectId, eventsOnlyKey)).status).toBe(200);
    expect((await propertyList({}, projectId, eventsOnlyKey)).status).toBe(403);
  });

  it("backfills, once, a project whose events were stored before definitions existed", async () => {
    const legacy = await db.prisma.project.create({ data: { organizationId: (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).organizationId, name: "Legacy", apiToken: "phc_legacy_defs" } });
    const day = 86_400_000;
    await db.events.insert([
      ...[1, 2, 40].map((age) => ({ uuid: randomUUID(), projectId: legacy.id, event: "legacy_event", distinctId: "d", properties: { legacy_prop: 5, label: "x" }, timestamp: new Date(NOW - age * day) })),
      { uuid: randomUUID(), projectId: legacy.id, event: "old_event", distinctId: "d", properties: { flag: "true" }, timestamp: new Date(NOW - 90 * day) },
    ]);
    await db.prisma.person.create({ data: { projectId: legacy.id, properties: { company: "Acme", seats: 3 }, distinctIds: { create: { projectId: legacy.id, distinctId: "d" } } } });

    const events = await eventList({}, legacy.id);
    expect(events.body.results.map((row: { name: string; volume_30_day: number }) => [row.name, row.volume_30_day])).toEqual([
      ["legacy_event", 2],
      ["old_event", 0],
    ]);
    const props = await propertyList({ type: "event" }, legacy.id);
    expect(Object.fromEntries(props.body.results.map((row: { name: string; property_type: string }) => [row.name, row.property_type]))).toEqual({
      legacy_prop: "Numeric",
      label: "String",
      flag: "Boolean",
    });
    const persons = await propertyList({ type: "person" }, legacy.id);
    expect(names(persons).sort()).toEqual(["company", "seats"]);
    expect(await db.prisma.definitionBackfill.count({ where: { projectId: legacy.id } })).toBe(1);

    // Once: events stored directly afterwards are not read again (ingestion keeps them).
    await db.events.insert([{ uuid: randomUUID(), projectId: legacy.id, event: "late_event", distinctId: "d", properties: {}, timestamp: new Date() }]);
    expect(names(await eventList({}, legacy.id))).not.toContain("late_event");
  });

  describe("tRPC", () => {
    it("suggests event names containing the text, most used first", async () => {
      const all = await api.definitions.events({ projectId });
      expect(all.map((row) => row.name).slice(0, 2)).toEqual(["abc", "$pageview"]);
      const found = await api.definitions.events({ projectId, search: "a", limit: 2 });
      expect(found.map((row) => row.name)).toEqual(["abc", "$pageview"]);
      expect(found[0]).toMatchObject({ volume_30_day: 5 });
    });

    it("suggests property keys by type, those on the chosen events first", async () => {
      const person = await api.definitions.properties({ projectId, type: "person", search: "E" });
      expect(person.map((row) => row.name).sort()).toEqual(["age", "email", "first_seen_plan"]);
      const onSignup = await api.definitions.properties({ projectId, type: "event", eventNames: ["signed_up"], limit: 4 });
      expect(onSignup.map((row) => row.name).sort()).toEqual(["created_at", "is_paid", "plan", "trial_ends"]);
    });

    it("suggests values of event and person properties, most frequent first", async () => {
      expect(await api.definitions.values({ projectId, key: "$browser", type: "event" })).toEqual([{ name: "Chrome" }, { name: "Safari" }]);
      expect(await api.definitions.values({ projectId, key: "$browser", type: "event", search: "saf" })).toEqual([{ name: "Safari" }]);
      expect(await api.definitions.values({ projectId, key: "email", type: "person", search: "ANN" })).toEqual([{ name: "ann@example.com", count: 1 }]);
      expect(await api.definitions.values({ projectId, key: "email", type: "person", search: "%" })).toEqual([]);
    });

    it("refuses hostile input with a 400", async () => {
      await expect(api.definitions.events({ projectId, search: "x".repeat(10_000) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(api.definitions.properties({ projectId, type: "event", search: "\u0000" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
  });
});
