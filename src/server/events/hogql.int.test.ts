/**
 * The experimental `select` and `where` of the events list, end to end: events sent through
 * the real capture handler, read back through the real list route with a personal API key.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testEventStoreKind, testStoresName } from "@/test-support/db";
import { MAX_RESOLVED_PERSONS } from "@/server/db/events/filters/clickhouse";
import { sendBatch } from "@/test-support/ingestion";
import { restRoute } from "@/test-support/rest-routes";

const listRoute = restRoute("projects", "events");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const SITE = "https://burrow.example.test";
let db: Database;
let projectId: number;
let projectKey: string;
let personalKey: string;
let otherKey: string;

async function list(query: Record<string, string | number | string[]>): Promise<{ status: number; body: any; text: string }> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? JSON.stringify(v) : String(v)]));
  return listPath(`/api/projects/${projectId}/events/?${search}`);
}

async function listPath(path: string): Promise<{ status: number; body: any; text: string }> {
  const request = new Request(`http://internal.test${path}`, { headers: { authorization: `Bearer ${personalKey}` } });
  const response = await (listRoute.GET as Handler)(request, { params: Promise.resolve({ project_id: String(projectId) }) });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, body, text };
}

/** The rows of a select answer (asserting it is one). */
async function rows(select: string[], query: Record<string, string | number | string[]> = {}): Promise<unknown[][]> {
  const answer = await list({ select, ...query });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.results;
}

/** Event names listed with these `where` expressions (and other filters), newest first. */
async function names(where: string[], query: Record<string, string | number | string[]> = {}): Promise<string[]> {
  const answer = await list({ where, ...query });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.results.map((e: { event: string }) => e.event);
}

async function capture(events: { event: string; distinct_id: string; properties?: Record<string, unknown>; timestamp: string }[], key = projectKey) {
  await sendBatch(key, events.map((e) => ({ uuid: randomUUID(), ...e })));
}

const T0 = Date.parse("2024-03-01T00:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

beforeAll(async () => {
  process.env.SITE_URL = SITE;
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "hogql@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  projectKey = owner.project_api_key;
  personalKey = owner.personal_api_key;
  otherKey = "phc_hogql_other_project";
  await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: otherKey } });
  // Newest first: day2 ($pageview carol), signup, $pageview bob, purchase bob, purchase alice, $identify, $pageview anon-alice.
  await capture([
    { event: "$pageview", distinct_id: "anon-alice", timestamp: at(1), properties: { $browser: "Chrome", $current_url: "https://a.example/home", price: 5 } },
    { event: "$identify", distinct_id: "alice", timestamp: at(2), properties: { $anon_distinct_id: "anon-alice", $set: { email: "alice@example.com", plan: "pro" } } },
    { event: "purchase", distinct_id: "alice", timestamp: at(3), properties: { price: 20, currency: "EUR", $browser: "Firefox", "space key": "yes", tags: ["a"] } },
    { event: "purchase", distinct_id: "bob", timestamp: at(4), properties: { price: "7", currency: "usd", $browser: "Chrome" } },
    { event: "$pageview", distinct_id: "bob", timestamp: at(5), properties: { $browser: "Safari", price: "abc", ok: true } },
    { event: "signup", distinct_id: "carol", timestamp: at(6), properties: { $browser: "chrome", plan: null, price: 100 } },
    { event: "$pageview", distinct_id: "carol", timestamp: at(24 * 60 + 1), properties: { $browser: "Chrome" } },
  ]);
  // Another project's person with alice's properties: never read for this project.
  await capture([{ event: "purchase", distinct_id: "zed", timestamp: at(3), properties: { price: 99, $browser: "Chrome", $set: { email: "alice@example.com", plan: "pro" } } }], otherKey);
});

afterAll(async () => {
  delete process.env.SITE_URL;
  delete process.env.BURROW_API_RATE_LIMIT_PER_MINUTE;
  await closeDb();
});

