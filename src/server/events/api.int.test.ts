/**
 * The events API end to end: events sent through the real capture handler, read back
 * through the real route handlers (list, CSV, one event, values) with a personal API key.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { insertTestCohort } from "@/test-support/cohorts";
import { handleBatch } from "@/server/http/capture";
import { sendBatch } from "@/test-support/ingestion";
import { restRoute } from "@/test-support/rest-routes";

const envEvent = restRoute("environments", "events/:id");
const envList = restRoute("environments", "events");
const envValues = restRoute("environments", "events/values");
const eventRoute = restRoute("projects", "events/:id");
const listRoute = restRoute("projects", "events");
const valuesRoute = restRoute("projects", "events/values");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const SITE = "https://burrow.example.test";
let db: Database;
let projectId: number;
let projectKey: string;
let personalKey: string;
let otherProjectId: number;
let otherProjectKey: string;
let organizationId: string;
const zedUuid = randomUUID();

interface Answer {
  status: number;
  /** Parsed JSON (or the text of a CSV), read loosely by the assertions. */
  body: any;
  text: string;
  headers: Headers;
}

async function call(handler: Handler, path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  const request = new Request(`http://internal.test${path}`, { headers: { authorization: `Bearer ${personalKey}`, ...headers } });
  const response = await handler(request, { params: Promise.resolve(params) });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, body, text, headers: response.headers };
}

function qs(query: Record<string, string | number>): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return search ? `?${search}` : "";
}

const list = (query: Record<string, string | number> = {}, headers?: Record<string, string>, project = projectId) =>
  call(listRoute.GET as Handler, `/api/projects/${project}/events/${qs(query)}`, { project_id: String(project) }, headers);
const listUrl = (url: string, project = projectId) => {
  const parsed = new URL(url);
  return call(listRoute.GET as Handler, parsed.pathname + parsed.search, { project_id: String(project) });
};
const one = (id: string, project = projectId) => call(eventRoute.GET as Handler, `/api/projects/${project}/events/${encodeURIComponent(id)}/`, { project_id: String(project), id });
const values = (query: Record<string, string>) => call(valuesRoute.GET as Handler, `/api/projects/${projectId}/events/values/${qs(query)}`, { project_id: String(projectId) });

interface Sent {
  event: string;
  distinct_id: string;
  properties?: Record<string, unknown>;
  timestamp?: string;
  uuid?: string;
}

async function capture(events: Sent[], key = projectKey): Promise<void> {
  await sendBatch(key, events.map((e) => ({ uuid: randomUUID(), ...e })));
}

const T0 = Date.parse("2024-03-01T00:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const ids = (answer: Answer): string[] => answer.body.results.map((e: { id: string }) => e.id);
const names = (answer: Answer): string[] => answer.body.results.map((e: { event: string }) => e.event);

let aliceUuid: string;
let aliceId: number;

beforeAll(async () => {
  process.env.SITE_URL = SITE;
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "events@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  projectKey = owner.project_api_key;
  personalKey = owner.personal_api_key;
  organizationId = owner.organization_id;
  otherProjectKey = "phc_events_other_project";
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: otherProjectKey } })).id;

  // alice: identified, two distinct ids, person properties. bob: anonymous.
  await capture([
    { event: "$pageview", distinct_id: "anon-alice", timestamp: at(1), properties: { $browser: "Chrome", $current_url: "https://a.example/home", price: 5 } },
    { event: "$identify", distinct_id: "alice", timestamp: at(2), properties: { $anon_distinct_id: "anon-alice", $set: { email: "alice@example.com", plan: "pro", age: 31 } } },
    { event: "purchase", distinct_id: "alice", timestamp: at(3), properties: { price: 20, currency: "EUR", $browser: "Firefox", tags: ["a", "b"] } },
    { event: "purchase", distinct_id: "bob", timestamp: at(4), properties: { price: "7", currency: "usd", $browser: "Chrome", signup: "2024-02-01" } },
    { event: "$pageview", distinct_id: "bob", timestamp: at(5), properties: { $browser: "Safari", $current_url: "https://a.example/pricing", signup: "2024-02-20T10:00:00Z" } },
    { event: "signup", distinct_id: "carol", timestamp: at(6), properties: { $browser: "chrome", plan: null, price: 100 } },
  ]);
  await capture([{ event: "purchase", distinct_id: "zed", timestamp: at(3), properties: { price: 99 }, uuid: zedUuid }], otherProjectKey);
  const [alice] = await db.sql.query<{ uuid: string; id: number }>(
    `SELECT p.uuid::text AS uuid, p.id FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = 'alice'`,
    [projectId],
  );
  aliceUuid = alice!.uuid;
  aliceId = alice!.id;
});

afterAll(async () => {
  delete process.env.SITE_URL;
  delete process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
  await closeDb();
});

