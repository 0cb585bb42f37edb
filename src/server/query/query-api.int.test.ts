/**
 * `POST /api/projects/:id/query/` end to end through the real route handlers with personal
 * API keys: PostHog's cached-response envelope, the refresh modes against the cache, the
 * parse-error body, scopes and the environments prefix; ActorsQuery over a kind registered
 * by this test (its actors are a list it is given, so the paging, search, ordering and the
 * persons read from PostgreSQL are what is tested); HogQLQuery's columns, types, rows and
 * refusals; a HogQL insight stored, retrieved and computed on a shared dashboard; the tRPC
 * router. Persons come from the real ingestion pipeline.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { testContext } from "@/test-support/context";
import type { QueryKind } from "@/server/analytics/kind";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { createCaller } from "@/server/http/trpc/root";
import { sendBatch } from "@/test-support/ingestion";
import { computeSavedInsight } from "@/server/insights/service";
import { updateDashboardSharing } from "@/server/sharing/service";
import { findSharedDashboardWithCharts } from "@/test-support/shared-charts";
import { registerQueryKind } from "./kinds";
import { clearQueryCache } from "./service";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: Database;
let projectId: number;
let userId: number;
let personalKey: string;
const uuidOf: Record<string, string> = {};

interface Answer {
  status: number;
  body: any;
}

async function post(path: string, body: unknown, options: { key?: string; prefix?: "projects" | "environments"; raw?: string } = {}): Promise<Answer> {
  const prefix = options.prefix ?? "projects";
  const [pattern, params] = path.startsWith("insights/") && path !== "insights/" ? ["insights/:id", { id: path.split("/")[1]! }] : [path.replace(/\/$/, ""), {}];
  const method = path.startsWith("insights/") && path !== "insights/" ? "GET" : "POST";
  const handler = restRoute(prefix, pattern)[method] as Handler;
  const request = new Request(`http://internal.test/api/${prefix}/${projectId}/${path}`, {
    method,
    headers: { authorization: `Bearer ${options.key ?? personalKey}`, "content-type": "application/json" },
    body: method === "GET" ? undefined : (options.raw ?? JSON.stringify(body)),
  });
  const response = await handler(request, { params: Promise.resolve({ project_id: String(projectId), ...params }) });
  return { status: response.status, body: await response.json() };
}

const query = (body: unknown, options: Parameters<typeof post>[2] = {}) => post("query/", body, options);
const pageviews = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" } };

/** A kind of this test only: its actors are the list it names (names of this test's persons or ANONYMOUS keys); the selector it was given is recorded. */
const selectors: Record<string, unknown>[] = [];
const listedKind: QueryKind<{ actors: string[] }> = {
  kind: "ListedActorsTestQuery",
  spec: (node) => ({ actors: (node as { actors: string[] }).actors }),
  check: async () => {},
  compute: async (_env, spec) => ({ results: [{ count: spec.actors.length }], range: null, weight: 1 }),
  async actors(_env, spec, selector) {
    selectors.push(selector);
    return spec.actors.map((name) => uuidOf[name] ?? name);
  },
};
const noActorsKind: QueryKind<null> = {
  kind: "NoActorsTestQuery",
  spec: () => null,
  check: async () => {},
  compute: async () => ({ results: [], range: null, weight: 1 }),
};

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "query@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  personalKey = owner.personal_api_key;
  userId = (await db.prisma.user.findUniqueOrThrow({ where: { email: "query@example.com" } })).id;
  registerQueryKind(listedKind);
  registerQueryKind(noActorsKind);

  const send = (events: { event: string; distinct_id: string; timestamp: string; properties?: Record<string, unknown> }[]) =>
    sendBatch(owner.project_api_key, events.map((e) => ({ uuid: randomUUID(), ...e })));
  // One batch per person, in order, so creation times order them: alice, bob, carol.
  await send([{ event: "$pageview", distinct_id: "alice", timestamp: "2024-03-01T09:00:00.000Z", properties: { $browser: "Chrome", $set: { email: "alice@example.com", name: "Alice" } } }]);
  await send([{ event: "$pageview", distinct_id: "bob", timestamp: "2024-03-01T10:00:00.000Z", properties: { $browser: "Safari", $set: { email: "bob@example.com" } } }]);
  await send([
    { event: "$pageview", distinct_id: "carol", timestamp: "2024-03-02T10:00:00.000Z", properties: { $browser: "Chrome", $set: { name: "Carol" } } },
    { event: "purchase", distinct_id: "carol", timestamp: "2024-03-02T11:00:00.000Z", properties: { amount: 30 } },
    { event: "$pageview", distinct_id: "alice", timestamp: "2024-03-02T12:00:00.000Z", properties: { $browser: "Firefox" } },
  ]);
  const rows = await db.sql.query<{ uuid: string; distinct_id: string }>(
    `SELECT p.uuid::text AS uuid, d.distinct_id FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE p.project_id = $1::int`,
    [projectId],
  );
  for (const row of rows) uuidOf[row.distinct_id] = row.uuid;
});

