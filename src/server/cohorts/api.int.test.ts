/**
 * The cohorts REST resource end to end on a real database (PGlite, PostgreSQL, and with the
 * events in ClickHouse): every condition kind's membership computed for real, static
 * cohorts from CSV and by uuid, the count/is_calculating lifecycle, the worker, the API's
 * shapes and errors, and the soft delete refused while a flag uses the cohort.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { computeCohort, startCohortWorker, stopCohortWorker } from "./worker";
import { CSV_MESSAGES } from "./csv";

const listRoute = restRoute("projects", "cohorts");
const itemRoute = restRoute("projects", "cohorts/:id");
const envItemRoute = restRoute("environments", "cohorts/:id");
const personsRoute = restRoute("projects", "cohorts/:id/persons");
const addRoute = restRoute("projects", "cohorts/:id/add_persons_to_static_cohort");
const removeRoute = restRoute("projects", "cohorts/:id/remove_person_from_static_cohort");
const eventsRoute = restRoute("projects", "events");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

let db: Database;
let projectId: number;
let otherProjectId: number;
let key: string;
let cohortOnlyKey: string;
let userId: number;

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function call(handler: Handler, method: Method, path: string, params: Record<string, string>, body?: unknown, token = key): Promise<Answer> {
  const isForm = body instanceof FormData;
  const request = new Request(`http://internal.test${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(isForm ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : isForm ? body : typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve(params) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

const p = () => ({ project_id: String(projectId) });
const list = (query = "", token?: string) => call(listRoute.GET as Handler, "GET", `/api/projects/${projectId}/cohorts/${query}`, p(), undefined, token);
const post = (body: unknown) => call(listRoute.POST as Handler, "POST", `/api/projects/${projectId}/cohorts/`, p(), body);
const item = (method: Method, id: number, body?: unknown) => call(itemRoute[method] as Handler, method, `/api/projects/${projectId}/cohorts/${id}/`, { ...p(), id: String(id) }, body);
const members = async (id: number, query = "", token?: string) =>
  call(personsRoute.GET as Handler, "GET", `/api/projects/${projectId}/cohorts/${id}/persons/${query}`, { ...p(), id: String(id) }, undefined, token);
const memberNames = async (id: number) => {
  const answer = await members(id, "?limit=1000");
  expect(answer.status, answer.text).toBe(200);
  return (answer.body.results as { distinct_ids: string[] }[]).map((person) => person.distinct_ids[0]).sort();
};

const create = async (body: Record<string, unknown>) => {
  const answer = await post(body);
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
};
/** A dynamic cohort, computed. */
const dynamic = async (properties: unknown, name = "c") => {
  const cohort = await create({ name, filters: { properties } });
  const outcome = await computeCohort(db, cohort.id);
  expect(outcome).toMatchObject({ status: "done" });
  return cohort.id as number;
};
const validation = (detail: string | RegExp, attr: string | null) => ({
  status: 400,
  body: { type: "validation_error", code: "invalid_input", detail: typeof detail === "string" ? detail : expect.stringMatching(detail), attr },
});
const strip = ({ status, body }: Answer) => ({ status, body });

const uuids = new Map<string, string>();
const DAY = 86_400_000;

async function person(distinctId: string, properties: Record<string, unknown>, project = projectId) {
  const row = await db.prisma.person.create({ data: { projectId: project, properties: properties as object, distinctIds: { create: { projectId: project, distinctId } } } });
  uuids.set(distinctId, row.uuid);
  return row;
}

async function events(distinctId: string, event: string, ageDays: number[]) {
  await db.events.insert(
    ageDays.map((age) => ({ uuid: randomUUID(), projectId, event, distinctId, properties: {}, timestamp: new Date(Date.now() - age * DAY), personId: uuids.get(distinctId)! })),
  );
}