describe(`events list: select (${testStoresName})`, () => {
  it("answers columns, types, rows in select order, newest first, and next", async () => {
    const answer = await list({ select: ["event", "distinct_id", "properties.$browser", "properties.`space key`", "timestamp", "properties.price as p"] });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(["columns", "next", "results", "types"]);
    expect(answer.body.columns).toEqual(["event", "distinct_id", "properties.$browser", "properties.`space key`", "timestamp", "properties.price as p"]);
    expect(answer.body.types).toEqual(["String", "String", "JSON", "JSON", "DateTime", "JSON"]);
    expect(answer.body.next).toBeNull();
    expect(answer.body.results).toEqual([
      ["$pageview", "carol", "Chrome", null, at(24 * 60 + 1), null],
      ["signup", "carol", "chrome", null, at(6), 100],
      ["$pageview", "bob", "Safari", null, at(5), "abc"],
      ["purchase", "bob", "Chrome", null, at(4), "7"],
      ["purchase", "alice", "Firefox", "yes", at(3), 20],
      ["$identify", "alice", null, null, at(2), null],
      ["$pageview", "anon-alice", "Chrome", null, at(1), 5],
    ]);
  });

  it("selects ids, person ids, objects, conditions and literals", async () => {
    const all = await list({});
    const newest = all.body.results[0];
    const [row] = await rows(["id", "uuid", "person_id", "properties.tags", "properties.price > 10", "'x'", "1.5", "true", "null"], { limit: 1, where: ["event = 'purchase'", "distinct_id = 'alice'"] });
    expect(row).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.any(String), expect.stringMatching(/^[0-9a-f-]{36}$/), ["a"], true, "x", 1.5, true, null]);
    expect(row![0]).toBe(row![1]);
    expect((await rows(["id"], { limit: 1 }))[0]).toEqual([newest.id]);
  });

  it("count() groups by the other columns, the count descending", async () => {
    expect(await rows(["count()"])).toEqual([[7]]);
    expect(await rows(["event", "count()"])).toEqual([
      ["$pageview", 3],
      ["purchase", 2],
      ["$identify", 1],
      ["signup", 1],
    ]);
    expect(await rows(["count(*)", "event"], { where: ["event != 'signup'"] })).toEqual([
      [3, "$pageview"],
      [2, "purchase"],
      [1, "$identify"],
    ]);
    expect(await rows(["count(properties.currency)", "count(properties.plan)", "count(person_id)"])).toEqual([[2, 0, 7]]);
    expect(await rows(["properties.$browser", "count() as n"], { event: "$pageview" })).toEqual([
      ["Chrome", 2],
      ["Safari", 1],
    ]);
    expect(await rows(["event", "count() > 1"])).toEqual([
      ["$pageview", true],
      ["purchase", true],
      ["$identify", false],
      ["signup", false],
    ]);
    const answer = await list({ select: ["count()"], event: "nothing" });
    expect(answer.body).toEqual({ columns: ["count()"], types: ["UInt64"], results: [[0]], next: null });
  });

  it("toDate(timestamp): the UTC date, to select, group and compare", async () => {
    expect(await rows(["toDate(timestamp)", "count()"])).toEqual([
      ["2024-03-01", 6],
      ["2024-03-02", 1],
    ]);
    expect(await names(["toDate(timestamp) = '2024-03-02'"])).toEqual(["$pageview"]);
    expect(await names(["toDate(timestamp) < '2024-03-02'", "event = 'signup'"])).toEqual(["signup"]);
    expect((await list({ select: ["toDate(timestamp)"], limit: 1 })).body.types).toEqual(["Date"]);
  });

  it("pages: next by cursor for rows, by offset for aggregated rows; works with the other filters", async () => {
    const first = await list({ select: ["distinct_id"], limit: 3 });
    expect(first.body.results).toEqual([["carol"], ["carol"], ["bob"]]);
    expect(first.body.next).toContain("before=");
    const second = await listPath(new URL(first.body.next).pathname + new URL(first.body.next).search);
    expect(second.body.results).toEqual([["bob"], ["alice"], ["alice"]]);
    const grouped = await list({ select: ["distinct_id", "count()"], limit: 2 });
    expect(grouped.body.results).toEqual([
      ["alice", 2],
      ["bob", 2],
    ]);
    expect(new URL(grouped.body.next).searchParams.get("offset")).toBe("2");
    const rest = await listPath(new URL(grouped.body.next).pathname + new URL(grouped.body.next).search);
    expect(rest.body.results).toEqual([
      ["carol", 2],
      ["anon-alice", 1],
    ]);
    expect(rest.body.next).toBeNull();
    expect(await rows(["event"], { distinct_id: "bob", after: "2024-03-01T00:04:30Z" })).toEqual([["$pageview"]]);
    expect(await rows(["event"], { properties: JSON.stringify([{ key: "$browser", value: "chrome" }]), where: ["event != 'signup'"] })).toEqual([["$pageview"], ["purchase"], ["$pageview"]]);
  });

  it("CSV: header = the expressions, values as text", async () => {
    const answer = await list({ select: ["event", "properties.price", "properties.tags", "properties.`space key` = 'yes'"], format: "csv", where: ["distinct_id != 'carol'"] });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(
      "event,properties.price,properties.tags,properties.`space key` = 'yes'\r\n" +
        "$pageview,abc,,\r\n" +
        "purchase,7,,\r\n" +
        'purchase,20,"[""a""]",true\r\n' +
        "$identify,,,\r\n" +
        "$pageview,5,,\r\n",
    );
    const grouped = await list({ select: ["toDate(timestamp)", "count()"], format: "csv", limit: 1 });
    expect(grouped.text).toBe("toDate(timestamp),count()\r\n2024-03-01,6\r\n");
  });
});

