/**
 * PostHog's `filterTestAccounts` on every query kind, over one dataset with answers worked
 * out by hand. The project's test account filters: `$host` is not `localhost:3000` (an event
 * property: dave's and erin's events from there are left out, their others kept) and the
 * person's `email` does not contain `@burrow.test` (a person property: carol, internal, is
 * left out whole). Each kind is asked with and without the flag; then a dashboard's
 * `filterTestAccounts`, an actors query, a HogQL `{filters}`, and the cache when the project's
 * filters change. Persons come from the real ingestion pipeline, which dates each at its
 * first event (lifecycle's "new").
 *
 *   day      03-01 (UTC)                     03-02                    03-03
 *   alice    $pageview 10:00, signup 10:05   $pageview 09:00          $pageview 09:00
 *   bob      $pageview 11:00                 –                        $pageview 12:00, signup 12:10
 *   carol*   $pageview 12:00, signup 12:01   $pageview 12:00          $pageview 12:00
 *   dave     $pageview 13:00 L, signup 13:05 L  $pageview 13:00       –
 *   erin     $pageview 14:00                 $pageview 14:00 L        –
 *
 *   * internal (carol@burrow.test); L from localhost:3000. Browsers: alice, carol and erin
 *   Chrome, bob Safari, dave Firefox.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { filtersOverrideSchema } from "@/server/analytics/nodes";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { clearQueryCache, computeQuery } from "./service";

let db: Database;
let projectId: number;
let apiKey: string;
const call = projectApiCaller(() => ({ projectId, apiKey }));
const projectRoute = restRoute("projects", "");
const queryRoute = restRoute("projects", "query");

const HOST_FILTER = { key: "$host", value: ["localhost:3000"], operator: "is_not", type: "event" };
const EMAIL_FILTER = { key: "email", value: "@burrow.test", operator: "not_icontains", type: "person" };

const PEOPLE = {
  alice: { email: "alice@customer.example", browser: "Chrome" },
  bob: { email: "bob@customer.example", browser: "Safari" },
  carol: { email: "carol@burrow.test", browser: "Chrome" },
  dave: { email: "dave@customer.example", browser: "Firefox" },
  erin: { email: "erin@customer.example", browser: "Chrome" },
} as const;
type Who = keyof typeof PEOPLE;

function sent(who: Who, event: string, at: string, local = false) {
  const host = local ? "localhost:3000" : "app.example.com";
  const day = at.slice(0, 10);
  return {
    uuid: randomUUID(),
    event,
    distinct_id: who,
    timestamp: `2024-${at}:00.000Z`,
    properties: {
      $host: host,
      $current_url: `${local ? "http" : "https"}://${host}/`,
      $pathname: "/",
      $browser: PEOPLE[who].browser,
      $session_id: `${who}-${day}`,
      $set: { email: PEOPLE[who].email },
    },
  };
}

async function setFilters(filters: unknown[]) {
  const answer = await call(projectRoute.PATCH, "PATCH", "", {}, { test_account_filters: filters });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "test-accounts@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  // One batch per day, in time order: each person is created at their first event.
  await sendBatch(owner.project_api_key, [
    sent("alice", "$pageview", "03-01T10:00"),
    sent("alice", "signup", "03-01T10:05"),
    sent("bob", "$pageview", "03-01T11:00"),
    sent("carol", "$pageview", "03-01T12:00"),
    sent("carol", "signup", "03-01T12:01"),
    sent("dave", "$pageview", "03-01T13:00", true),
    sent("dave", "signup", "03-01T13:05", true),
    sent("erin", "$pageview", "03-01T14:00"),
  ]);
  await sendBatch(owner.project_api_key, [
    sent("alice", "$pageview", "03-02T09:00"),
    sent("carol", "$pageview", "03-02T12:00"),
    sent("dave", "$pageview", "03-02T13:00"),
    sent("erin", "$pageview", "03-02T14:00", true),
  ]);
  await sendBatch(owner.project_api_key, [
    sent("alice", "$pageview", "03-03T09:00"),
    sent("bob", "$pageview", "03-03T12:00"),
    sent("bob", "signup", "03-03T12:10"),
    sent("carol", "$pageview", "03-03T12:00"),
  ]);
  await setFilters([HOST_FILTER, EMAIL_FILTER]);
}, 60_000);

afterAll(() => closeDb());

beforeEach(() => clearQueryCache(db));

const NOW = new Date("2024-06-01T00:00:00Z");
const MARCH_1_TO_3 = { date_from: "2024-03-01", date_to: "2024-03-03" };
const pageviews = { kind: "EventsNode", event: "$pageview" };
const signups = { kind: "EventsNode", event: "signup" };

async function results<T = unknown>(query: Record<string, unknown>, filtersOverride: Record<string, unknown> | null = null): Promise<T> {
  const computed = await computeQuery(db, projectId, query, { now: NOW, filtersOverride: filtersOverride && filtersOverrideSchema.parse(filtersOverride) });
  return computed.answer!.results as T;
}

/** The same node's results without and with `filterTestAccounts: true`. */
async function both<T>(query: Record<string, unknown>, read: (results: never) => T): Promise<{ all: T; filtered: T }> {
  return { all: read(await results({ ...query, filterTestAccounts: false })), filtered: read(await results({ ...query, filterTestAccounts: true })) };
}