describe(`GET /api/projects/:id/events/ (${testStoresName})`, () => {
  it("lists the project's events newest first, as PostHog's event objects, with next and no count", async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(["next", "results"]);
    expect(answer.body.next).toBeNull();
    expect(names(answer)).toEqual(["signup", "$pageview", "purchase", "purchase", "$identify", "$pageview"]);
    const purchase = answer.body.results[3];
    expect(purchase).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      distinct_id: "alice",
      properties: { price: 20, currency: "EUR", $browser: "Firefox", tags: ["a", "b"] },
      event: "purchase",
      timestamp: at(3),
      person: { is_identified: true, distinct_ids: expect.arrayContaining(["alice", "anon-alice"]), properties: expect.objectContaining({ email: "alice@example.com", plan: "pro" }) },
      elements: [],
      elements_chain: "",
    });
    expect(purchase.person.distinct_ids).toHaveLength(2);
    // The anonymous event, after the merge, shows the same person.
    expect(answer.body.results[5].person.properties.email).toBe("alice@example.com");
    expect(answer.body.results[2].person).toEqual({ is_identified: false, distinct_ids: ["bob"], properties: {} });
  });

  it("answers the same under /api/environments/", async () => {
    const env = await call(envList.GET as Handler, `/api/environments/${projectId}/events/?event=purchase`, { project_id: String(projectId) });
    expect(env.status).toBe(200);
    expect(env.body).toEqual((await list({ event: "purchase" })).body);
    const first = ids(await list())[0]!;
    const envOne = await call(envEvent.GET as Handler, `/api/environments/${projectId}/events/${first}/`, { project_id: String(projectId), id: first });
    expect(envOne.body.id).toBe(first);
    const envVals = await call(envValues.GET as Handler, `/api/environments/${projectId}/events/values/?key=currency`, { project_id: String(projectId) });
    expect(envVals.status).toBe(200);
    expect(envVals.body).toHaveLength(2);
  });

  it("filters by event, distinct_id and person_id (uuid or integer id)", async () => {
    expect(names(await list({ event: "purchase" }))).toEqual(["purchase", "purchase"]);
    expect(names(await list({ event: "Purchase" }))).toEqual([]);
    expect((await list({ distinct_id: "bob" })).body.results.map((e: { distinct_id: string }) => e.distinct_id)).toEqual(["bob", "bob"]);
    expect(names(await list({ person_id: aliceUuid }))).toEqual(["purchase", "$identify", "$pageview"]);
    expect(names(await list({ person_id: aliceUuid.toUpperCase() }))).toEqual(["purchase", "$identify", "$pageview"]);
    expect(names(await list({ person_id: aliceId }))).toEqual(["purchase", "$identify", "$pageview"]);
    expect(names(await list({ person_id: randomUUID() }))).toEqual([]);
    expect(names(await list({ person_id: 2_000_000_000 }))).toEqual([]);
    expect(names(await list({ event: "purchase", distinct_id: "bob" }))).toEqual(["purchase"]);
    expect(names(await list({ event: "" }))).toHaveLength(6); // empty means not given
    for (const bad of ["abc", "-1", "1.5", "99999999999"]) {
      expect((await list({ person_id: bad })).body, bad).toMatchObject({ type: "validation_error", code: "invalid_input", attr: "person_id" });
    }
  });

  it("does not show another project's events", async () => {
    expect(names(await list({ event: "purchase", distinct_id: "zed" }))).toEqual([]);
    expect(names(await list({}, {}, otherProjectId))).toEqual(["purchase"]);
  });

  it("filters by after and before: ISO 8601 (UTC without offset) and relative times; both exclusive", async () => {
    expect(names(await list({ after: at(4) }))).toEqual(["signup", "$pageview"]);
    expect(names(await list({ before: at(2) }))).toEqual(["$pageview"]);
    expect(names(await list({ after: at(2), before: at(5) }))).toEqual(["purchase", "purchase"]);
    expect(names(await list({ after: "2024-03-01T00:04:00" }))).toEqual(["signup", "$pageview"]);
    expect(names(await list({ after: "2024-03-01 02:04:00+02:00" }))).toEqual(["signup", "$pageview"]);
    expect(names(await list({ after: "2024-03-01T02:04:00.000+0200" }))).toEqual(["signup", "$pageview"]);
    expect(names(await list({ after: "2024-02-29" }))).toHaveLength(6);
    expect(names(await list({ before: "2024-03-01" }))).toHaveLength(0);
    // An unencoded "+" of an offset arrives as a space.
    const raw = await call(listRoute.GET as Handler, `/api/projects/${projectId}/events/?after=2024-03-01T02:04:00+02:00`, { project_id: String(projectId) });
    expect(names(raw)).toEqual(["signup", "$pageview"]);
    // Events of 2024 are more than a year old now; relative windows are counted from now.
    for (const relative of ["-1d", "-2h", "-30m", "-7d", "-1w", "-1m", "-1q", "-1y"]) {
      expect(names(await list({ after: relative })), relative).toEqual([]);
      expect(names(await list({ before: relative })), relative).toHaveLength(6);
    }
    expect(names(await list({ before: "now" }))).toHaveLength(6);
    expect(names(await list({ after: "now" }))).toHaveLength(0);
    expect(names(await list({ after: "-100y" }))).toHaveLength(6);
  });

  it("answers 400 naming the parameter for a time it cannot read", async () => {
    for (const name of ["after", "before"]) {
      for (const bad of ["yesterday", "2024-13-01", "2024-02-30", "2024-01-01T25:00", "1d", "-1", "-1x", "-1D", "-10000d", "-9999y", "0000-01-01", "2024/01/01", "1709251200", "NOW", " now"]) {
        const answer = await list({ [name]: bad });
        expect(answer.status, `${name}=${bad}`).toBe(400);
        expect(answer.body).toMatchObject({ type: "validation_error", code: "invalid_input", attr: name, detail: expect.stringContaining("ISO 8601") });
      }
    }
  });

  it("checks limit (default 100, at most 1000) and offset", async () => {
    expect(names(await list({ limit: 2 }))).toEqual(["signup", "$pageview"]);
    expect(names(await list({ limit: 2, offset: 2 }))).toEqual(["purchase", "purchase"]);
    expect(names(await list({ offset: 5 }))).toEqual(["$pageview"]);
    expect(names(await list({ offset: 50 }))).toEqual([]);
    expect(names(await list({ limit: 0 }))).toHaveLength(6);
    expect((await list({ limit: 1000 })).status).toBe(200);
    expect((await list({ limit: 1001 })).body).toEqual({ type: "validation_error", code: "invalid_input", detail: "limit must be at most 1000.", attr: "limit" });
    for (const bad of ["-1", "abc", "1.5", "1e3", "99999999999"]) expect((await list({ limit: bad })).body, bad).toMatchObject({ attr: "limit" });
    for (const bad of ["-1", "x", "99999999999"]) expect((await list({ offset: bad })).body, bad).toMatchObject({ attr: "offset" });
    const twice = await call(listRoute.GET as Handler, `/api/projects/${projectId}/events/?event=a&event=b`, { project_id: String(projectId) });
    expect(twice.body).toMatchObject({ type: "validation_error", attr: "event" });
  });

  it("answers 400 for a bad select or where, an unknown action_id and orderBy other than newest first", async () => {
    // select/where themselves: hogql/*.test.ts
    expect(await list({ where: '["event"]' })).toMatchObject({
      status: 400,
      body: { type: "validation_error", code: "invalid_input", attr: "where", detail: "where[0]: expected a condition, found text at position 0." },
    });
    expect((await list({ select: "event" })).body).toMatchObject({ attr: "select" });
    expect((await list({ action_id: "1" })).body).toMatchObject({ attr: "action_id", detail: "Action 1 does not exist." });
    expect((await list({ orderBy: '["timestamp"]' })).body).toMatchObject({ attr: "orderBy" });
    expect((await list({ orderBy: '["-timestamp"]' })).status).toBe(200);
    expect((await list({ format: "xml" })).body).toMatchObject({ attr: "format" });
  });

  describe("properties", () => {
    const byProps = async (properties: unknown) => names(await list({ properties: JSON.stringify(properties) }));

    it("filters on event properties with each operator", async () => {
      expect(await byProps([{ key: "$browser", value: "chrome", operator: "exact", type: "event" }])).toEqual(["signup", "purchase", "$pageview"]);
      expect(await byProps([{ key: "$browser", value: ["safari", "firefox"] }])).toEqual(["$pageview", "purchase"]);
      expect(await byProps([{ key: "$browser", value: "chrome", operator: "is_not" }])).toEqual(["$pageview", "purchase", "$identify"]);
      expect(await byProps([{ key: "$current_url", value: "PRICING", operator: "icontains" }])).toEqual(["$pageview"]);
      expect(await byProps([{ key: "$current_url", value: "pricing", operator: "not_icontains" }])).toEqual(["signup", "purchase", "purchase", "$identify", "$pageview"]);
      expect(await byProps([{ key: "$browser", value: "^[A-Z]", operator: "regex" }])).toEqual(["$pageview", "purchase", "purchase", "$pageview"]);
      expect(await byProps([{ key: "$browser", value: "^[A-Z]", operator: "not_regex" }])).toEqual(["signup", "$identify"]);
      expect(await byProps([{ key: "price", value: 7, operator: "gt" }])).toEqual(["signup", "purchase"]);
      expect(await byProps([{ key: "price", value: "7", operator: "gte" }])).toEqual(["signup", "purchase", "purchase"]);
      expect(await byProps([{ key: "price", value: 20, operator: "lt" }])).toEqual(["purchase", "$pageview"]);
      expect(await byProps([{ key: "price", value: 20, operator: "lte" }])).toEqual(["purchase", "purchase", "$pageview"]);
      expect(await byProps([{ key: "plan", operator: "is_set", value: "is_set" }])).toEqual(["signup"]);
      expect(await byProps([{ key: "price", operator: "is_not_set", value: "is_not_set" }])).toEqual(["$pageview", "$identify"]);
      expect(await byProps([{ key: "signup", value: "2024-02-10", operator: "is_date_before" }])).toEqual(["purchase"]);
      expect(await byProps([{ key: "signup", value: "2024-02-10", operator: "is_date_after" }])).toEqual(["$pageview"]);
      expect(await byProps([{ key: "signup", value: "-1d", operator: "is_date_before" }])).toEqual(["$pageview", "purchase"]);
      expect(await byProps([{ key: "currency", value: "EUR", negation: true }])).toEqual(["signup", "$pageview", "purchase", "$identify", "$pageview"]);
    });

    it("filters on person properties, and on groups of both", async () => {
      expect(await byProps([{ key: "email", value: "alice@example.com", type: "person" }])).toEqual(["purchase", "$identify", "$pageview"]);
      expect(await byProps([{ key: "age", value: 30, operator: "gt", type: "person" }])).toEqual(["purchase", "$identify", "$pageview"]);
      expect(await byProps([{ key: "email", operator: "is_not_set", type: "person" }])).toEqual(["signup", "$pageview", "purchase"]);
      expect(
        await byProps({
          type: "OR",
          values: [
            { type: "AND", values: [{ key: "plan", value: "pro", type: "person" }, { key: "$browser", value: "firefox" }] },
            { key: "$browser", value: "safari" },
          ],
        }),
      ).toEqual(["$pageview", "purchase"]);
      expect(await byProps([{ key: "$browser", value: "chrome" }, { key: "price", operator: "gt", value: 50 }])).toEqual(["signup"]);
      expect(await byProps([])).toHaveLength(6);
      expect(names(await list({ properties: "" }))).toHaveLength(6);
    });

    it("answers 400 on properties for bad JSON, unknown operators or types, and bad values", async () => {
      const cases: [string, RegExp][] = [
        ["not json", /JSON/],
        ["[{]", /JSON/],
        [JSON.stringify([{ key: "a", operator: "like", value: "x" }]), /^properties\[0\]\.operator: Unknown operator 'like'/],
        [JSON.stringify([{ key: "a", type: "cohort", value: 1 }]), /^properties\[0\]\.key: A cohort filter's key must be "id"/],
        [JSON.stringify([{ key: "a", type: "element", value: 1 }]), /not supported/],
        [JSON.stringify([{ key: "a", operator: "regex", value: "(" }]), /Invalid regular expression/],
        // PostgreSQL runs these; RE2 (the in-memory matcher, ClickHouse) cannot: one rule for both stores.
        [JSON.stringify([{ key: "a", operator: "regex", value: "(a)\\1" }]), /^properties\[0\]\.value: Invalid regular expression: "\(a\)\\\\1" \(invalid escape sequence/],
        [JSON.stringify([{ key: "a", operator: "not_regex", value: "(?=x)" }]), /Invalid regular expression: "\(\?=x\)" \(invalid or unsupported Perl syntax/],
        [JSON.stringify([{ key: "a", operator: "gt" }]), /required/],
        [JSON.stringify([{ key: "a", operator: "is_date_before", value: "soon" }]), /ISO 8601/],
        [JSON.stringify([{ operator: "exact", value: "x" }]), /key/],
        [JSON.stringify({ a: 1 }), /key/],
        [JSON.stringify(5), /object/],
        [JSON.stringify([[1]]), /object/],
      ];
      for (const [properties, detail] of cases) {
        const answer = await list({ properties });
        expect(answer.status, properties).toBe(400);
        expect(answer.body, properties).toMatchObject({ type: "validation_error", code: "invalid_input", attr: "properties", detail: expect.stringMatching(detail) });
      }
    });

    it("answers 400 when PostgreSQL refuses a regular expression JavaScript accepted", async () => {
      const answer = await list({ properties: JSON.stringify([{ key: "$browser", operator: "regex", value: "(?<name>a)b" }]) });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ attr: "properties", detail: expect.stringContaining("regular expression") });
      // Also when no stored event has the key (the pattern is compiled up front, not per row).
      const unused = await list({ properties: JSON.stringify([{ key: "nobody-has-this", operator: "not_regex", value: "(?<name>a)b" }]) });
      expect(unused.body).toMatchObject({ attr: "properties", detail: expect.stringContaining("regular expression") });
    });
  });
});