afterAll(async () => {
  await closeDb();
});

beforeEach(() => {
  clearQueryCache(db);
});

describe(`query API envelope, cache and errors (${testStoresName})`, () => {
  it("answers PostHog's cached-response envelope with every field present, null where PostHog dumps null", async () => {
    const answer = await query({ query: pageviews, client_query_id: "my-query-1" });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(
      [
        "cache_key",
        "cache_target_age",
        "calculation_trigger",
        "error",
        "hasMore",
        "hogql",
        "is_cached",
        "last_refresh",
        "modifiers",
        "next_allowed_client_refresh",
        "query_metadata",
        "query_status",
        "resolved_date_range",
        "results",
        "timezone",
        "timings",
      ].sort(),
    );
    expect(answer.body).toMatchObject({ is_cached: false, timezone: "UTC", query_status: null, hogql: null, error: null, calculation_trigger: null, query_metadata: null });
    expect(answer.body.cache_key).toMatch(/^cache_[0-9a-f]{32}$/);
    expect(Date.parse(answer.body.next_allowed_client_refresh)).toBeGreaterThan(Date.parse(answer.body.last_refresh));
    expect(answer.body.results[0].data).toEqual([2, 2, 0]);
  });

  it("answers from the cache while fresh (is_cached) and recomputes with refresh: true or force_blocking", async () => {
    const first = await query({ query: pageviews });
    const hit = await query({ query: pageviews, refresh: "blocking" });
    expect(hit.body).toMatchObject({ is_cached: true, last_refresh: first.body.last_refresh, cache_key: first.body.cache_key });
    expect((await query({ query: pageviews, refresh: true })).body.is_cached).toBe(false);
    expect((await query({ query: pageviews, refresh: "force_blocking" })).body.is_cached).toBe(false);
    // Any other mode uses a fresh entry; force_cache too, as PostHog's query endpoint turns cache-only into blocking.
    for (const refresh of ["async", "lazy_async", "force_cache", false]) expect((await query({ query: pageviews, refresh })).body.is_cached).toBe(true);
  });

  it("computes on a cache miss even with force_cache (PostHog's query endpoint never answers nothing)", async () => {
    const answer = await query({ query: pageviews, refresh: "force_cache" });
    expect(answer.body).toMatchObject({ is_cached: false });
    expect(answer.body.results[0].count).toBe(4);
  });

  it("keeps serving the cached answer after new events until refresh recomputes it", async () => {
    const hogql = { kind: "HogQLQuery", query: "SELECT count() FROM events WHERE event = 'late_event'" };
    expect((await query({ query: hogql })).body.results).toEqual([[0]]);
    await db.events.insert([{ uuid: randomUUID(), projectId, event: "late_event", distinctId: "late", properties: {}, timestamp: new Date("2024-03-02T00:00:00Z") }]);
    expect((await query({ query: hogql })).body).toMatchObject({ is_cached: true, results: [[0]] });
    expect((await query({ query: hogql, refresh: "force_blocking" })).body).toMatchObject({ is_cached: false, results: [[1]] });
    expect((await query({ query: hogql })).body).toMatchObject({ is_cached: true, results: [[1]] });
  });

  it("answers an unknown kind with PostHog's parse error body", async () => {
    const answer = await query({ query: { kind: "NopeQuery" } });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      type: "invalid_request",
      code: "parse_error",
      detail: expect.stringMatching(/^JSON parse error - query\.kind: Query kind 'NopeQuery' is not supported; use one of .*TrendsQuery/),
      attr: null,
    });
  });

  it("rejects unknown keys of the request as PostHog's QueryRequest does, but keeps display-only fields of the query", async () => {
    const extra = await query({ query: pageviews, bogus: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body).toMatchObject({ type: "invalid_request", code: "parse_error", attr: null });
    expect(extra.body.detail).toContain("'bogus'");
    const display = await query({ query: { ...pageviews, trendsFilter: { showLegend: true, display: "ActionsLineGraph" }, name: "chart" }, name: "my chart", client_query_id: "abc" });
    expect(display.status).toBe(200);
  });

  it("answers a bad field of the query, a missing query and a bad refresh as parse errors", async () => {
    for (const body of [{ query: { ...pageviews, interval: "fortnight" } }, {}, { query: pageviews, refresh: "sometimes" }, { query: "SELECT 1" }]) {
      const answer = await query(body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ type: "invalid_request", code: "parse_error", attr: null });
      expect(answer.body.detail).toMatch(/^JSON parse error - /);
    }
    const malformed = await query(null, { raw: "{not json" });
    expect(malformed.status).toBe(400);
  });

  it("takes PostHog's tags (a web analytics TrendsQuery is counted by session start) and refuses hostile ones as parse errors", async () => {
    const web = await query({ query: { ...pageviews, tags: { productKey: "web_analytics", scene: "WebAnalytics" } } });
    expect(web.status).toBe(200);
    for (const [tags, message] of [
      ["web_analytics", "tags must be an object"],
      [{ productKey: 7 }, "tags.productKey must be a string."],
      [{ productKey: "w".repeat(101) }, "tags.productKey must be at most 100 characters."],
    ] as const) {
      const answer = await query({ query: { ...pageviews, tags } });
      expect(answer.status, JSON.stringify(tags)).toBe(400);
      expect(answer.body).toMatchObject({ type: "invalid_request", code: "parse_error" });
      expect(answer.body.detail).toContain(message);
    }
    // NUL anywhere in a body is the edge's validation error, before the query is read.
    const nul = await query({ query: { ...pageviews, tags: { productKey: "web_analytics\u0000" } } });
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ type: "validation_error", detail: "Null characters are not allowed." });
  });

  it("needs query:read: a query:write key passes, another scope is refused with PostHog's message", async () => {
    type Scopes = Parameters<typeof createPersonalApiKey>[2]["scopes"];
    const key = async (scopes: Scopes) => (await createPersonalApiKey(db.prisma, userId, { label: scopes.join(","), scopes })).key;
    expect((await query({ query: pageviews }, { key: await key(["query:read"]) })).status).toBe(200);
    expect((await query({ query: pageviews }, { key: await key(["query:write"]) })).status).toBe(200);
    const refused = await query({ query: pageviews }, { key: await key(["insight:read"]) });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("API key missing required scope 'query:read'");
  });

  it("answers under /api/environments/ as under /api/projects/", async () => {
    const projects = await query({ query: pageviews });
    const environments = await query({ query: pageviews }, { prefix: "environments" });
    expect(environments.status).toBe(200);
    expect(environments.body.results).toEqual(projects.body.results);
    expect(environments.body.is_cached).toBe(true);
  });
});

