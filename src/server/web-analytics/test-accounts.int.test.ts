/**
 * "Filter out internal and test users" on /web: every query the page builds (web-query.ts:
 * the overview, each table, top clicks, the graph and the sparklines, with and without a
 * conversion goal) asked with `filterTestAccounts` off and on, through the query service, on
 * whichever stores the run uses. The project keeps the test account filters it was created
 * with (accounts/test-account-defaults.ts): its owner is owner@acme.example, so `email` not
 * containing `@acme.example` (a person property: staff is left out whole) and `$host` not
 * localhost or 127.0.0.1 with or without a port (an event property: single sessions are left
 * out). Persons come from the real ingestion pipeline. Answers worked out by hand:
 *
 *   session  who     email                  host              browser  events (UTC)
 *   A        v1      v1@customer.example    shop.example      Chrome   05-01 10:00 view /pricing, 10:01 view /signup, 10:02 signup
 *   B        v2      –                      shop.example      Safari   05-01 11:00 view /                                   (bounce)
 *   C        staff   staff@acme.example     shop.example      Chrome   05-01 12:00 view /pricing, 12:00:30 click "Buy now", 12:01 view /admin, 12:02 signup
 *   D        dev     dev@customer.example   localhost:3000    Chrome   05-01 13:00 view /pricing, 13:00:05 signup              (bounce)
 *   E        tester  –                      127.0.0.1:8000    Firefox  05-01 14:00 view /                                   (bounce)
 *   F        v3      v3@customer.example    shop.example      Firefox  05-02 09:00 view /pricing, 09:00:20 click "Buy now"
 *   G        v3      v3@customer.example    localhost:5173    Firefox  05-02 10:00 view /, 10:00:02 click "Buy now"
 *   H        v4      –                      localhost.example Safari   05-02 11:00 view /pricing, 11:00:30 view /signup
 *
 * H's host only starts with "localhost": the filter's `($|:)` keeps it. Left out: C (staff),
 * D, E and G (local hosts) — A, B, F and H remain.
 *
 *   all:      7 visitors, 11 views, 8 sessions, 3 of 8 bounced (B D E), durations 120 0 120 5 0 20 2 30 s
 *   filtered: 4 visitors (v1 v2 v3 v4), 6 views, 4 sessions, 1 of 4 bounced (B), durations 120 0 20 30 s
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { clearQueryCache, computeQuery } from "@/server/query/service";
import type { WebFilters } from "@/components/web/web-filters";
import { overviewQuery, sessionTrendQuery, statsTableQuery, topClicksQuery, trendQuery, WEB_TABLE_GROUPS } from "@/components/web/web-query";

let db: Database;
let projectId: number;

const PEOPLE: Record<string, { email?: string }> = {
  v1: { email: "v1@customer.example" },
  v2: {},
  staff: { email: "staff@acme.example" },
  dev: { email: "dev@customer.example" },
  tester: {},
  v3: { email: "v3@customer.example" },
  v4: {},
};

interface Session {
  id: string;
  who: string;
  host: string;
  browser: string;
  steps: [at: string, event: "view" | "click" | "signup", value: string][];
}

const session = (n: number) => `0190c100-0000-7000-8000-00000000000${n}`;
const SESSIONS: Session[] = [
  { id: session(1), who: "v1", host: "shop.example", browser: "Chrome", steps: [["05-01T10:00:00", "view", "/pricing"], ["05-01T10:01:00", "view", "/signup"], ["05-01T10:02:00", "signup", "/signup"]] },
  { id: session(2), who: "v2", host: "shop.example", browser: "Safari", steps: [["05-01T11:00:00", "view", "/"]] },
  {
    id: session(3),
    who: "staff",
    host: "shop.example",
    browser: "Chrome",
    steps: [["05-01T12:00:00", "view", "/pricing"], ["05-01T12:00:30", "click", "Buy now"], ["05-01T12:01:00", "view", "/admin"], ["05-01T12:02:00", "signup", "/admin"]],
  },
  { id: session(4), who: "dev", host: "localhost:3000", browser: "Chrome", steps: [["05-01T13:00:00", "view", "/pricing"], ["05-01T13:00:05", "signup", "/pricing"]] },
  { id: session(5), who: "tester", host: "127.0.0.1:8000", browser: "Firefox", steps: [["05-01T14:00:00", "view", "/"]] },
  { id: session(6), who: "v3", host: "shop.example", browser: "Firefox", steps: [["05-02T09:00:00", "view", "/pricing"], ["05-02T09:00:20", "click", "Buy now"]] },
  { id: session(7), who: "v3", host: "localhost:5173", browser: "Firefox", steps: [["05-02T10:00:00", "view", "/"], ["05-02T10:00:02", "click", "Buy now"]] },
  { id: session(8), who: "v4", host: "localhost.example", browser: "Safari", steps: [["05-02T11:00:00", "view", "/pricing"], ["05-02T11:00:30", "view", "/signup"]] },
];

function eventsOf(s: Session) {
  let path = "/";
  return s.steps.map(([at, kind, value]) => {
    if (kind === "view") path = value;
    const common = { $host: s.host, $pathname: path, $current_url: `${s.host.startsWith("shop") ? "https" : "http"}://${s.host}${path}`, $browser: s.browser, $session_id: s.id };
    const email = PEOPLE[s.who]!.email;
    return {
      event: kind === "view" ? "$pageview" : kind === "click" ? "$autocapture" : "signup",
      distinct_id: s.who,
      timestamp: `2024-${at}.000Z`,
      properties: { ...common, ...(kind === "click" ? { $event_type: "click", $el_text: value } : {}), ...(email ? { $set: { email } } : {}) },
    };
  });
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "owner@acme.example", password: "pw12345678" });
  projectId = owner.project_id;
  // In time order, a day a batch: each person is created at their first event.
  const all = SESSIONS.flatMap(eventsOf).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  for (const day of ["2024-05-01", "2024-05-02"]) await sendBatch(owner.project_api_key, all.filter((event) => event.timestamp.startsWith(day)));
}, 60_000);

afterAll(() => closeDb());

const NOW = new Date("2024-05-03T12:00:00Z");
const page = (filterTestAccounts: boolean, more: Partial<WebFilters> = {}): WebFilters => ({ host: null, path: null, dateFrom: "-7d", order: null, goal: null, filterTestAccounts, ...more });

async function run(query: object): Promise<Record<string, unknown>> {
  clearQueryCache(db);
  const { answer } = await computeQuery(db, projectId, query, { now: NOW });
  // The response's fields: results, and the kind's extras (columns, hasMore, …)
  return { results: answer!.results, ...(answer!.extra as Record<string, unknown> | undefined) };
}

/** The same page query with the switch off and on. */
async function both<T>(build: (filters: WebFilters) => object, read: (answer: Record<string, unknown>) => T): Promise<{ all: T; filtered: T }> {
  return { all: read(await run(build(page(false)))), filtered: read(await run(build(page(true)))) };
}