describe(`cohort filters in properties (${testStoresName})`, () => {
  const cohorts: Record<string, number> = {};
  const byProps = async (properties: unknown) => names(await list({ properties: JSON.stringify(properties) }));
  const cohort = (name: string, extra: Record<string, unknown> = {}) => ({ type: "cohort", key: "id", value: cohorts[name], ...extra });

  const defineCohort = async (name: string, distinctIds: string[], options: { projectId?: number; deleted?: boolean; isStatic?: boolean } = {}) => {
    cohorts[name] = await insertTestCohort(db.sql, options.projectId ?? projectId, name, { ...options, distinctIds });
  };

  beforeAll(async () => {
    await defineCohort("alice", ["alice"]);
    await defineCohort("bob (static)", ["bob"], { isStatic: true });
    await defineCohort("empty", []);
    await defineCohort("deleted", ["alice"], { deleted: true });
    await defineCohort("another project's", ["zed"], { projectId: otherProjectId });
  });

  it("filters by membership: in (the default), not_in, negation, nested in AND/OR groups", async () => {
    expect(await byProps([cohort("alice")])).toEqual(["purchase", "$identify", "$pageview"]);
    expect(await byProps([cohort("alice", { operator: "in", value: String(cohorts.alice) })])).toEqual(["purchase", "$identify", "$pageview"]);
    expect(await byProps([cohort("bob (static)")])).toEqual(["$pageview", "purchase"]);
    // Not in a cohort: everyone else, events without a person included.
    expect(await byProps([cohort("alice", { operator: "not_in" })])).toEqual(["signup", "$pageview", "purchase"]);
    expect(await byProps([cohort("alice", { negation: true })])).toEqual(["signup", "$pageview", "purchase"]);
    expect(await byProps([cohort("alice", { operator: "not_in", negation: true })])).toEqual(["purchase", "$identify", "$pageview"]);
    expect(await byProps({ type: "OR", values: [cohort("alice"), cohort("bob (static)")] })).toEqual(["$pageview", "purchase", "purchase", "$identify", "$pageview"]);
    expect(
      await byProps({
        type: "OR",
        values: [
          { type: "AND", values: [cohort("alice"), { key: "$browser", value: "firefox" }] },
          { type: "AND", values: [cohort("bob (static)", { operator: "not_in" }), { key: "price", operator: "gt", value: 50 }] },
        ],
      }),
    ).toEqual(["signup", "purchase"]);
    expect(await byProps([cohort("alice"), { key: "email", type: "person", value: "alice@example.com" }, { key: "event", value: "x", negation: true }])).toEqual(["purchase", "$identify", "$pageview"]);
    expect(names(await list({ event: "purchase", properties: JSON.stringify([cohort("alice")]) }))).toEqual(["purchase"]);
  });

  it("answers nothing for an empty cohort (and everything not in it)", async () => {
    expect(await byProps([cohort("empty")])).toEqual([]);
    expect(await byProps([cohort("empty", { operator: "not_in" })])).toHaveLength(6);
  });

  it("filters the CSV export and select rows alike", async () => {
    const csv = await list({ format: "csv", properties: JSON.stringify([cohort("bob (static)")]) });
    expect(csv.status).toBe(200);
    expect(parseCsv(csv.text).slice(1).map((row) => row[1])).toEqual(["bob", "bob"]);
    const selected = await list({ select: JSON.stringify(["event", "count()"]), properties: JSON.stringify([cohort("alice")]) });
    expect(selected.status, selected.text).toBe(200);
    expect(selected.body.results).toHaveLength(3);
  });

  it("answers 400 for an unknown, deleted or another project's cohort, saying the same for each", async () => {
    const refused: [string, number][] = [
      ["unknown", 2_000_000_000],
      ["deleted", cohorts.deleted!],
      ["another project's", cohorts["another project's"]!],
    ];
    for (const [why, id] of refused) {
      for (const format of ["json", "csv"]) {
        const answer = await list({ format, properties: JSON.stringify({ type: "OR", values: [{ key: "$browser", operator: "is_set" }, { type: "cohort", key: "id", value: id }] }) });
        expect([why, format, answer.status, answer.body], answer.text).toEqual([
          why,
          format,
          400,
          expect.objectContaining({ type: "validation_error", code: "invalid_input", attr: "properties", detail: `properties: cohort ${id} does not exist in this project (or was deleted).` }),
        ]);
      }
    }
    // The other project sees its own cohort.
    expect(names(await list({ properties: JSON.stringify([cohort("another project's")]) }, {}, otherProjectId))).toEqual(["purchase"]);
  });

  it("answers 400 for cohort leaves that are not ids, and bounds how many there may be", async () => {
    const cases: [unknown, RegExp][] = [
      [[{ type: "cohort", key: "id", value: 2 ** 31 }], /cohort id/],
      [[{ type: "cohort", key: "id", value: 1e308 }], /cohort id/],
      [[{ type: "cohort", key: "id", value: -1 }], /cohort id/],
      [[{ type: "cohort", key: "id", value: 1.5 }], /cohort id/],
      [[{ type: "cohort", key: "id", value: "abc" }], /cohort id/],
      [[{ type: "cohort", key: "id", value: "99999999999" }], /cohort id/],
      [[{ type: "cohort", key: "id", value: [1, 2] }], /cohort id/],
      [[{ type: "cohort", key: "id", value: null }], /cohort id/],
      [[{ type: "cohort", key: "id", value: 1, operator: "exact" }], /'in' or 'not_in'/],
      [[{ type: "cohort", key: "name", value: 1 }], /key must be "id"/],
      // 10,000 leaves do not fit the parameter; 101 do, and are too many.
      [Array.from({ length: 10_000 }, () => ({ type: "cohort", key: "id", value: 1 })), /at most 100000 characters/],
      [Array.from({ length: 101 }, () => ({ type: "cohort", key: "id", value: 1 })), /At most 100 property filters/],
      [{ type: "OR", values: Array.from({ length: 60 }, () => ({ type: "AND", values: [{ type: "cohort", key: "id", value: 1 }, { type: "cohort", key: "id", value: 2 }] })) }, /At most 100 property filters/],
    ];
    for (const [properties, detail] of cases) {
      const text = JSON.stringify(properties);
      const answer = await list({ properties: text });
      expect([text.slice(0, 80), answer.status, answer.body?.attr, answer.body?.detail]).toEqual([text.slice(0, 80), 400, "properties", expect.stringMatching(detail)]);
    }
  });

  it("bounds a cohort's members on ClickHouse (they travel with the query) with a 400 that says why; PostgreSQL takes any", async () => {
    const [row] = await db.sql.query<{ id: number }>(`INSERT INTO cohorts (project_id, name, updated_at) VALUES ($1, 'huge', now()) RETURNING id`, [projectId]);
    await db.sql.query(`WITH made AS (INSERT INTO persons (project_id, properties, updated_at) SELECT $1, '{}', now() FROM generate_series(1, 20001) RETURNING id)
                        INSERT INTO cohort_people (cohort_id, person_id) SELECT $2, id FROM made`, [projectId, row!.id]);
    const answer = await list({ properties: JSON.stringify([{ type: "cohort", key: "id", value: row!.id, operator: "not_in" }]) });
    if (db.events.kind === "clickhouse") {
      expect([answer.status, answer.body?.attr, answer.body?.detail]).toEqual([400, "properties", expect.stringContaining("more than 20000 members")]);
    } else {
      expect(answer.status, answer.text).toBe(200);
      expect(names(answer)).toHaveLength(6);
    }
    await db.sql.query(`DELETE FROM persons WHERE id IN (SELECT person_id FROM cohort_people WHERE cohort_id = $1)`, [row!.id]);
    await db.sql.query(`DELETE FROM cohorts WHERE id = $1`, [row!.id]);
  });
});

