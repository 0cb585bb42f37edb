/**
 * The persons API end to end: persons made by real ingestion (the /batch/ handler), read,
 * changed and deleted through the real route handlers with a personal API key; deleted
 * persons' events counted through the event store before and after the background deletion.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import type { EventListQuery } from "@/server/db/events";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { createCaller } from "@/server/http/trpc/root";
import { sendBatch } from "@/test-support/ingestion";
import { NOT_A_PERSON_ID, PERSON_LIMITS } from "./contract";
import { runPersonDeletions, startPersonDeletions, stopPersonDeletions } from "./deletion-worker";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

const SITE = "https://burrow.example.test";
let db: Database;
let projectId: number;
let projectKey: string;
let personalKey: string;
let otherProjectId: number;
let otherProjectKey: string;

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function call(method: Method, path: string, body?: unknown, prefix: "projects" | "environments" = "projects", project = projectId): Promise<Answer> {
  const url = new URL(path, "http://internal.test");
  const segments = url.pathname.replace(/^\/|\/$/g, "").split("/");
  // The table's pattern for this path: persons, persons/bulk_delete, persons/:id, persons/:id/<action>.
  const params: Record<string, string> = { project_id: String(project) };
  let pattern = segments.join("/");
  if (segments.length >= 2 && segments[1] !== "bulk_delete") {
    params.id = decodeURIComponent(segments[1]!);
    pattern = ["persons", ":id", ...segments.slice(2)].join("/");
  }
  const handler = restRoute(prefix, pattern)[method] as Handler;
  const request = new Request(`http://internal.test/api/${prefix}/${project}/${path}`, {
    method,
    headers: { authorization: `Bearer ${personalKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve(params) });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed, text };
}

const list = (query: Record<string, string | number> = {}) => {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return call("GET", `persons/${search ? `?${search}` : ""}`);
};
const names = (answer: Answer): string[] => answer.body.results.map((p: { name: string }) => p.name);

interface Sent {
  event: string;
  distinct_id: string;
  properties?: Record<string, unknown>;
  timestamp?: string;
}

async function capture(events: Sent[], key = projectKey): Promise<void> {
  await sendBatch(key, events.map((e) => ({ uuid: randomUUID(), ...e })));
}

function eventQuery(filter: Partial<EventListQuery>): EventListQuery {
  return { format: "json", limit: 10_000, offset: 0, after: null, before: null, beforeUuid: null, event: null, distinctId: null, personId: null, properties: null, ...filter };
}

/** Events stored for these distinct ids, counted through the event store. */
async function eventCount(...distinctIds: string[]): Promise<number> {
  let n = 0;
  for (const distinctId of distinctIds) n += (await db.events.list(projectId, eventQuery({ distinctId }), { limit: 10_000, offset: 0, cursor: null, now: new Date() })).length;
  return n;
}