describe(`events list: where (${testStoresName})`, () => {
  it("compares properties as text, case-sensitively", async () => {
    expect(await names(["properties.$browser = 'Chrome'"])).toEqual(["$pageview", "purchase", "$pageview"]);
    expect(await names(["properties.`$browser` == 'chrome'"])).toEqual(["signup"]);
    expect(await names(['properties."$browser" != \'Chrome\''])).toEqual(["signup", "$pageview", "purchase"]); // missing: neither
    expect(await names(["properties.price > '50'"])).toEqual(["$pageview", "purchase"]); // 'abc', '7' by text
    expect(await names(["properties.ok = true"])).toEqual(["$pageview"]);
  });

  it("compares numerically with a number when the property is numeric, else by text; never fails on data", async () => {
    expect(await names(["properties.price > 6"])).toEqual(["signup", "$pageview", "purchase", "purchase"]); // 100, 'abc' (text), '7', 20
    expect(await names(["properties.price = 7"])).toEqual(["purchase"]);
    expect(await names(["properties.price <= 20", "properties.price >= 5.0"])).toEqual(["purchase", "purchase", "$pageview"]);
    expect(await names(["properties.price < -1e2"])).toEqual([]);
    expect(await names(["properties.$browser > 1"])).toEqual(["$pageview", "signup", "$pageview", "purchase", "purchase", "$pageview"]); // by text
  });

  it("like, ilike, not like, not ilike", async () => {
    expect(await names(["properties.$browser like 'Chr%'"])).toEqual(["$pageview", "purchase", "$pageview"]);
    expect(await names(["properties.$browser ilike 'CHROME'"])).toEqual(["$pageview", "signup", "purchase", "$pageview"]);
    expect(await names(["properties.$browser not like 'Chr%'"])).toEqual(["signup", "$pageview", "purchase"]);
    expect(await names(["properties.$browser not ilike '%FARI%'", "event != 'x'"])).toEqual(["$pageview", "signup", "purchase", "purchase", "$pageview"]);
    expect(await names(["properties.$current_url like '%a.example/_ome'"])).toEqual(["$pageview"]);
    expect(await names(["distinct_id like 'anon\\\\-%'"])).toEqual(["$pageview"]); // \\- : an escaped '-' in the pattern
  });

  it("in, not in, is null, is not null, = null", async () => {
    expect(await names(["event in ('purchase', 'signup')"])).toEqual(["signup", "purchase", "purchase"]);
    expect(await names(["event not in ('purchase', '$pageview')"])).toEqual(["signup", "$identify"]);
    expect(await names(["properties.price in (5, 'abc', 7)"])).toEqual(["$pageview", "purchase", "$pageview"]);
    expect(await names(["properties.currency is not null"])).toEqual(["purchase", "purchase"]);
    expect(await names(["properties.currency != null"])).toEqual(["purchase", "purchase"]);
    expect(await names(["properties.plan is null", "properties.price is not null"])).toEqual(["signup", "$pageview", "purchase", "purchase", "$pageview"]);
    expect(await names(["null = properties.$browser"])).toEqual(["$identify"]);
  });

  it("and, or, not, parentheses; several where expressions are ANDed with the other filters", async () => {
    expect(await names(["(event = 'purchase' or event = 'signup') and not distinct_id = 'bob'"])).toEqual(["signup", "purchase"]);
    expect(await names(["event = 'purchase' OR properties.price = 5 AND distinct_id = 'anon-alice'"])).toEqual(["purchase", "purchase", "$pageview"]);
    expect(await names(["event = '$pageview'", "distinct_id = 'bob'"])).toEqual(["$pageview"]);
    expect(await names(["properties.price > 1"], { event: "purchase", distinct_id: "alice" })).toEqual(["purchase"]);
    expect(await names(["timestamp > '2024-03-01T00:03:30Z'", "timestamp <= '2024-03-01 00:06:00'"], { before: "2024-03-01T00:05:30Z" })).toEqual(["$pageview", "purchase"]);
  });

  it("person.properties and person_id", async () => {
    const alice = await names(["person.properties.email = 'alice@example.com'"]);
    expect(alice).toEqual(["purchase", "$identify", "$pageview"]); // the anonymous event too: merged into alice
    expect(await rows(["person.properties.plan", "count()"])).toEqual([
      [null, 4],
      ["pro", 3],
    ]);
    expect(await names(["person.properties.email is null", "person.properties.email like '%'"])).toEqual([]);
    const [[personId]] = (await rows(["person_id"], { distinct_id: "alice", limit: 1 })) as [[string]];
    expect(await names([`person_id = '${personId}'`])).toEqual(alice);
    expect(await names(["person.properties.email = 'alice@example.com'"], { properties: JSON.stringify([{ key: "plan", value: "pro", type: "person" }]), event: "purchase" })).toEqual(["purchase"]);
  });

  it("person.properties: a condition that holds without a person, one mixed with the event's, and selected beside a condition on persons", async () => {
    // Bob and carol have no email: their events, and none of alice's (nor the other project's).
    expect(await names(["person.properties.email is null"])).toEqual(["$pageview", "signup", "$pageview", "purchase"]);
    expect(await names(["not (person.properties.plan = 'pro')"])).toEqual([]); // null plan: neither true nor false
    // Bob's "abc" is not a number, so it compares with 50 as text, and "abc" > "50".
    expect(await names(["person.properties.plan = 'pro' or properties.price > 50"])).toEqual(["signup", "$pageview", "purchase", "$identify", "$pageview"]);
    expect(await rows(["distinct_id", "person.properties.email"], { event: "purchase" })).toEqual([
      ["bob", null],
      ["alice", "alice@example.com"],
    ]);
    expect(await rows(["event", "person.properties.plan", "properties.price"], { where: ["person.properties.email like '%@example.com'", "properties.price >= 5"] })).toEqual([
      ["purchase", "pro", 20],
      ["$pageview", "pro", 5],
    ]);
    expect(await rows(["person.properties.email", "count()"], { where: ["person.properties.plan = 'pro'"] })).toEqual([["alice@example.com", 3]]);
  });

  if (testEventStoreKind === "clickhouse") it("person.properties with events in ClickHouse: more persons than a query takes is a 400 saying how to narrow it", async () => {
    await db.sql.query(
      `INSERT INTO persons (project_id, properties, is_identified, updated_at)
       SELECT $1, jsonb_build_object('tier', 'gold', 'n', i), true, now() FROM generate_series(1, $2::int) AS i`,
      [projectId, MAX_RESOLVED_PERSONS + 1],
    );
    try {
      const select = await list({ select: ["person.properties.tier", "count()"] });
      expect(select.status).toBe(400);
      expect(select.body).toMatchObject({ attr: "select", detail: expect.stringContaining(`select: more than ${MAX_RESOLVED_PERSONS} persons have person.properties.tier`) });
      const where = await list({ where: ["person.properties.tier = 'gold'"] });
      expect(where.status).toBe(400);
      expect(where.body).toMatchObject({ attr: "where", detail: expect.stringContaining(`where[0] matches more than ${MAX_RESOLVED_PERSONS} persons`) });
      // Narrowed by a condition on persons alone, the same columns are read.
      expect(await rows(["person.properties.tier", "count()"], { where: ["person.properties.n = 7"] })).toEqual([]);
      expect(await rows(["person.properties.plan", "count()"], { where: ["person.properties.email = 'alice@example.com'"] })).toEqual([["pro", 3]]);
    } finally {
      await db.sql.query(`DELETE FROM persons WHERE project_id = $1 AND properties ? 'tier'`, [projectId]);
    }
  });

  it("is a 400 naming the expression, the part and its position", async () => {
    const cases: [Record<string, string[] | string>, string, string][] = [
      [{ where: ["event = 'a'", "foo = 1"] }, "where", 'where[1]: unknown field "foo"'],
      [{ where: ["pg_sleep(1) = 1"] }, "where", 'where[0]: unknown function "pg_sleep" (supported: count, toDate) at position 0.'],
      [{ select: ["event", "event; delete from events"] }, "select", "select[1]: ';' is not supported: one expression only at position 5."],
      [{ where: ["count() > 1"] }, "where", "where[0]: count() is not allowed here"],
      [{ select: "[\"event\"" }, "select", "select must be a JSON list"],
      [{ select: [] }, "select", "select must name at least one expression."],
      [{ where: ["event"] }, "where", "where[0]: expected a condition, found text at position 0."],
      [{ where: ["properties.price > 1 union select 1"] }, "where", 'where[0]: "union" is not supported at position 21.'],
    ];
    for (const [query, attr, detail] of cases) {
      const answer = await list(query);
      expect(answer.status, detail).toBe(400);
      expect(answer.body).toMatchObject({ type: "validation_error", code: "invalid_input", attr, detail: expect.stringContaining(detail) });
    }
    expect((await list({ where: [] })).status).toBe(200);
  });
});