describe(`pagination through next (${testStoresName})`, () => {
  it("copies the query onto SITE_URL, sets before, drops offset; null on the last page", async () => {
    const first = await list({ limit: 2, event: "purchase", offset: 0 });
    expect(first.body.next).toBeNull();
    const page = await list({ limit: 2, offset: 1, properties: '[{"key":"$browser","operator":"is_set"}]' });
    const next = new URL(page.body.next);
    expect(next.origin + next.pathname).toBe(`${SITE}/api/projects/${projectId}/events/`);
    expect(Object.fromEntries(next.searchParams)).toEqual({ limit: "2", properties: '[{"key":"$browser","operator":"is_set"}]', before: page.body.results[1].timestamp });
    expect(names(page)).toEqual(["$pageview", "purchase"]);
    expect(names(await listUrl(page.body.next))).toEqual(["purchase", "$pageview"]);
  });

  it("sees every event exactly once, newest first, while new events arrive, also across equal timestamps", async () => {
    const project = await db.prisma.project.create({ data: { organizationId: (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).organizationId, name: "Paging", apiToken: "phc_paging" } });
    const base = Date.parse("2024-05-01T00:00:00.000Z");
    // 53 events over 20 distinct timestamps: runs of equal timestamps straddle page boundaries.
    const initial = Array.from({ length: 53 }, (_, i) => ({
      uuid: randomUUID(),
      projectId: project.id,
      event: `e${i}`,
      distinctId: `p${i % 3}`,
      properties: { i },
      timestamp: new Date(base + Math.floor(i / 3) * 1000),
    }));
    await db.events.insert(initial);
    const seen: string[] = [];
    let url: string | null = `${SITE}/api/projects/${project.id}/events/?limit=4&after=2024-04-30`;
    let pages = 0;
    while (url) {
      const parsed = new URL(url);
      const answer = await call(listRoute.GET as Handler, parsed.pathname + parsed.search, { project_id: String(project.id) });
      expect(answer.status).toBe(200);
      const timestamps = answer.body.results.map((e: { timestamp: string }) => e.timestamp);
      expect([...timestamps].sort().reverse()).toEqual(timestamps);
      seen.push(...ids(answer));
      url = answer.body.next;
      pages++;
      // New events keep arriving, stamped now (newer than anything listed), some via capture.
      await db.events.insert([{ uuid: randomUUID(), projectId: project.id, event: "late", distinctId: "late", properties: {}, timestamp: new Date() }]);
      if (pages % 5 === 0) await capture([{ event: "late-captured", distinct_id: "late" }], "phc_paging");
    }
    expect(seen).toHaveLength(initial.length);
    expect(new Set(seen).size).toBe(initial.length);
    const expected = [...initial].sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime() || (a.uuid < b.uuid ? 1 : -1)).map((e) => e.uuid);
    expect(seen).toEqual(expected);
    expect(pages).toBe(14);
  });
});