const person_ = (key: string, operator: string, value?: unknown, negation = false) => ({ type: "person", key, operator, ...(value === undefined ? {} : { value }), negation });
const and = (...values: unknown[]) => ({ type: "AND", values });
const or = (...values: unknown[]) => ({ type: "OR", values });

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "cohorts@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
  userId = owner.user.id;
  cohortOnlyKey = (await createPersonalApiKey(db.prisma, owner.user.id, { scopes: ["cohort:read"] })).key;
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: "phc_other_cohorts" } })).id;
  await person("ann", { email: "ann@acme.com", plan: "pro", age: 31 });
  await person("bob", { email: "bob@acme.com", plan: "free", age: 25 });
  await person("cat", { email: "cat@other.io", plan: "pro", age: 40 });
  await person("dan", { name: "Dan", age: 19 });
  await person("eve-elsewhere", { email: "eve@acme.com", plan: "pro" }, otherProjectId);
  // ann: 3 pageviews this week; bob: 1 a day ago and 1 sixty days ago; cat: 1 forty days ago; dan none.
  await events("ann", "$pageview", [1, 2, 3]);
  await events("bob", "$pageview", [1, 60]);
  await events("cat", "$pageview", [40]);
  await events("cat", "signed_up", [2]);
});

afterAll(async () => {
  await stopCohortWorker();
  await closeDb();
});