const items = (answer: Record<string, unknown>) => Object.fromEntries((answer.results as { key: string; value: number | null }[]).map((item) => [item.key, item.value]));
/** A table's rows as [value, visitors, views] (the current period's). */
const rows = (answer: Record<string, unknown>) => (answer.results as unknown[][]).map((row) => [row[0], (row[1] as number[])[0], (row[2] as number[])[0]]);
const column = (answer: Record<string, unknown>, name: string) => (answer.columns as string[]).indexOf(`context.columns.${name}`);

describe(`"Filter out internal and test users" on /web (${testStoresName})`, () => {
  it("the project starts with PostHog's default filters: the owner's domain and the local hosts", async () => {
    const { testAccountFilters } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    expect(testAccountFilters).toEqual([
      { key: "email", type: "person", operator: "not_icontains", value: "@acme.example" },
      { key: "$host", type: "event", operator: "not_regex", value: "^(localhost|127\\.0\\.0\\.1)($|:)" },
    ]);
  });

  it("the overview: visitors, views, sessions, session duration and bounce rate", async () => {
    const answer = await both(overviewQuery, items);
    expect(answer.all).toMatchObject({ visitors: 7, views: 11, sessions: 8 });
    expect(answer.all["session duration"]).toBeCloseTo(297 / 8, 6);
    expect(answer.all["bounce rate"]).toBeCloseTo(37.5, 6);
    expect(answer.filtered).toMatchObject({ visitors: 4, views: 6, sessions: 4 });
    expect(answer.filtered["session duration"]).toBeCloseTo(170 / 4, 6);
    expect(answer.filtered["bounce rate"]).toBeCloseTo(25, 6);
  });

  it("the Page, Entry (with its bounce rate) and Browser tables", async () => {
    expect(await both((filters) => statsTableQuery(filters, "Page", 10), rows)).toEqual({
      all: [
        ["/pricing", 5, 5],
        ["/", 3, 3],
        ["/signup", 2, 2],
        ["/admin", 1, 1],
      ],
      filtered: [
        ["/pricing", 3, 3],
        ["/signup", 2, 2],
        ["/", 1, 1],
      ],
    });
    const entries = (answer: Record<string, unknown>) => {
      const at = column(answer, "bounce_rate");
      return (answer.results as unknown[][]).map((row) => [row[0], (row[1] as number[])[0], (row[at] as number[])[0]]);
    };
    // Entered on /pricing: A C D F H, D bounced; on /: B E G, B and E bounced
    const entry = await both((filters) => statsTableQuery(filters, "InitialPage", 10), entries);
    expect(entry.all.map(([value, visitors]) => [value, visitors])).toEqual([
      ["/pricing", 5],
      ["/", 3],
    ]);
    expect(entry.all[0]![2]).toBeCloseTo(1 / 5, 6);
    expect(entry.all[1]![2]).toBeCloseTo(2 / 3, 6);
    expect(entry.filtered).toEqual([
      ["/pricing", 3, 0],
      ["/", 1, 1],
    ]);
    expect(await both((filters) => statsTableQuery(filters, "Browser", 10), rows)).toEqual({
      all: [
        ["Chrome", 3, 5],
        ["Firefox", 2, 3],
        ["Safari", 2, 3],
      ],
      filtered: [
        ["Safari", 2, 3],
        ["Chrome", 1, 2],
        ["Firefox", 1, 1],
      ],
    });
  });

  it("the Exit table, and every other table of the page: one row of no value, the overview's visitors and views", async () => {
    // Exits: A /signup, B /, C /admin, D /pricing, E /, F /pricing, G /, H /signup; views are the sessions'
    expect(await both((filters) => statsTableQuery(filters, "ExitPage", 10), rows)).toEqual({
      all: [
        ["/", 3, 3],
        ["/signup", 2, 4],
        ["/pricing", 2, 2],
        ["/admin", 1, 2],
      ],
      filtered: [
        ["/signup", 2, 4],
        ["/", 1, 1],
        ["/pricing", 1, 1],
      ],
    });
    const others = WEB_TABLE_GROUPS.flatMap((group) => group.tabs.map((tab) => tab.breakdown)).filter((breakdown) => !["Page", "InitialPage", "ExitPage", "Browser"].includes(breakdown));
    expect(others).toHaveLength(12);
    // No event carries a referrer, UTM, device, OS, viewport, place, language or time zone
    for (const breakdown of others) {
      const totals = (answer: Record<string, unknown>) => rows(answer).map(([, visitors, views]) => [visitors, views]);
      expect(await both((filters) => statsTableQuery(filters, breakdown, 10), totals), breakdown).toEqual({ all: [[7, 11]], filtered: [[4, 6]] });
    }
  });

  it("top clicks: staff's and the localhost click are gone", async () => {
    expect(await both(topClicksQuery, (answer) => answer.results)).toEqual({
      all: [["Buy now", 3, 2]],
      filtered: [["Buy now", 1, 1]],
    });
  });

  it("the graph and the sparklines, a day at a time", async () => {
    const byDay = (answer: Record<string, unknown>) =>
      (answer.results as { data: number[]; days: string[] }[]).map((series, index) => [index, series.data[series.days.indexOf("2024-05-01")], series.data[series.days.indexOf("2024-05-02")]]);
    expect(await both(trendQuery, byDay)).toEqual({
      // Visitors, views and sessions (TREND_SERIES, in order)
      all: [
        [0, 5, 2],
        [1, 7, 4],
        [2, 5, 3],
      ],
      filtered: [
        [0, 2, 2],
        [1, 3, 3],
        [2, 2, 2],
      ],
    });
    const session = await both(sessionTrendQuery, byDay);
    // Durations 05-01: A 120, B 0, C 120, D 5, E 0; 05-02: F 20, G 2, H 30. Bounces 05-01: B D E.
    expect(session.all[0]![1]).toBeCloseTo(245 / 5, 6);
    expect(session.all[0]![2]).toBeCloseTo(52 / 3, 6);
    expect(session.all[1]!.slice(1)).toEqual([3 / 5, 0]);
    expect(session.filtered[0]!.slice(1)).toEqual([60, 25]);
    expect(session.filtered[1]!.slice(1)).toEqual([1 / 2, 0]);
  });

  it("a conversion goal: the signups and the visitors they are counted against", async () => {
    const signup = { kind: "event", event: "signup" } as const;
    const goalItems = (answer: Record<string, unknown>) => {
      const got = items(answer);
      return [got.visitors, got["total conversions"], got["unique conversions"], got["conversion rate"]];
    };
    // Signups: A (v1), C (staff), D (dev, from localhost)
    const overview = await both((filters) => overviewQuery({ ...filters, goal: signup }), goalItems);
    expect(overview.all.slice(0, 3)).toEqual([7, 3, 3]);
    expect(overview.all[3]).toBeCloseTo(300 / 7, 6);
    expect(overview.filtered).toEqual([4, 1, 1, 25]);
    const goalRows = (answer: Record<string, unknown>) => {
      const [conversions, unique] = [column(answer, "total_conversions"), column(answer, "unique_conversions")];
      return Object.fromEntries((answer.results as unknown[][]).map((row) => [row[0], [(row[1] as number[])[0], (row[conversions] as number[])[0], (row[unique] as number[])[0]]]));
    };
    expect(await both((filters) => statsTableQuery({ ...filters, goal: signup }, "Browser", 10), goalRows)).toEqual({
      all: { Chrome: [3, 3, 3], Firefox: [2, 0, 0], Safari: [2, 0, 0] },
      filtered: { Chrome: [1, 1, 1], Firefox: [1, 0, 0], Safari: [2, 0, 0] },
    });
    // A page goal: /signup was viewed in A and H, both kept; only the visitors change
    const page = await both((filters) => overviewQuery({ ...filters, goal: { kind: "page", page: "/signup" } }), goalItems);
    expect(page.all.slice(0, 3)).toEqual([7, 2, 2]);
    expect(page.filtered).toEqual([4, 2, 2, 50]);
  });

  it("the host filter and the switch together", async () => {
    expect(items(await run(overviewQuery(page(true, { host: "localhost:3000" }))))).toMatchObject({ visitors: 0, views: 0 });
    expect(items(await run(overviewQuery(page(false, { host: "localhost:3000" }))))).toMatchObject({ visitors: 1, views: 1 });
    expect(items(await run(overviewQuery(page(true, { host: "localhost.example" }))))).toMatchObject({ visitors: 1, views: 2 });
  });
});