/** A strict RFC 4180 reader: quoted fields with doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && field === "") {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else if (i >= text.length) {
          throw new Error("unterminated quoted field");
        } else {
          field += text[i++];
        }
      }
      if (text[i] !== "," && text[i] !== "\r") throw new Error(`junk after quoted field at ${i}`);
    } else if (c === ",") {
      record.push(field);
      field = "";
      i++;
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i += 2;
    } else {
      if (c === '"' || c === "\n" || c === "\r") throw new Error(`bare ${JSON.stringify(c)} in an unquoted field at ${i}`);
      field += c;
      i++;
    }
  }
  if (field !== "" || record.length > 0) throw new Error("last record not terminated by CRLF");
  return records;
}

describe(`CSV (${testStoresName})`, () => {
  it("answers text/csv with a header row, for format=csv or Accept: text/csv", async () => {
    const answer = await list({ format: "csv", event: "purchase" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(answer.headers.get("content-disposition")).toContain("events.csv");
    const [header, ...rows] = parseCsv(answer.text);
    expect(header).toEqual(["id", "distinct_id", "event", "timestamp", "person_id", "properties"]);
    expect(rows.map((row) => [row[1], row[2], row[3]])).toEqual([
      ["bob", "purchase", at(4)],
      ["alice", "purchase", at(3)],
    ]);
    expect(rows[1]![4]).toBe(aliceUuid);
    expect(JSON.parse(rows[1]![5]!)).toEqual({ price: 20, currency: "EUR", $browser: "Firefox", tags: ["a", "b"] });
    const json = await list({ event: "purchase" });
    expect(rows.map((row) => row[0])).toEqual(ids(json));
    const accepted = await list({ event: "purchase" }, { accept: "text/csv" });
    expect(accepted.text).toBe(answer.text);
    expect((await list({ event: "purchase", format: "json" }, { accept: "text/csv" })).body.results).toHaveLength(2);
  });

  it("quotes commas, quotes and line breaks so that every value reads back exactly", async () => {
    const tricky = ['a,b', 'say "hi"', "line\nbreak", "cr\rlf\r\n", '"', '""', ",", " spaced ", "=SUM(A1)", "tab\t", "ünïcode 😀", "back\\slash", "'; --", ""];
    await capture(tricky.map((text, i) => ({ event: `csv ${text}`, distinct_id: `csv-${text}`, timestamp: at(100 + i), properties: { text, [text]: i } })));
    const answer = await list({ format: "csv", after: at(99) });
    const [, ...rows] = parseCsv(answer.text);
    expect(rows).toHaveLength(tricky.length);
    const reversed = [...tricky].reverse();
    rows.forEach((row, i) => {
      expect(row).toHaveLength(6);
      expect(row[1]).toBe(`csv-${reversed[i]}`);
      expect(row[2]).toBe(`csv ${reversed[i]}`);
      expect(JSON.parse(row[5]!)).toEqual({ text: reversed[i], [reversed[i]!]: tricky.length - 1 - i });
    });
  });

  it("streams in chunks: default limit 3500, up to 100,000, offset honoured, no row twice", async () => {
    const org = (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).organizationId;
    const big = await db.prisma.project.create({ data: { organizationId: org, name: "Big", apiToken: "phc_big_csv" } });
    const base = Date.parse("2024-04-01T00:00:00.000Z");
    const events = Array.from({ length: 3_600 }, (_, i) => ({
      uuid: randomUUID(),
      projectId: big.id,
      event: "bulk",
      distinctId: `u${i % 50}`,
      properties: { i },
      timestamp: new Date(base + Math.floor(i / 7) * 1000), // equal timestamps across chunk edges
    }));
    await db.events.insert(events);
    const expected = [...events].sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime() || (a.uuid < b.uuid ? 1 : -1)).map((e) => e.uuid);

    const request = new Request(`http://internal.test/api/projects/${big.id}/events/?format=csv`, { headers: { authorization: `Bearer ${personalKey}` } });
    const response = await (listRoute.GET as Handler)(request, { params: Promise.resolve({ project_id: String(big.id) }) });
    expect(response.body).toBeInstanceOf(ReadableStream);
    const reader = response.body!.getReader();
    let chunks = 0;
    let text = "";
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      text += decoder.decode(value, { stream: true });
    }
    expect(chunks).toBeGreaterThanOrEqual(5); // the header, then one piece per 1000 rows
    const [, ...rows] = parseCsv(text);
    expect(rows.map((row) => row[0])).toEqual(expected.slice(0, 3_500));

    const all = await list({ format: "csv", limit: 100_000 }, {}, big.id);
    expect(parseCsv(all.text).slice(1).map((row) => row[0])).toEqual(expected);
    const window = await list({ format: "csv", limit: 1_500, offset: 999 }, {}, big.id);
    expect(parseCsv(window.text).slice(1).map((row) => row[0])).toEqual(expected.slice(999, 2_499));
    const exact = await list({ format: "csv", limit: 2_000 }, {}, big.id);
    expect(parseCsv(exact.text).slice(1).map((row) => row[0])).toEqual(expected.slice(0, 2_000));
    expect((await list({ format: "csv", limit: 100_001 }, {}, big.id)).body).toMatchObject({ attr: "limit", detail: "limit must be at most 100000 for CSV." });
    const empty = await list({ format: "csv", event: "nothing" }, {}, big.id);
    expect(empty.text).toBe("id,distinct_id,event,timestamp,person_id,properties\r\n");
    // A JSON page of the same project stops at 100 with a next link.
    const page = await list({}, {}, big.id);
    expect(page.body.results).toHaveLength(100);
    expect(page.body.next).toContain("before=");
  });

  it("answers 400, not a broken stream, for a filter the database refuses", async () => {
    const answer = await list({ format: "csv", properties: JSON.stringify([{ key: "$browser", operator: "regex", value: "(?<name>a)b" }]) });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ attr: "properties" });
  });
});

describe(`GET /api/projects/:id/events/:id/ (${testStoresName})`, () => {
  it("returns one event of the project", async () => {
    const listed = (await list({ event: "purchase", distinct_id: "alice" })).body.results[0];
    const answer = await one(listed.id);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(listed);
    expect((await one(listed.id.toUpperCase())).body).toEqual(listed);
    expect((await one(listed.id.replace(/-/g, ""))).body).toEqual(listed);
  });

  it("answers 400 Invalid UUID for an id that is not one", async () => {
    for (const bad of ["abc", "123", "' OR 1=1 --", `${randomUUID()}x`, "{00000000-0000-0000-0000-000000000000}"]) {
      expect(await one(bad), bad).toMatchObject({ status: 400, body: { type: "validation_error", code: "invalid_input", detail: "Invalid UUID", attr: "id" } });
    }
  });

  it("answers 404 for an unknown event and for another project's event", async () => {
    const missing = randomUUID();
    expect(await one(missing)).toMatchObject({
      status: 404,
      body: { type: "invalid_request", code: "not_found", detail: `No events exist for event UUID ${missing}`, attr: null },
    });
    expect((await one(zedUuid)).status).toBe(404);
    expect((await one(zedUuid, otherProjectId)).status).toBe(200);
  });
});

// PGlite handed timestamps to `new Date(text)`, whose fallback parser reads years 0–49 as
// 2000–2049 and 50–99 as 1950–1999: 0001-01-01 was listed as 2001-01-01.
describe(`timestamps of any year PostgreSQL keeps, 0001–9999 (${testStoresName})`, () => {
  const TIMES = ["0001-01-01T00:00:00.000Z", "0049-06-01T12:34:56.789Z", "0099-12-31T23:59:59.999Z", "0100-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"];
  let oldProjectId: number;
  const uuidAt = new Map<string, string>();

  beforeAll(async () => {
    const key = "phc_events_old_times_project";
    oldProjectId = (await db.prisma.project.create({ data: { organizationId, name: "Old times", apiToken: key } })).id;
    const batch = TIMES.map((timestamp) => ({ uuid: randomUUID(), event: "old", distinct_id: "historian", timestamp }));
    for (const e of batch) uuidAt.set(e.timestamp, e.uuid);
    // historical_migration: the timestamps are kept as sent (otherwise a far future one becomes now).
    const response = await handleBatch(
      new Request("http://burrow.test/batch/", { method: "POST", body: JSON.stringify({ api_key: key, historical_migration: true, batch }) }),
    );
    expect(await response.text()).toBe('{"status":1}');
  });

  it("lists them back exactly, in order, in JSON and CSV", async () => {
    const json = await list({}, undefined, oldProjectId);
    expect(json.status).toBe(200);
    expect(json.body.results.map((e: { timestamp: string }) => e.timestamp)).toEqual([...TIMES].reverse());
    const csv = parseCsv((await list({ format: "csv" }, undefined, oldProjectId)).text);
    expect(csv.slice(1).map((row) => row[3])).toEqual([...TIMES].reverse());
  });

  it("filters and pages by them exactly", async () => {
    const early = await list({ before: "0100-01-01", after: "0001-01-01" }, undefined, oldProjectId);
    expect(early.body.results.map((e: { timestamp: string }) => e.timestamp)).toEqual([TIMES[2], TIMES[1]]);
    const seen: string[] = [];
    let page = await list({ limit: 2 }, undefined, oldProjectId);
    for (;;) {
      seen.push(...page.body.results.map((e: { timestamp: string }) => e.timestamp));
      if (!page.body.next) break;
      page = await listUrl(page.body.next, oldProjectId);
    }
    expect(seen).toEqual([...TIMES].reverse());
  });

  it("returns each one exactly from the single-event route", async () => {
    for (const [timestamp, uuid] of uuidAt) {
      const answer = await one(uuid, oldProjectId);
      expect(answer.status).toBe(200);
      expect(answer.body.timestamp).toBe(timestamp);
    }
  });
});

describe(`GET /api/projects/:id/events/values/ (${testStoresName})`, () => {
  it("lists a property's values, most frequent first", async () => {
    expect((await values({ key: "$browser" })).body).toEqual([{ name: "Chrome" }, { name: "Firefox" }, { name: "Safari" }, { name: "chrome" }]);
    // Ties in text order; the string "7" and a number 7 would be two values.
    expect((await values({ key: "price" })).body).toEqual([{ name: 100 }, { name: 20 }, { name: 5 }, { name: "7" }]);
    expect((await values({ key: "tags" })).body).toEqual([{ name: "a" }, { name: "b" }]); // list elements count one by one
    expect((await values({ key: "plan" })).body).toEqual([]); // null is not a value
    expect((await values({ key: "nothing" })).body).toEqual([]);
  });

  it("filters by a case-insensitive prefix and by event name", async () => {
    expect((await values({ key: "$browser", value: "CH" })).body).toEqual([{ name: "Chrome" }, { name: "chrome" }]);
    expect((await values({ key: "$browser", value: "hrome" })).body).toEqual([]);
    expect((await values({ key: "$browser", event_name: "purchase" })).body).toEqual([{ name: "Chrome" }, { name: "Firefox" }]);
    expect((await values({ key: "$browser", event_name: "purchase", value: "f" })).body).toEqual([{ name: "Firefox" }]);
    expect((await values({ key: "price", value: "1" })).body).toEqual([{ name: 100 }]);
  });

  it("answers at most 50 values", async () => {
    await capture(Array.from({ length: 60 }, (_, i) => ({ event: "many", distinct_id: "many", timestamp: at(200), properties: { many: `v${String(i).padStart(2, "0")}` } })));
    const answer = await values({ key: "many" });
    expect(answer.body).toHaveLength(50);
    expect(answer.body[0]).toEqual({ name: "v00" });
  });

  it("answers 400 without a key", async () => {
    expect(await values({})).toMatchObject({ status: 400, body: { type: "validation_error", code: "invalid_input", attr: "key" } });
    expect((await values({ key: "" })).body).toMatchObject({ attr: "key" });
    expect((await values({ key: "a", format: "csv" })).body).toMatchObject({ attr: "format" });
  });
});

describe(`scope (${testStoresName})`, () => {
  it("needs query:read; query:write will do", async () => {
    const owner = await db.prisma.user.findFirstOrThrow({ where: { email: "events@example.com" } });
    const readOnly = (await createPersonalApiKey(db.prisma, owner.id, { scopes: ["query:read"] })).key;
    const writer = (await createPersonalApiKey(db.prisma, owner.id, { scopes: ["query:write"] })).key;
    const other = (await createPersonalApiKey(db.prisma, owner.id, { scopes: ["feature_flag:read", "person:read"] })).key;
    for (const [key, status] of [[readOnly, 200], [writer, 200], [other, 403]] as const) {
      expect((await list({}, { authorization: `Bearer ${key}` })).status).toBe(status);
      const auth = { authorization: `Bearer ${key}` };
      expect((await call(valuesRoute.GET as Handler, `/api/projects/${projectId}/events/values/?key=a`, { project_id: String(projectId) }, auth)).status).toBe(status);
      const id = ids(await list())[0]!;
      expect((await call(eventRoute.GET as Handler, `/api/projects/${projectId}/events/${id}/`, { project_id: String(projectId), id }, auth)).status).toBe(status);
    }
  });

  it("answers 405 for writes", async () => {
    const answer = await (listRoute.POST as Handler)(new Request(`http://internal.test/api/projects/${projectId}/events/`, { method: "POST" }), { params: Promise.resolve({ project_id: String(projectId) }) });
    expect(answer.status).toBe(405);
  });
});