describe(`cohorts (${testStoresName})`, () => {
  describe("membership of each condition kind", () => {
    it("person properties, AND", async () => {
      const id = await dynamic(and(person_("email", "icontains", "@acme.com"), person_("plan", "exact", ["pro"])));
      expect(await memberNames(id)).toEqual(["ann"]);
    });

    it("person properties, OR of AND groups, with negation", async () => {
      const id = await dynamic(or(and(person_("email", "icontains", "acme")), and(person_("age", "gt", 35))));
      expect(await memberNames(id)).toEqual(["ann", "bob", "cat"]);
      const negated = await dynamic(and(person_("email", "icontains", "acme", true)));
      expect(await memberNames(negated)).toEqual(["cat", "dan"]);
      const unset = await dynamic(and(person_("email", "is_not_set")));
      expect(await memberNames(unset)).toEqual(["dan"]);
    });

    it("an empty definition holds for every person of the project (and only of it)", async () => {
      expect(await memberNames(await dynamic(and()))).toEqual(["ann", "bob", "cat", "dan"]);
    });

    it("a cohort in a cohort: dynamic (its definition), static (its rows), not_in and negation", async () => {
      const pro = await dynamic(and(person_("plan", "exact", "pro")), "pro");
      const nested = await dynamic(and({ type: "cohort", key: "id", value: pro }, person_("age", "lt", 35)));
      expect(await memberNames(nested)).toEqual(["ann"]);
      const outside = await dynamic(and({ type: "cohort", key: "id", value: pro, operator: "not_in" }));
      expect(await memberNames(outside)).toEqual(["bob", "dan"]);
      const negated = await dynamic(and({ type: "cohort", key: "id", value: pro, negation: true }));
      expect(await memberNames(negated)).toEqual(["bob", "dan"]);
      const fixed = await create({ name: "fixed", is_static: true, _create_static_person_ids: [uuids.get("dan"), uuids.get("bob")] });
      expect(fixed).toMatchObject({ is_static: true, count: 2, is_calculating: false, cohort_type: "static" });
      const inFixed = await dynamic(or({ type: "cohort", key: "id", value: fixed.id }, { type: "cohort", key: "id", value: nested }));
      expect(await memberNames(inFixed)).toEqual(["ann", "bob", "dan"]);
    });

    it("refuses a loop of cohorts, a cohort naming itself, and unknown or deleted cohorts", async () => {
      const a = await dynamic(and(person_("plan", "is_set")), "a");
      const b = await dynamic(and({ type: "cohort", key: "id", value: a }), "b");
      const c = await dynamic(and({ type: "cohort", key: "id", value: b }), "c");
      const loop = await item("PATCH", a, { filters: { properties: and({ type: "cohort", key: "id", value: c }) } });
      expect(strip(loop)).toEqual(validation("Cohorts cannot reference other cohorts in a loop.", "filters"));
      expect(strip(await item("PATCH", a, { filters: { properties: and({ type: "cohort", key: "id", value: a }) } }))).toEqual(
        validation("Cohorts cannot reference other cohorts in a loop.", "filters"),
      );
      expect(strip(await post({ name: "x", filters: { properties: and({ type: "cohort", key: "id", value: 999999 }) } }))).toEqual(
        validation("Cohort with id 999999 does not exist.", "filters"),
      );
      // A loop written behind the API's back: the computation fails, says why, and counts the error.
      await db.prisma.cohort.update({ where: { id: a }, data: { filters: { properties: and({ type: "cohort", key: "id", value: c }) } as object } });
      expect(await computeCohort(db, c)).toEqual({ status: "failed", error: "Cohorts cannot reference other cohorts in a loop." });
      expect((await item("GET", c)).body).toMatchObject({ errors_calculating: 1, last_error: "Cohorts cannot reference other cohorts in a loop.", is_calculating: false });
    });

    it("performed_event in the last N days", async () => {
      const week = await dynamic(and({ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 7, time_interval: "day" }));
      expect(await memberNames(week)).toEqual(["ann", "bob"]);
      const quarter = await dynamic(and({ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 3, time_interval: "month" }));
      expect(await memberNames(quarter)).toEqual(["ann", "bob", "cat"]);
      const didNot = await dynamic(and({ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 7, time_interval: "day", negation: true }));
      expect(await memberNames(didNot)).toEqual(["cat", "dan"]);
      const explicit = await dynamic(and({ type: "behavioral", key: "signed_up", value: "performed_event", event_type: "events", explicit_datetime: "-5d" }));
      expect(await memberNames(explicit)).toEqual(["cat"]);
      expect((await item("GET", week)).body.cohort_type).toBe("behavioral");
    });

    it("performed_event_multiple: at least, exactly, fewer than K times", async () => {
      const leaf = (operator: string, operator_value: number) => ({
        type: "behavioral",
        key: "$pageview",
        value: "performed_event_multiple",
        event_type: "events",
        time_value: 90,
        time_interval: "day",
        operator,
        operator_value,
      });
      expect(await memberNames(await dynamic(and(leaf("gte", 2))))).toEqual(["ann", "bob"]);
      expect(await memberNames(await dynamic(and(leaf("exact", 3))))).toEqual(["ann"]);
      // Persons without the event in the window are not counted as "fewer" (as PostHog).
      expect(await memberNames(await dynamic(and(leaf("lt", 2))))).toEqual(["cat"]);
      // Behavioral and person conditions together.
      expect(await memberNames(await dynamic(and(leaf("gte", 1), person_("plan", "exact", "pro"))))).toEqual(["ann", "cat"]);
    });
  });

  describe("lifecycle", () => {
    it("is calculating with no count until computed; recomputes after a person changes; a definition change bumps the version", async () => {
      const cohort = await create({ name: "adults", filters: { properties: and(person_("age", "gte", 30)) } });
      expect(cohort).toMatchObject({ is_calculating: true, count: null, last_calculation: null, errors_calculating: 0, cohort_type: "person_property" });
      await computeCohort(db, cohort.id);
      const computed = (await item("GET", cohort.id)).body;
      expect(computed).toMatchObject({ is_calculating: false, count: 2 });
      expect(Date.parse(computed.last_calculation)).toBeGreaterThan(Date.now() - 60_000);
      await db.sql.query(`UPDATE persons SET properties = properties || '{"age": 50}'::jsonb, updated_at = now() WHERE uuid = $1::uuid`, [uuids.get("dan")]);
      await computeCohort(db, cohort.id);
      expect(await memberNames(cohort.id)).toEqual(["ann", "cat", "dan"]);
      await db.sql.query(`UPDATE persons SET properties = properties || '{"age": 19}'::jsonb WHERE uuid = $1::uuid`, [uuids.get("dan")]);

      const patched = await item("PATCH", cohort.id, { filters: { properties: and(person_("age", "gte", 35)) } });
      expect(patched.body).toMatchObject({ is_calculating: true, count: 3 });
      expect((await db.prisma.cohort.findUniqueOrThrow({ where: { id: cohort.id } })).version).toBe(2);
      await computeCohort(db, cohort.id);
      expect((await item("GET", cohort.id)).body).toMatchObject({ is_calculating: false, count: 1 });
      // A rename is not a definition change.
      expect((await item("PATCH", cohort.id, { name: "older" })).body).toMatchObject({ name: "older", is_calculating: false });
    });

    const settled = async (id: number, count: number) => {
      for (let i = 0; i < 100; i++) {
        const body = (await item("GET", id)).body;
        if (!body.is_calculating && body.count === count) return body;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`cohort ${id} did not settle at ${count}`);
    };

    it("the worker computes new cohorts, recovers ones a crash left calculating, and recomputes when persons change", async () => {
      const left = await create({ name: "left calculating", filters: { properties: and(person_("plan", "exact", "free")) } });
      startCohortWorker(db, { sweepMs: 100, staleMs: 60 * 60_000, personsQuietMs: 0 });
      await settled(left.id, 1);
      const fresh = await create({ name: "fresh", filters: { properties: and(person_("name", "exact", "Dan")) } });
      await settled(fresh.id, 1);
      await db.sql.query(`UPDATE persons SET properties = properties || '{"name": "Dan"}'::jsonb, updated_at = now() + interval '1 second' WHERE uuid = $1::uuid`, [uuids.get("ann")]);
      await settled(fresh.id, 2);
      await stopCohortWorker();
      await db.sql.query(`UPDATE persons SET properties = properties - 'name' WHERE uuid = $1::uuid`, [uuids.get("ann")]);
    });

    it("the worker's first sweep waits firstPassAfterMs (a restart's due cohorts), while a cohort created meanwhile is computed at once", async () => {
      const due = await create({ name: "due at the first sweep", filters: { properties: and(person_("plan", "exact", "free")) } });
      startCohortWorker(db, { sweepMs: 60_000, firstPassAfterMs: 60_000 });
      try {
        const created = await create({ name: "created after start", filters: { properties: and(person_("name", "exact", "Dan")) } });
        await settled(created.id, 1);
        expect((await item("GET", due.id)).body).toMatchObject({ is_calculating: true });
      } finally {
        await stopCohortWorker();
      }
    });
  });

  describe("static cohorts", () => {
    const form = (fields: Record<string, string>, csv?: string | Uint8Array) => {
      const data = new FormData();
      for (const [name, value] of Object.entries(fields)) data.set(name, value);
      if (csv !== undefined) data.set("csv", new Blob([csv as BlobPart]), "people.csv");
      return data;
    };
    const upload = async (csv: string | Uint8Array) => post(form({ name: "upload", is_static: "true" }, csv));

    it.each([
      ["person_id header: uuids", () => `person_id\n${uuids.get("ann")}\n${uuids.get("cat")}\nnot-a-uuid\n`, ["ann", "cat"]],
      ["Person .id header", () => `Person .id\r\n${uuids.get("bob")}\r\n`, ["bob"]],
      ["email header: e-mail addresses", () => "e-mail\nann@acme.com\nnobody@x.io\nbob@acme.com\n", ["ann", "bob"]],
      ["another header: distinct ids, the first row included", () => "dan\ncat\nunknown\n", ["cat", "dan"]],
      ["several columns: person_id first", () => `email,distinct_id,person_id\nann@acme.com,bob,${uuids.get("cat")}\n`, ["cat"]],
      ["several columns: distinct_id before email", () => `name,email,distinct-id\nx,ann@acme.com,"dan"\n`, ["dan"]],
      ["several columns: email", () => `name,Email\n"Bob, B.",bob@acme.com\n`, ["bob"]],
    ])("CSV by PostHog's column rules: %s", async (_, csv, expected) => {
      const answer = await upload(csv());
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body).toMatchObject({ is_static: true, is_calculating: false, count: expected.length });
      expect(await memberNames(answer.body.id)).toEqual(expected);
    });

    it.each([
      ["an empty file", "", CSV_MESSAGES.empty],
      ["a header only", "person_id\n", CSV_MESSAGES.noIds],
      ["several columns without an id column", "name,age\nann,3\n", CSV_MESSAGES.multiColumn],
      ["bytes that are not UTF-8", new Uint8Array([0x64, 0xff, 0xfe, 0x0a]), CSV_MESSAGES.encoding],
      ["a NUL byte", "dan\n\u0000cat\n", CSV_MESSAGES.nul],
    ])("refuses %s (400 naming csv, no cohort left behind)", async (_, csv, message) => {
      const before = await db.prisma.cohort.count();
      expect(strip(await upload(csv))).toEqual(validation(message, "csv"));
      expect(await db.prisma.cohort.count()).toBe(before);
    });

    it("refuses a CSV larger than 20 MB while reading it, and a CSV for a dynamic cohort", async () => {
      const huge = new Uint8Array(21 * 1024 * 1024).fill(0x61);
      expect(strip(await upload(huge))).toEqual(validation(/larger than/, "csv"));
      expect(strip(await post(form({ name: "dyn" }, "dan\n")))).toEqual(validation(/static cohort/, "csv"));
    });

    it("adds a CSV's persons on PATCH; adds and removes persons by uuid", async () => {
      const cohort = (await upload("dan\n")).body;
      const patched = await call(itemRoute.PATCH as Handler, "PATCH", `/api/projects/${projectId}/cohorts/${cohort.id}/`, { ...p(), id: String(cohort.id) }, form({}, "cat\n"));
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.count).toBe(2);
      const at = (route: typeof addRoute, body: unknown) =>
        call(route.PATCH as Handler, "PATCH", `/api/projects/${projectId}/cohorts/${cohort.id}/x/`, { ...p(), id: String(cohort.id) }, body);
      expect(strip(await at(addRoute, { person_ids: [uuids.get("ann"), randomUUID()] }))).toEqual({ status: 200, body: { success: true } });
      expect(await memberNames(cohort.id)).toEqual(["ann", "cat", "dan"]);
      expect(strip(await at(addRoute, { person_ids: [randomUUID(), uuids.get("eve-elsewhere")] }))).toEqual(validation(/None of the given person ids/, "person_ids"));
      expect(strip(await at(addRoute, { person_ids: [] }))).toEqual(validation("person_ids must not be empty.", "person_ids"));
      expect((await at(addRoute, { person_ids: Array.from({ length: 1001 }, () => randomUUID()) })).status).toBe(400);
      expect(strip(await at(removeRoute, { person_id: uuids.get("cat") }))).toEqual({ status: 200, body: { success: true } });
      expect((await at(removeRoute, { person_id: uuids.get("cat") })).status).toBe(404);
      expect(await memberNames(cohort.id)).toEqual(["ann", "dan"]);
      expect((await item("GET", cohort.id)).body.count).toBe(2);
      const dynamicId = await dynamic(and());
      const onDynamic = await call(addRoute.PATCH as Handler, "PATCH", "/x", { ...p(), id: String(dynamicId) }, { person_ids: [uuids.get("ann")] });
      expect(strip(onDynamic)).toEqual(validation("Can only add or remove persons on a static cohort.", null));
    });
  });

  describe("API", () => {
    it("lists live cohorts newest first with PostHog's filters and envelope", async () => {
      const s = await create({ name: "Zeta static", is_static: true });
      const d = await create({ name: "zeta dynamic", filters: { properties: and(person_("plan", "is_set")) } });
      const b = await create({ name: "zeta behavioral", filters: { properties: and({ type: "behavioral", key: "x", value: "performed_event", event_type: "events", time_value: 1, time_interval: "week" }) } });
      const nb = await create({ name: "zeta nests behavioral", filters: { properties: and({ type: "cohort", key: "id", value: b.id }) } });
      const gone = await create({ name: "zeta deleted", is_static: true });
      await item("PATCH", gone.id, { deleted: true });
      const names = async (query: string) => ((await list(query)).body.results as { name: string }[]).map((cohort) => cohort.name);
      expect(await names("?search=ZETA")).toEqual(["zeta nests behavioral", "zeta behavioral", "zeta dynamic", "Zeta static"]);
      expect(await names("?search=zeta&type=static")).toEqual(["Zeta static"]);
      expect(await names("?search=zeta&type=dynamic")).toEqual(["zeta nests behavioral", "zeta behavioral", "zeta dynamic"]);
      expect(await names("?search=zeta&hide_behavioral_cohorts=true")).toEqual(["zeta dynamic", "Zeta static"]);
      expect(await names(`?search=zeta&created_by_id=${userId}`)).toHaveLength(4);
      const page = await list("?search=zeta&limit=2");
      expect(page.body).toMatchObject({ count: 4, previous: null, next: expect.stringContaining("offset=2") });
      expect(page.body.results[0]).toEqual({
        id: nb.id,
        name: "zeta nests behavioral",
        description: "",
        groups: [],
        deleted: false,
        filters: { properties: { type: "AND", values: [{ type: "cohort", key: "id", value: b.id, operator: "in", negation: false }] } },
        query: null,
        is_calculating: true,
        created_by: expect.objectContaining({ id: userId, email: "cohorts@example.com" }),
        created_at: expect.any(String),
        last_calculation: null,
        errors_calculating: 0,
        last_error: null,
        count: null,
        is_static: false,
        cohort_type: "person_property",
        experiment_set: [],
      });
      expect(s.filters).toEqual({});
      expect(d.cohort_type).toBe("person_property");
      expect(strip(await list("?type=both"))).toEqual(validation("type must be 'static' or 'dynamic'.", "type"));
    });

    it("behavioral leaves are cohorts' alone: the events API answers them with a 400, not a 500", async () => {
      const properties = encodeURIComponent(JSON.stringify([{ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 7, time_interval: "day" }]));
      const answer = await call(eventsRoute.GET as Handler, "GET", `/api/projects/${projectId}/events/?properties=${properties}`, p());
      expect(strip(answer)).toEqual(validation("behavioral filters (performed an event) are only supported in cohorts", "properties"));
    });

    it("validates filters like PostHog's strict models", async () => {
      const bad = (properties: unknown) => post({ name: "bad", filters: { properties } });
      expect(strip(await bad(and({ type: "person", key: "email", value: "x" })))).toEqual(validation("Missing required keys for person filter: operator", "filters__properties__values__0"));
      expect(strip(await bad(and({ type: "person", key: "email", operator: "exact" })))).toEqual(validation("Missing required keys for person filter: value", "filters__properties__values__0"));
      expect(strip(await bad(and(person_("email", "exact", "x"), { ...person_("a", "is_set"), surprise: 1 })))).toEqual(
        validation("Extra inputs are not permitted", "filters__properties__values__1__surprise"),
      );
      expect(strip(await post({ name: "bad", filters: { properties: and(), extra: 1 } }))).toEqual(validation("Extra inputs are not permitted", "filters__extra"));
      expect(strip(await bad(and({ type: "event", key: "a", operator: "is_set" })))).toEqual(validation(/not supported in cohorts/, "filters__properties__values__0__type"));
      expect(strip(await bad(and({ type: "cohort", key: "name", value: 1 })))).toEqual(validation('A cohort filter\'s key must be "id".', "filters__properties__values__0__key"));
      expect(strip(await bad(and({ type: "behavioral", key: "$pageview", value: "performed_event_regularly", event_type: "events", time_value: 1, time_interval: "day" })))).toEqual(
        validation(/'performed_event_regularly' is not supported yet/, "filters__properties__values__0__value"),
      );
      expect(strip(await bad(and({ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events" })))).toEqual(
        validation(/Missing required keys for behavioral filter: time_value/, "filters__properties__values__0__time_value"),
      );
      expect(strip(await bad(and({ type: "behavioral", key: "$pageview", value: "performed_event_multiple", event_type: "events", time_value: 1, time_interval: "day" })))).toEqual(
        validation(/operator_value/, "filters__properties__values__0__operator_value"),
      );
      expect(strip(await bad(and({ type: "behavioral", key: "1", value: "performed_event", event_type: "actions", time_value: 1, time_interval: "day" })))).toEqual(
        validation(/actions are not supported yet/, "filters__properties__values__0__event_type"),
      );
      expect(strip(await bad(and({ type: "behavioral", key: "a", value: "performed_event", event_type: "events", time_value: 1, time_interval: "fortnight" })))).toEqual(
        validation(/time_interval must be one of/, "filters__properties__values__0__time_interval"),
      );
      let deep: unknown = and(person_("a", "is_set"));
      for (let i = 0; i < 50; i++) deep = and(deep);
      expect(strip(await bad(deep))).toEqual(validation(/nest at most/, "filters__properties"));
      expect(strip(await bad(and(...Array.from({ length: 101 }, () => person_("a", "is_set")))))).toEqual(validation(/at most 100/, expect.any(String)));
      expect(strip(await post({ name: "q", is_static: true, query: { kind: "HogQLQuery" } }))).toEqual(validation("Query-based cohorts are not supported yet.", "query"));
      expect(strip(await post({ name: "a\u0000b" }))).toEqual(validation("Null characters are not allowed.", "name"));
    });

    it("answers DELETE with 405, soft-deletes, refuses while an active flag uses the cohort, and restores", async () => {
      const cohort = await create({ name: "used", filters: { properties: and(person_("plan", "is_set")) } });
      expect((await item("DELETE", cohort.id)).status).toBe(405);
      expect((await item("DELETE", 999999)).status).toBe(404);
      const flag = await db.prisma.featureFlag.create({
        data: { projectId, key: "cohort-flag", filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: cohort.id }], rollout_percentage: 100 }] } },
      });
      await db.prisma.featureFlag.create({ data: { projectId, key: "off-flag", active: false, filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: cohort.id }] }] } } });
      expect(strip(await item("PATCH", cohort.id, { deleted: true }))).toEqual(validation(/^This cohort is used in 1 active feature flag\(s\): cohort-flag\./, "deleted"));
      await db.prisma.featureFlag.update({ where: { id: flag.id }, data: { deleted: true } });
      const deleted = await item("PATCH", cohort.id, { deleted: true });
      expect(deleted.body).toMatchObject({ deleted: true });
      expect(((await list("?search=used")).body.results as unknown[]).length).toBe(0);
      expect((await call(envItemRoute.GET as Handler, "GET", "/x", { ...p(), id: String(cohort.id) })).body).toMatchObject({ id: cohort.id, deleted: true });
      expect((await item("PATCH", cohort.id, { deleted: false })).body).toMatchObject({ deleted: false, is_calculating: true });
      const log = await db.prisma.activityLog.findMany({ where: { projectId, scope: "Cohort", itemId: String(cohort.id) }, orderBy: { createdAt: "asc" } });
      // (Entries of one millisecond have no order between them.)
      expect(log.map((entry) => entry.activity).sort()).toEqual(["created", "deleted", "restored"]);
    });

    it("members: PostHog's person items, paged; person:read needed too; 404 across projects", async () => {
      const id = await dynamic(and(person_("email", "icontains", "acme")));
      const page = await members(id, "?limit=1");
      expect(page.body).toMatchObject({ count: 2, previous: null, next: expect.stringContaining("offset=1") });
      expect(page.body.results[0]).toEqual({
        type: "person",
        id: uuids.get("ann"),
        uuid: uuids.get("ann"),
        name: "ann@acme.com",
        distinct_ids: ["ann"],
        properties: { email: "ann@acme.com", plan: "pro", age: 31 },
        created_at: expect.any(String),
        last_seen_at: null,
        is_identified: false,
        matched_recordings: [],
        value_at_data_point: null,
      });
      expect(strip(await members(id, "", cohortOnlyKey))).toEqual({
        status: 403,
        body: { type: "authentication_error", code: "permission_denied", detail: "API key missing required scope 'person:read'", attr: null },
      });
      const other = await call(itemRoute.GET as Handler, "GET", "/x", { project_id: String(otherProjectId), id: String(id) });
      expect(other.status).toBe(404);
      expect((await members(2_147_483_647)).status).toBe(404);
    });
  });
});

describe(`legacy groups (${testStoresName})`, () => {
  it("reads PostHog's deprecated groups as filters: property groups ORed, event groups as performed_event(_multiple)", async () => {
    const cohort = await create({
      name: "legacy",
      groups: [{ properties: [{ key: "plan", value: "pro" }] }, { event_id: "$pageview", days: 2, count: 2, count_operator: "gte" }],
    });
    expect(cohort.filters).toEqual({
      properties: {
        type: "OR",
        values: [
          { type: "AND", values: [{ type: "person", key: "plan", operator: "exact", value: ["pro"], negation: false }] },
          {
            type: "AND",
            values: [{ type: "behavioral", key: "$pageview", value: "performed_event_multiple", event_type: "events", time_value: 2, time_interval: "day", operator: "gte", operator_value: 2, negation: false }],
          },
        ],
      },
    });
    await computeCohort(db, cohort.id);
    // cat is pro; ann is pro and viewed 3 times in 3 days (2 within 2 days); bob viewed once.
    expect(await memberNames(cohort.id)).toEqual(["ann", "cat"]);
    expect(strip(await post({ name: "actions", groups: [{ action_id: 3 }] }))).toEqual(validation(/actions are not supported yet/, "filters__properties__values__0__event_type"));
  });
});