async function personOf(distinctId: string, project = projectId): Promise<{ id: number; uuid: string } | null> {
  const rows = await db.sql.query<{ id: number; uuid: string }>(
    `SELECT p.id, p.uuid::text AS uuid FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [project, distinctId],
  );
  return rows[0] ?? null;
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const T0 = Date.parse("2024-03-01T00:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

beforeAll(async () => {
  process.env.SITE_URL = SITE;
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "persons@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  projectKey = owner.project_api_key;
  personalKey = owner.personal_api_key;
  otherProjectKey = "phc_persons_other_project";
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: otherProjectKey } })).id;

  // One batch per person, in order, so creation times order them: carol, bob, alice (newest).
  await capture([{ event: "$pageview", distinct_id: "carol", timestamp: at(1) }]);
  await capture([{ event: "signup", distinct_id: "bob", timestamp: at(2), properties: { $set: { email: "bob@Corp.io", plan: "free", age: 40 } } }]);
  await capture([
    { event: "$pageview", distinct_id: "anon-alice", timestamp: at(3) },
    { event: "$identify", distinct_id: "alice", timestamp: at(4), properties: { $anon_distinct_id: "anon-alice", $set: { email: "alice@example.com", plan: "pro", age: 31 } } },
    { event: "purchase", distinct_id: "alice", timestamp: at(5) },
  ]);
  await capture([{ event: "$pageview", distinct_id: "zed", timestamp: at(1), properties: { $set: { email: "zed@example.com" } } }], otherProjectKey);
});

afterAll(async () => {
  await stopPersonDeletions();
  delete process.env.SITE_URL;
  delete process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
  await closeDb();
});

describe(`GET /persons/ (${testStoresName})`, () => {
  it("lists the project's persons newest first, in PostHog's list shape", async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(["next", "previous", "results"]);
    expect(names(answer)).toEqual(["alice@example.com", "bob@Corp.io", "carol"]);
    const alice = answer.body.results[0];
    const stored = (await personOf("alice"))!;
    expect(alice).toEqual({
      type: "person",
      id: stored.uuid,
      uuid: stored.uuid,
      name: "alice@example.com",
      distinct_ids: ["anon-alice", "alice"],
      properties: { email: "alice@example.com", plan: "pro", age: 31 },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_seen_at: null,
      is_identified: true,
      matched_recordings: [],
      value_at_data_point: null,
    });
    expect(answer.body.next).toBeNull();
    expect(answer.body.previous).toBeNull();
    // The same under /api/environments/.
    const env = await call("GET", "persons/", undefined, "environments");
    expect(env.body).toEqual(answer.body);
  });

  it("searches e-mail (contains, any case), exact distinct id or exact uuid; filters email and distinct_id exactly", async () => {
    expect(names(await list({ search: "CORP" }))).toEqual(["bob@Corp.io"]);
    expect(names(await list({ search: "example.com" }))).toEqual(["alice@example.com"]);
    expect(names(await list({ search: "anon-alice" }))).toEqual(["alice@example.com"]);
    expect(names(await list({ search: "anon" }))).toEqual([]);
    const carol = (await personOf("carol"))!;
    expect(names(await list({ search: carol.uuid.toUpperCase() }))).toEqual(["carol"]);
    expect(names(await list({ email: "bob@Corp.io" }))).toEqual(["bob@Corp.io"]);
    expect(names(await list({ email: "bob@corp.io" }))).toEqual([]);
    expect(names(await list({ distinct_id: "anon-alice" }))).toEqual(["alice@example.com"]);
    // Another project's person is not found by any of them.
    expect(names(await list({ search: "zed" }))).toEqual([]);
    // A `%` is a literal character, not a wildcard.
    expect(names(await list({ search: "%" }))).toEqual([]);
  });

  it("filters by person properties and by cohort membership (cohort_people rows)", async () => {
    expect(names(await list({ properties: JSON.stringify([{ key: "plan", value: "pro", operator: "exact", type: "person" }]) }))).toEqual(["alice@example.com"]);
    expect(names(await list({ properties: JSON.stringify([{ key: "age", value: 35, operator: "gt", type: "person" }]) }))).toEqual(["bob@Corp.io"]);
    expect(names(await list({ properties: JSON.stringify({ type: "OR", values: [{ key: "plan", value: "free", type: "person" }, { key: "email", operator: "is_not_set", type: "person" }] }) }))).toEqual([
      "bob@Corp.io",
      "carol",
    ]);
    const cohort = await db.prisma.cohort.create({ data: { projectId, name: "Static few", isStatic: true } });
    await db.prisma.cohortPerson.create({ data: { cohortId: cohort.id, personId: (await personOf("carol"))!.id } });
    expect(names(await list({ properties: JSON.stringify([{ type: "cohort", key: "id", value: cohort.id }]) }))).toEqual(["carol"]);
    expect(names(await list({ properties: JSON.stringify([{ type: "cohort", key: "id", value: cohort.id, operator: "not_in" }]) }))).toEqual(["alice@example.com", "bob@Corp.io"]);
    // Another project's cohort matches nobody here.
    const foreign = await db.prisma.cohort.create({ data: { projectId: otherProjectId, name: "Foreign", isStatic: true } });
    await db.sql.query(`INSERT INTO cohort_people (cohort_id, person_id) VALUES ($1, $2)`, [foreign.id, (await personOf("bob"))!.id]);
    expect(names(await list({ properties: JSON.stringify([{ type: "cohort", key: "id", value: foreign.id }]) }))).toEqual([]);

    const bad = await list({ properties: "[{" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: "validation_error", attr: "properties" });
  });

  it("pages by offset with next/previous links that keep the filters", async () => {
    const first = await list({ limit: 2, search: "" });
    expect(names(first)).toEqual(["alice@example.com", "bob@Corp.io"]);
    const next = new URL(first.body.next);
    expect(next.origin).toBe(SITE);
    expect(next.searchParams.get("offset")).toBe("2");
    expect(next.searchParams.get("limit")).toBe("2");
    expect(first.body.previous).toBeNull();
    const second = await call("GET", `persons/${next.search}`);
    expect(names(second)).toEqual(["carol"]);
    expect(second.body.next).toBeNull();
    expect(new URL(second.body.previous).searchParams.get("offset")).toBeNull();
    for (const query of [{ limit: PERSON_LIMITS.maxLimit + 1 }, { limit: -1 }, { offset: "x" }, { offset: 10 ** 12 }] as Record<string, string | number>[]) {
      const answer = await list(query);
      expect(answer.status, JSON.stringify(query)).toBe(400);
    }
  });
});

describe(`GET/PATCH /persons/:id/ (${testStoresName})`, () => {
  it("finds a person by uuid or integer id; a distinct id is PostHog's 400; unknown or foreign is 404", async () => {
    const bob = (await personOf("bob"))!;
    for (const key of [bob.uuid, String(bob.id), bob.uuid.replace(/-/g, "").toUpperCase()]) {
      const answer = await call("GET", `persons/${key}/`);
      expect(answer.status, key).toBe(200);
      expect(answer.body).toEqual({
        id: bob.id,
        uuid: bob.uuid,
        name: "bob@Corp.io",
        distinct_ids: ["bob"],
        properties: { email: "bob@Corp.io", plan: "free", age: 40 },
        created_at: expect.any(String),
        is_identified: false,
      });
    }
    const byDistinctId = await call("GET", "persons/bob/");
    expect(byDistinctId.status).toBe(400);
    expect(byDistinctId.body.detail).toBe(NOT_A_PERSON_ID);
    expect((await call("GET", `persons/${randomUUID()}/`)).status).toBe(404);
    expect((await call("GET", "persons/99999999999/")).status).toBe(404);
    const zed = (await personOf("zed", otherProjectId))!;
    expect((await call("GET", `persons/${zed.uuid}/`)).status).toBe(404);
  });

  it("PATCH and PUT set properties at once (202); update_property sets one; delete_property removes one (201); all logged", async () => {
    const bob = (await personOf("bob"))!;
    const patched = await call("PATCH", `persons/${bob.uuid}/`, { properties: { plan: "team", seats: 5 } });
    expect(patched.status).toBe(202);
    expect(patched.body.properties).toEqual({ email: "bob@Corp.io", plan: "team", age: 40, seats: 5 });
    expect((await call("PUT", `persons/${bob.id}/`, { properties: { nested: { a: [1, 2] } } })).status).toBe(202);
    expect((await call("POST", `persons/${bob.uuid}/update_property/`, { key: "vip", value: true })).status).toBe(202);
    const removed = await call("POST", `persons/${bob.uuid}/delete_property/`, { $unset: "age" });
    expect(removed.status).toBe(201);
    expect(removed.body).toEqual({ success: true });
    const now = await call("GET", `persons/${bob.uuid}/`);
    expect(now.body.properties).toEqual({ email: "bob@Corp.io", plan: "team", seats: 5, nested: { a: [1, 2] }, vip: true });

    expect((await call("PATCH", `persons/${bob.uuid}/`, {})).status).toBe(400);
    expect((await call("PATCH", `persons/${bob.uuid}/`, { properties: [1] })).status).toBe(400);
    expect((await call("POST", `persons/${bob.uuid}/delete_property/`, {})).status).toBe(400);
    expect((await call("POST", `persons/${bob.uuid}/update_property/`, { value: 1 })).status).toBe(400);

    const log = await db.prisma.activityLog.findMany({ where: { projectId, scope: "Person", itemId: String(bob.id) }, });
    expect(log.map((row) => row.activity)).toEqual(["updated", "updated", "updated", "updated"]);
    expect(log.map((row) => (row.detail as { changes: { field: string }[] }).changes.map((c) => c.field))).toContainEqual(["age"]);
  });

  it("POST /persons/ is PostHog's 405", async () => {
    const answer = await call("POST", "persons/", { properties: {} });
    expect(answer.status).toBe(405);
    expect(answer.body.detail).toMatch(/^Creating persons via this API is not allowed/);
  });

  it("lists the cohorts the person is in", async () => {
    const carol = (await personOf("carol"))!;
    const answer = await call("GET", `persons/${carol.uuid}/cohorts/`);
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((c: { name: string }) => c.name)).toEqual(["Static few"]);
    expect(answer.body.results[0]).toMatchObject({ is_static: true, deleted: false });
    expect((await call("GET", `persons/${(await personOf("alice"))!.uuid}/cohorts/`)).body.results).toEqual([]);
    // PostHog asks for cohort:read too.
    const owner = await db.prisma.user.findUniqueOrThrow({ where: { email: "persons@example.com" } });
    const readOnly = (await createPersonalApiKey(db.prisma, owner.id, { scopes: ["person:read"] })).key;
    const saved = personalKey;
    personalKey = readOnly;
    try {
      const denied = await call("GET", `persons/${carol.uuid}/cohorts/`);
      expect(denied.status).toBe(403);
      expect(denied.body.detail).toBe("API key missing required scope 'cohort:read'");
      expect((await call("GET", `persons/${carol.uuid}/`)).status).toBe(200);
    } finally {
      personalKey = saved;
    }
  });
});

describe(`deleting persons (${testStoresName})`, () => {
  it("DELETE with delete_events: the person and ids at once, then every event of theirs (counted) in batches", async () => {
    await capture([{ event: "extra", distinct_id: "dora", timestamp: at(10) }]);
    await capture(Array.from({ length: 6 }, (_, i) => ({ event: "click", distinct_id: i % 2 ? "dora" : "dora-phone", timestamp: at(11 + i) })));
    await capture([{ event: "$identify", distinct_id: "dora", timestamp: at(20), properties: { $anon_distinct_id: "dora-phone", $set: { email: "dora@example.com" } } }]);
    // An event of one of her ids stored without a person (as before persons existed).
    await db.events.insert([{ uuid: randomUUID(), projectId, event: "orphan", distinctId: "dora-phone", properties: {}, timestamp: new Date(at(21)), personId: null }]);
    const dora = (await personOf("dora"))!;
    const before = await eventCount("dora", "dora-phone");
    expect(before).toBe(9);
    const keep = await eventCount("alice", "anon-alice", "bob", "carol");

    const answer = await call("DELETE", `persons/${dora.uuid}/?delete_events=true`);
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
    expect((await call("GET", `persons/${dora.uuid}/`)).status).toBe(404);
    expect(await personOf("dora")).toBeNull();
    expect(await personOf("dora-phone")).toBeNull();
    const [queued] = await db.sql.query<{ id: number; distinct_ids: string[]; finished_at: Date | null }>(
      `SELECT id, distinct_ids, finished_at FROM person_deletions WHERE person_uuid = $1`,
      [dora.uuid],
    );
    expect(queued!.distinct_ids.sort()).toEqual(["dora", "dora-phone"]);
    expect(queued!.finished_at).toBeNull();

    // No worker runs in this test: one pass, in batches of 2.
    const pass = await runPersonDeletions(db, { batchSize: 2 });
    expect(pass).toEqual({ finished: 1, deletedEvents: 9, failed: 0, settling: 0 });
    expect(await eventCount("dora", "dora-phone")).toBe(0);
    expect(await eventCount("alice", "anon-alice", "bob", "carol")).toBe(keep);
    const [done] = await db.sql.query<{ deleted_events: number; finished_at: Date | null; attempts: number }>(
      `SELECT deleted_events, finished_at, attempts FROM person_deletions WHERE id = $1`,
      [queued!.id],
    );
    expect(done).toMatchObject({ deleted_events: 9, attempts: 1 });
    expect(done!.finished_at).not.toBeNull();
    expect((await runPersonDeletions(db)).finished).toBe(0);

    const log = await db.prisma.activityLog.findFirst({ where: { projectId, scope: "Person", activity: "deleted" } });
    expect(log!.detail).toMatchObject({ name: "dora@example.com", delete_events: true });
  });

  it("after a deletion, new events of the same distinct ids make a new person (ingestion's cache is told)", async () => {
    await capture([{ event: "a", distinct_id: "erin", timestamp: at(30), properties: { $set: { email: "erin@example.com" } } }]);
    const erin = (await personOf("erin"))!;
    expect((await call("DELETE", `persons/${erin.id}/`)).status).toBe(202);
    await capture([{ event: "b", distinct_id: "erin", timestamp: at(31) }]);
    const reborn = (await personOf("erin"))!;
    expect(reborn).not.toBeNull();
    expect(reborn.uuid).not.toBe(erin.uuid);
    const fresh = await call("GET", `persons/${reborn.uuid}/`);
    expect(fresh.body.properties).toEqual({});
    // Without delete_events the old events stay, and nothing was queued.
    expect(await eventCount("erin")).toBe(2);
    expect(await db.prisma.personDeletion.count({ where: { personUuid: erin.uuid } })).toBe(0);
    // An explicit false keeps events too (PostHog would delete them on the parameter's mere presence).
    expect((await call("DELETE", `persons/${reborn.uuid}/?delete_events=false`)).status).toBe(202);
    expect(await db.prisma.personDeletion.count({ where: { personUuid: reborn.uuid } })).toBe(0);
  });

  it("delete_events keeps the person; bulk_delete takes distinct ids or uuids (≤ 1000), else PostHog's 400", async () => {
    await capture([
      { event: "x", distinct_id: "finn", timestamp: at(40) },
      { event: "x", distinct_id: "gus", timestamp: at(41) },
      { event: "x", distinct_id: "hal", timestamp: at(42) },
    ]);
    const finn = (await personOf("finn"))!;
    expect((await call("POST", `persons/${finn.uuid}/delete_events/`)).status).toBe(202);
    await runPersonDeletions(db);
    expect(await eventCount("finn")).toBe(0);
    expect((await personOf("finn"))!.uuid).toBe(finn.uuid);

    const none = await call("POST", "persons/bulk_delete/", {});
    expect(none.status).toBe(400);
    expect(none.body.detail).toBe("You need to specify either distinct_ids or ids");
    const tooMany = await call("POST", "persons/bulk_delete/", { distinct_ids: Array.from({ length: 1001 }, (_, i) => `d${i}`) });
    expect(tooMany.status).toBe(400);
    expect((await call("POST", "persons/bulk_delete/", { ids: ["not-a-uuid"] })).status).toBe(400);

    const hal = (await personOf("hal"))!;
    const bulk = await call("POST", "persons/bulk_delete/", { distinct_ids: ["gus", "nobody"], ids: [hal.uuid, randomUUID()], delete_events: true });
    expect(bulk.status).toBe(202);
    expect(await personOf("gus")).toBeNull();
    expect(await personOf("hal")).toBeNull();
    expect(await personOf("finn")).not.toBeNull();
    expect(await eventCount("gus", "hal")).toBe(2);
    expect((await runPersonDeletions(db)).deletedEvents).toBe(2);
    expect(await eventCount("gus", "hal")).toBe(0);
  });

  it("a deletion left unfinished by a crash is finished when the worker starts; a new one is done promptly by itself", async () => {
    await capture(Array.from({ length: 5 }, (_, i) => ({ event: "y", distinct_id: "ivy", timestamp: at(50 + i) })));
    const ivy = (await personOf("ivy"))!;
    // The crash: the person deleted and the deletion queued, 3 events deleted and counted, then the process died.
    await db.sql.query(`DELETE FROM persons WHERE id = $1`, [ivy.id]);
    const deletion = await db.prisma.personDeletion.create({ data: { projectId, personUuid: ivy.uuid, distinctIds: ["ivy"], deletedEvents: 3, attempts: 1 } });
    const remaining = await eventCount("ivy");
    expect(remaining).toBe(5);

    startPersonDeletions(db, { intervalMs: 60_000 });
    await until(async () => (await db.prisma.personDeletion.findUniqueOrThrow({ where: { id: deletion.id } })).finishedAt !== null);
    expect(await eventCount("ivy")).toBe(0);
    expect((await db.prisma.personDeletion.findUniqueOrThrow({ where: { id: deletion.id } })).deletedEvents).toBe(3 + remaining);

    // With the worker running, a DELETE's events go within moments, without anyone driving it.
    await capture(Array.from({ length: 4 }, (_, i) => ({ event: "z", distinct_id: "jo", timestamp: at(60 + i) })));
    const jo = (await personOf("jo"))!;
    const started = Date.now();
    expect((await call("DELETE", `persons/${jo.uuid}/?delete_events=1`)).status).toBe(202);
    // An event ingestion resolved to her before the delete and wrote just after: it goes too.
    await db.events.insert([{ uuid: randomUUID(), projectId, event: "late", distinctId: "jo", properties: {}, timestamp: new Date(at(65)), personId: jo.uuid }]);
    // Well below the worker's 60 s interval: only the DELETE's kick can pass this.
    await until(async () => (await eventCount("jo")) === 0, 20_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    await until(async () => (await db.prisma.personDeletion.findFirstOrThrow({ where: { personUuid: jo.uuid } })).finishedAt !== null, 5_000);
    await stopPersonDeletions();
  });
});

describe(`merges and cohorts (${testStoresName})`, () => {
  it("a merge carries the merged person's static cohort membership to the survivor", async () => {
    await capture([{ event: "a", distinct_id: "kim-anon", timestamp: at(70) }]);
    await capture([{ event: "a", distinct_id: "kim", timestamp: at(71) }]);
    const anon = (await personOf("kim-anon"))!;
    const kim = (await personOf("kim"))!;
    const cohort = await db.prisma.cohort.create({ data: { projectId, name: "Uploaded", isStatic: true } });
    const dynamic = await db.prisma.cohort.create({ data: { projectId, name: "Dynamic", isStatic: false } });
    await db.prisma.cohortPerson.createMany({ data: [{ cohortId: cohort.id, personId: anon.id }, { cohortId: dynamic.id, personId: anon.id }] });
    await capture([{ event: "$merge_dangerously", distinct_id: "kim", timestamp: at(72), properties: { alias: "kim-anon" } }]);
    expect((await personOf("kim-anon"))!.id).toBe(kim.id);
    const rows = await db.prisma.cohortPerson.findMany({ where: { personId: kim.id } });
    expect(rows.map((row) => row.cohortId)).toEqual([cohort.id]);
  });
});

describe(`persons router (${testStoresName})`, () => {
  it("lists, reads, changes and deletes over tRPC with the same services", async () => {
    const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "persons@example.com" } });
    const api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
    const found = await api.persons.list({ projectId, search: "alice@" });
    expect(found.results.map((p) => p.name)).toEqual(["alice@example.com"]);
    expect(found.more).toBe(false);
    const alice = found.results[0]!;
    expect((await api.persons.get({ projectId, id: alice.uuid })).distinct_ids).toEqual(["anon-alice", "alice"]);
    expect((await api.persons.setProperty({ projectId, id: alice.uuid, key: "tier", value: "gold" })).properties.tier).toBe("gold");
    await api.persons.deleteProperty({ projectId, id: alice.uuid, key: "tier" });
    expect((await api.persons.update({ projectId, id: alice.uuid, properties: { x: 1 } })).properties).toMatchObject({ x: 1, email: "alice@example.com" });
    expect((await api.persons.cohorts({ projectId, id: alice.uuid })).results).toEqual([]);
    // The person page's event stream: the explorer's list by person uuid.
    const stream = await api.events.list({ projectId, personId: alice.uuid });
    expect(stream.results.map((e) => e.event)).toEqual(["purchase", "$identify", "$pageview"]);
    await expect(api.persons.get({ projectId, id: "alice" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await api.persons.deletion({ projectId, id: alice.uuid })).toBeNull();
    const { deletionId } = await api.persons.delete({ projectId, id: alice.uuid, deleteEvents: true });
    expect(deletionId).toEqual(expect.any(Number));
    await runPersonDeletions(db);
    const status = await api.persons.deletion({ projectId, id: alice.uuid });
    expect(status).toMatchObject({ id: deletionId, deleted_events: 3, finished_at: expect.any(String) });
    expect(await eventCount("alice", "anon-alice")).toBe(0);
  });
});