type Series = { label: string; data: number[]; breakdown_value?: unknown };

describe(`filterTestAccounts on every kind (${testStoresName})`, () => {
  it("trends: every series, formulas and breakdowns read without the test accounts", async () => {
    const trend = { kind: "TrendsQuery", dateRange: MARCH_1_TO_3, interval: "day" };
    const data = (series: Series[]) => series.map((one) => one.data);
    expect(await both({ ...trend, series: [pageviews, signups] }, data)).toEqual({
      all: [
        [5, 4, 3],
        [3, 0, 1],
      ],
      filtered: [
        [3, 2, 2],
        [1, 0, 1],
      ],
    });
    expect(await both({ ...trend, series: [pageviews, signups], trendsFilter: { formula: "A+B" } }, data)).toEqual({ all: [[8, 4, 4]], filtered: [[4, 2, 3]] });
    const byBrowser = (series: Series[]) => Object.fromEntries(series.map((one) => [String(one.breakdown_value), one.data]));
    expect(await both({ ...trend, series: [pageviews], breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }, byBrowser)).toEqual({
      all: { Chrome: [3, 3, 2], Firefox: [1, 1, 0], Safari: [1, 0, 1] },
      filtered: { Chrome: [2, 1, 1], Firefox: [0, 1, 0], Safari: [1, 0, 1] },
    });
    // Unique users by the person property filter alone: carol is gone from every day
    expect(await both({ ...trend, series: [{ ...pageviews, math: "dau" }] }, data)).toEqual({ all: [[5, 4, 3]], filtered: [[3, 2, 2]] });
  });

  it("funnels: every step (dave enters on his 2 March page view, from the app, and never signs up there)", async () => {
    const funnel = { kind: "FunnelsQuery", dateRange: MARCH_1_TO_3, series: [pageviews, signups], funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" } };
    expect(await both(funnel, (steps: { count: number }[]) => steps.map((step) => step.count))).toEqual({ all: [5, 4], filtered: [4, 2] });
  });

  it("retention: the target entity (dave's cohort moves to 2 March) and the returning one (erin's return from localhost is gone)", async () => {
    const retention = {
      kind: "RetentionQuery",
      dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" },
      retentionFilter: { period: "Day", totalIntervals: 3, targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" } },
    };
    const matrix = (rows: { values: { count: number }[] }[]) => rows.map((row) => row.values.map((cell) => cell.count));
    expect(await both(retention, matrix)).toEqual({
      all: [
        [5, 4, 3],
        [4, 2, 0],
        [3, 0, 0],
      ],
      filtered: [
        [3, 1, 2],
        [2, 1, 0],
        [2, 0, 0],
      ],
    });
  });

  it("stickiness: days active counted from the remaining events", async () => {
    const stickiness = { kind: "StickinessQuery", dateRange: MARCH_1_TO_3, series: [pageviews] };
    expect(await both(stickiness, (series: Series[]) => series[0]!.data)).toEqual({ all: [0, 3, 2], filtered: [2, 1, 1] });
  });

  it("lifecycle: dave is resurrecting on 2 March, erin dormant then, carol nowhere", async () => {
    const lifecycle = { kind: "LifecycleQuery", dateRange: MARCH_1_TO_3, interval: "day", series: [pageviews] };
    const byStatus = (rows: { status: string; data: number[] }[]) => Object.fromEntries(rows.map((row) => [row.status, row.data]));
    expect(await both(lifecycle, byStatus)).toEqual({
      all: { new: [5, 0, 0], returning: [0, 4, 2], resurrecting: [0, 0, 1], dormant: [0, -1, -2] },
      filtered: { new: [3, 0, 0], returning: [0, 1, 1], resurrecting: [0, 1, 1], dormant: [0, -2, -1] },
    });
  });

  it("paths: the localhost step and carol's path are gone", async () => {
    const paths = { kind: "PathsQuery", dateRange: MARCH_1_TO_3, pathsFilter: { includeEventTypes: ["$pageview", "custom_event"] } };
    const edges = (rows: { source: string; target: string; value: number }[]) => rows.map((edge) => [edge.source, edge.target, edge.value]);
    expect(await both(paths, edges)).toEqual({
      all: [
        ["1_https://app.example.com", "2_signup", 3],
        ["1_http://localhost:3000", "2_signup", 1],
      ],
      filtered: [["1_https://app.example.com", "2_signup", 2]],
    });
  });

  it("web analytics: the overview and a table", async () => {
    const overview = (items: { key: string; value: number }[]) => Object.fromEntries(items.filter((item) => item.key !== "session duration" && item.key !== "bounce rate").map((item) => [item.key, item.value]));
    expect(await both({ kind: "WebOverviewQuery", dateRange: MARCH_1_TO_3, properties: [] }, overview)).toEqual({
      all: { visitors: 5, views: 12, sessions: 12 },
      filtered: { visitors: 4, views: 7, sessions: 7 },
    });
    const table = (rows: unknown[][]) => rows.map((row) => [row[0], (row[1] as number[])[0], (row[2] as number[])[0]]);
    expect(await both({ kind: "WebStatsTableQuery", breakdownBy: "Browser", dateRange: MARCH_1_TO_3, properties: [] }, table)).toEqual({
      all: [
        ["Chrome", 3, 8],
        ["Firefox", 1, 2],
        ["Safari", 1, 2],
      ],
      filtered: [
        ["Chrome", 2, 4],
        ["Safari", 1, 2],
        ["Firefox", 1, 1],
      ],
    });
  });

  it("actors: the persons behind a point are those of the filtered insight", async () => {
    const actorsOf = async (filterTestAccounts: boolean) => {
      const source = { kind: "TrendsQuery", dateRange: MARCH_1_TO_3, series: [pageviews], filterTestAccounts };
      const rows = await results<unknown[][]>({ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source, day: "2024-03-01", series: 0 }, select: ["person.properties.email"] });
      return rows.map((row) => row[0]).sort();
    };
    expect(await actorsOf(false)).toEqual(["alice@customer.example", "bob@customer.example", "carol@burrow.test", "dave@customer.example", "erin@customer.example"]);
    expect(await actorsOf(true)).toEqual(["alice@customer.example", "bob@customer.example", "erin@customer.example"]);
  });

  it("a dashboard's filterTestAccounts replaces the insight's when set (PostHog's tri-state DashboardFilter)", async () => {
    const trend = (flag: boolean) => ({ kind: "TrendsQuery", dateRange: MARCH_1_TO_3, series: [pageviews], filterTestAccounts: flag });
    const data = (series: Series[]) => series[0]!.data;
    expect(data(await results(trend(false), { filterTestAccounts: true }))).toEqual([3, 2, 2]);
    expect(data(await results(trend(true), { filterTestAccounts: false }))).toEqual([5, 4, 3]);
    expect(data(await results(trend(true), { filterTestAccounts: null }))).toEqual([3, 2, 2]);
    // Its properties and the test account filters both hold
    expect(data(await results(trend(true), { properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }))).toEqual([2, 1, 1]);
  });

  it("HogQLQuery: filters.filterTestAccounts where the text says {filters}, as PostHog's", async () => {
    const count = async (filters: Record<string, unknown> | undefined, where = "event = '$pageview' AND {filters}") =>
      (await results<unknown[][]>({ kind: "HogQLQuery", query: `SELECT count() FROM events WHERE ${where}`, ...(filters ? { filters } : {}) }))[0]![0];
    expect(await count(undefined)).toBe(12);
    expect(await count({ filterTestAccounts: false })).toBe(12);
    expect(await count({ filterTestAccounts: true })).toBe(7);
    expect(await count({ filterTestAccounts: true }, "{filters} AND event = '$pageview'")).toBe(7);
    // Without the placeholder the filters change nothing, as PostHog's
    expect(await count({ filterTestAccounts: true }, "event = '$pageview'")).toBe(12);
    // With its own properties, ANDed
    expect(await count({ filterTestAccounts: true, properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] })).toBe(4);
  });

  it("a new answer, under a new cache key, once the project's filters change", async () => {
    const body = { query: { kind: "TrendsQuery", dateRange: MARCH_1_TO_3, series: [pageviews], filterTestAccounts: true } };
    const run = async () => {
      const answer = await call(queryRoute.POST, "POST", "query", {}, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body as { results: Series[]; cache_key: string; is_cached: boolean };
    };
    try {
      const first = await run();
      expect(first.results[0]!.data).toEqual([3, 2, 2]);
      expect((await run()).is_cached).toBe(true);
      // Carol counts again once only localhost is a test account
      await setFilters([HOST_FILTER]);
      const second = await run();
      expect(second).toMatchObject({ is_cached: false, results: [{ data: [4, 3, 3] }] });
      expect(second.cache_key).not.toBe(first.cache_key);
      // None: the flag filters nothing
      await setFilters([]);
      expect((await run()).results[0]!.data).toEqual([5, 4, 3]);
    } finally {
      await setFilters([HOST_FILTER, EMAIL_FILTER]);
    }
  });

  it("an unflagged query's cache key does not depend on the project's filters", async () => {
    const body = { query: { kind: "TrendsQuery", dateRange: MARCH_1_TO_3, series: [pageviews] } };
    const first = await call(queryRoute.POST, "POST", "query", {}, body);
    await setFilters([HOST_FILTER]);
    try {
      const second = await call(queryRoute.POST, "POST", "query", {}, body);
      expect(second.body).toMatchObject({ is_cached: true, cache_key: (first.body as { cache_key: string }).cache_key });
    } finally {
      await setFilters([HOST_FILTER, EMAIL_FILTER]);
    }
  });
});