describe(`PostHog's two-level property groups, as the insight editor writes them (${testStoresName})`, () => {
  const chromeAlice = { type: "AND", values: [{ key: "$browser", value: ["Chrome"], operator: "exact", type: "event" }, { key: "name", value: ["Alice"], operator: "exact", type: "person" }] };
  const safari = { type: "AND", values: [{ key: "$browser", value: ["Safari"], operator: "exact", type: "event" }] };
  const carol = { type: "AND", values: [{ key: "name", value: ["Carol"], operator: "exact", type: "person" }] };
  const range = { date_from: "2024-03-01", date_to: "2024-03-03" };

  it("trends and funnels answer the OR of the groups (a flat list of the same filters is their AND)", async () => {
    // Alice's Chrome view and Bob's Safari view, both on the 1st.
    const either = await query({ query: { ...pageviews, properties: { type: "OR", values: [chromeAlice, safari] } } });
    expect(either.status).toBe(200);
    expect(either.body.results[0].data).toEqual([2, 0, 0]);
    const all = await query({ query: { ...pageviews, properties: [...chromeAlice.values, ...safari.values] } });
    expect(all.body.results[0].data).toEqual([0, 0, 0]);
    // Carol (by name) or Safari (Bob) view a page; only Carol buys, her purchase passing by her name.
    const funnel = { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "purchase" }], dateRange: range };
    const steps = await query({ query: { ...funnel, properties: { type: "OR", values: [carol, safari] } } });
    expect(steps.status).toBe(200);
    expect(steps.body.results.map((step: { count: number }) => step.count)).toEqual([2, 1]);
  });

  it.each([
    ["StickinessQuery", { series: [{ kind: "EventsNode", event: "$pageview" }] }],
    ["LifecycleQuery", { series: [{ kind: "EventsNode", event: "$pageview" }] }],
    ["RetentionQuery", { retentionFilter: { targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" }, period: "Day", totalIntervals: 3 } }],
    ["PathsQuery", { pathsFilter: { includeEventTypes: ["$pageview"] } }],
  ])("%s takes the two-level form too", async (kind, fields) => {
    const answer = await query({ query: { kind, ...fields, dateRange: range, properties: { type: "OR", values: [chromeAlice, { type: "OR", values: [safari.values[0], carol.values[0]] }] } } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });
});

describe(`ActorsQuery (${testStoresName})`, () => {
  const listed = (actors: string[]) => ({ kind: "ListedActorsTestQuery", actors });
  const actorsQuery = (actors: string[], extra: Record<string, unknown> = {}, selector: Record<string, unknown> = { day: "2024-03-01", series: 0 }) => ({
    query: { kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: listed(actors), ...selector }, ...extra },
  });

  it("gives the kind the selector, loads the persons and shows a personless actor as PostHog shows a missing one", async () => {
    selectors.length = 0;
    const answer = await query(actorsQuery(["bob", "alice", "distinct_id:ghost"], {}, { day: "2024-03-01", series: 0, breakdown: "Chrome", includeRecordings: true }));
    expect(answer.status).toBe(200);
    expect(selectors).toEqual([{ day: "2024-03-01", series: 0, breakdown: "Chrome" }]);
    expect(answer.body).toMatchObject({ columns: ["actor"], types: ["Tuple"], hasMore: false, limit: 100, offset: 0, missing_actors_count: 1, is_cached: false });
    const [bob, alice, ghost] = answer.body.results.map((row: unknown[]) => row[0]);
    expect(bob).toEqual({ id: uuidOf.bob, distinct_ids: ["bob"], properties: { email: "bob@example.com" }, is_identified: false, created_at: expect.any(String) });
    expect(alice).toMatchObject({ id: uuidOf.alice, properties: { email: "alice@example.com", name: "Alice" } });
    expect(ghost).toEqual({ id: "ghost", distinct_ids: ["ghost"] });
  });

  it("pages with limit and offset, says hasMore, and lowers a giant limit to 10000", async () => {
    const first = await query(actorsQuery(["alice", "bob", "carol"], { limit: 2 }));
    expect(first.body.results.map((row: any[]) => row[0].id)).toEqual([uuidOf.alice, uuidOf.bob]);
    expect(first.body).toMatchObject({ hasMore: true, limit: 2, offset: 0 });
    const second = await query(actorsQuery(["alice", "bob", "carol"], { limit: 2, offset: 2 }));
    expect(second.body.results.map((row: any[]) => row[0].id)).toEqual([uuidOf.carol]);
    expect(second.body).toMatchObject({ hasMore: false, offset: 2 });
    expect((await query(actorsQuery(["alice"], { limit: 1_000_000 }))).body.limit).toBe(10_000);
    expect((await query(actorsQuery(["alice"], { limit: -1 }))).status).toBe(400);
  });

  it("searches email, name and distinct ids, orders by a column, and answers the selected columns", async () => {
    const everyone = ["alice", "bob", "carol", "distinct_id:ghost"];
    const search = async (text: string) => (await query(actorsQuery(everyone, { search: text, select: ["id"] }))).body.results.map((row: string[]) => row[0]);
    expect(await search("EXAMPLE.COM")).toEqual([uuidOf.alice, uuidOf.bob]);
    expect(await search("carol")).toEqual([uuidOf.carol]);
    expect(await search("gho")).toEqual(["ghost"]);
    const ordered = await query(actorsQuery(everyone, { orderBy: ["created_at DESC"], select: ["person", "id", "person.properties.email", "created_at"] }));
    expect(ordered.body.columns).toEqual(["person", "id", "person.properties.email", "created_at"]);
    expect(ordered.body.types).toEqual(["Tuple", "UUID", "String", "DateTime64(3, 'UTC')"]);
    expect(ordered.body.results.map((row: unknown[]) => row[1])).toEqual([uuidOf.carol, uuidOf.bob, uuidOf.alice, "ghost"]);
    expect(ordered.body.results[1][2]).toBe("bob@example.com");
    expect(ordered.body.results[0][2]).toBeNull();
  });

  it("filters the actors by person properties (properties and fixedProperties together) and refuses other filter types", async () => {
    const everyone = ["alice", "bob", "carol", "distinct_id:ghost"];
    const filtered = await query(
      actorsQuery(everyone, {
        select: ["id"],
        properties: [{ key: "email", value: "example.com", operator: "icontains", type: "person" }],
        fixedProperties: [{ key: "name", operator: "is_not_set", type: "person" }],
      }),
    );
    expect(filtered.body.results).toEqual([[uuidOf.bob]]);
    const notSet = await query(actorsQuery(everyone, { select: ["id"], properties: [{ key: "email", operator: "is_not_set", type: "person" }] }));
    expect(notSet.body.results).toEqual([[uuidOf.carol], ["ghost"]]);
    const eventFilter = await query(actorsQuery(everyone, { properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }));
    expect(eventFilter.status).toBe(400);
    expect(eventFilter.body.detail).toMatch(/only person property filters are supported on actors/);
  });

  it("lists the people behind a real trend point and a funnel step, and those who dropped off", async () => {
    const names = (answer: Answer) => answer.body.results.map((row: { id: string }[]) => Object.keys(uuidOf).find((name) => uuidOf[name] === row[0]!.id)).sort();
    const day2 = await query({ query: { kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: pageviews, day: "2024-03-02", series: 0 } } });
    expect([day2.status, names(day2)]).toEqual([200, ["alice", "carol"]]);
    const funnel = { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "purchase" }], dateRange: pageviews.dateRange };
    const converted = await query({ query: { kind: "ActorsQuery", source: { kind: "FunnelsActorsQuery", source: funnel, funnelStep: 2 } } });
    expect([converted.status, names(converted)]).toEqual([200, ["carol"]]);
    const dropped = await query({ query: { kind: "FunnelsActorsQuery", source: funnel, funnelStep: -2 } });
    expect([dropped.status, names(dropped)]).toEqual([200, ["alice", "bob"]]);
  });

  it("runs a bare InsightActorsQuery as if wrapped in an ActorsQuery", async () => {
    const answer = await query({ query: { kind: "InsightActorsQuery", source: listed(["carol"]), day: "2024-03-02" } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ columns: ["actor"], missing_actors_count: 0 });
    expect(answer.body.results[0][0].id).toBe(uuidOf.carol);
    // PostHog's persons modal columns that Burrow can answer.
    const modal = await query(actorsQuery(["carol"], { select: ["actor", "matched_recordings", "person_display_name -- Person", "person.$delete"] }));
    expect(modal.body.results).toEqual([[expect.objectContaining({ id: uuidOf.carol }), [], { display_name: "Carol", id: uuidOf.carol }, 1]]);
  });

  it("refuses a kind without actors, a FunnelsActorsQuery around another kind, an unknown column and a missing source", async () => {
    const refusals: [unknown, RegExp][] = [
      [{ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: { kind: "NoActorsTestQuery" } } }, /NoActorsTestQuery does not list its actors yet/],
      [{ kind: "ActorsQuery", source: { kind: "FunnelsActorsQuery", source: listed([]), funnelStep: 1 } }, /FunnelsActorsQuery's source must be a FunnelsQuery/],
      [{ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: listed([]) }, select: ["sum(x)"] }, /column 'sum\(x\)' is not supported/],
      [{ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: listed([]) }, orderBy: ["random()"] }, /orderBy 'random\(\)' is not supported/],
      [{ kind: "ActorsQuery" }, /needs a source/],
      [{ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: { kind: "ActorsQuery" } } }, /not supported/],
    ];
    for (const [node, message] of refusals) {
      const answer = await query({ query: node });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ type: "invalid_request", code: "parse_error" });
      expect(answer.body.detail).toMatch(message);
    }
  });
});

describe(`HogQLQuery (${testStoresName})`, () => {
  const hogql = (text: string) => query({ query: { kind: "HogQLQuery", query: text } });

  it("answers columns, [name, type] pairs and rows of an aggregate, first count() descending", async () => {
    const answer = await hogql("SELECT event, count() AS n FROM events WHERE timestamp >= '2024-03-01T00:00:00Z' AND event != 'late_event' GROUP BY event ORDER BY n DESC LIMIT 10");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      columns: ["event", "n"],
      types: [
        ["event", "String"],
        ["n", "UInt64"],
      ],
      results: [
        ["$pageview", 4],
        ["purchase", 1],
      ],
      hasMore: false,
      limit: 10,
      offset: 0,
      is_cached: false,
    });
  });

  it("lists rows newest first and pages them with LIMIT and OFFSET", async () => {
    const text = "select distinct_id, properties.$browser as browser, person.properties.email from events where event = '$pageview' order by timestamp desc";
    const first = await hogql(`${text} limit 2`);
    expect(first.body.columns).toEqual(["distinct_id", "browser", "person.properties.email"]);
    expect(first.body.results).toEqual([
      ["alice", "Firefox", "alice@example.com"],
      ["carol", "Chrome", null],
    ]);
    expect(first.body.hasMore).toBe(true);
    const rest = await hogql(`${text} LIMIT 2 OFFSET 2`);
    expect(rest.body.results).toEqual([
      ["bob", "Safari", "bob@example.com"],
      ["alice", "Chrome", "alice@example.com"],
    ]);
    expect(rest.body).toMatchObject({ hasMore: false, offset: 2 });
  });

  it("defaults LIMIT to 100 and lowers a giant one to 10000", async () => {
    expect((await hogql("SELECT event FROM events")).body.limit).toBe(100);
    expect((await hogql("SELECT event FROM events LIMIT 999999999")).body.limit).toBe(10_000);
  });

  it("refuses what is outside the subset, naming it", async () => {
    const refusals: [string, RegExp][] = [
      ["SELECT * FROM events", /SELECT \* is not supported/],
      ["SELECT event FROM persons", /only FROM events is supported/],
      ["SELECT event FROM events e", /no table aliases, joins or subqueries/],
      ["SELECT event FROM events JOIN persons ON 1 = 1", /JOIN is not supported/],
      ["SELECT event, count() FROM events GROUP BY event HAVING count() > 1", /HAVING is not supported/],
      ["SELECT event FROM events ORDER BY event", /ORDER BY 'event' is not supported/],
      ["SELECT event FROM events LIMIT 5, 10", /LIMIT n, m is not supported/],
      ["SELECT sum(1) FROM events", /unknown function "sum"/],
      ["SELECT event FROM events WHERE event IN (SELECT 1)", /subqueries are not supported/],
      ["SELECT DISTINCT event FROM events", /SELECT DISTINCT is not supported/],
      ["SELECT event", /FROM clause is needed/],
      ["DELETE FROM events", /only SELECT … FROM events is supported/],
      ["SELECT event FROM events; DROP TABLE events", /';' is not supported/],
      ["SELECT event FROM events GROUP BY event", /GROUP BY needs count\(\)/],
      ["SELECT event, distinct_id, count() FROM events GROUP BY event", /GROUP BY must name every selected column/],
    ];
    for (const [text, message] of refusals) {
      const answer = await hogql(text);
      expect(answer.status, text).toBe(400);
      expect(answer.body.detail, text).toMatch(message);
      expect(answer.body.code).toBe("parse_error");
    }
  });
});

describe(`insights of any kind (${testStoresName})`, () => {
  it("stores a HogQL insight, retrieves it with its rows and computes it on a shared dashboard", async () => {
    const ctx = await testContext(db, userId, projectId);
    const dashboard = await post("dashboards/", { name: "HogQL board" });
    expect(dashboard.status).toBe(201);
    const node = { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: "SELECT event, count() FROM events WHERE event = 'purchase' GROUP BY event" } };
    const created = await post("insights/", { name: "purchases", query: node, dashboards: [dashboard.body.id] });
    expect(created.status).toBe(201);
    const read = await post(`insights/${created.body.id}/`, undefined);
    expect(read.status).toBe(200);
    expect(read.body.query).toEqual(node);
    expect(read.body.result).toEqual([["purchase", 1]]);
    expect(read.body.columns).toEqual(["event", "count()"]);
    const onDashboard = await computeSavedInsight(db, projectId, created.body.id, { fromDashboard: dashboard.body.id });
    expect(onDashboard.result).toEqual([["purchase", 1]]);

    const sharing = await updateDashboardSharing(ctx, dashboard.body.id, { enabled: true });
    const shared = await findSharedDashboardWithCharts(db, sharing.access_token!);
    expect(shared!.tiles[0]!.insight!.computation).toMatchObject({ state: "ready", result: [["purchase", 1]], columns: ["event", "count()"] });
  });

  it("refuses to store a query of an unknown kind", async () => {
    const created = await post("insights/", { name: "nope", query: { kind: "InsightVizNode", source: { kind: "NopeQuery" } } });
    expect(created.status).toBe(400);
  });
});

describe(`query tRPC router (${testStoresName})`, () => {
  it("runs any query node and lists actors as the REST API does", async () => {
    const user = await db.prisma.user.findUniqueOrThrow({ where: { id: userId } });
    const api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
    const run = await api.query.run({ projectId, request: { query: { kind: "HogQLQuery", query: "SELECT count() FROM events WHERE event = 'purchase'" } } });
    expect(run.results).toEqual([[1]]);
    const actors = await api.query.actors({ projectId, source: { kind: "InsightActorsQuery", source: { kind: "ListedActorsTestQuery", actors: ["carol", "bob"] } }, limit: 1 });
    expect(actors).toMatchObject({ hasMore: true, limit: 1 });
    expect((actors.results as any[][])[0]![0].id).toBe(uuidOf.carol);
    await expect(api.query.run({ projectId, request: { query: { kind: "NopeQuery" } } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
