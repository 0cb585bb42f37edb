/**
 * WebOverviewQuery and WebStatsTableQuery on small datasets with answers worked out by hand,
 * on whichever stores the run uses (PGlite, PostgreSQL, ClickHouse): PostHog's own worked
 * examples (test_web_overview.py test_increase_in_users, test_all_time, the long-running
 * session; test_web_stats_table.py test_increase_in_users), and a shop of four sessions —
 * one with a non-UUID session id, one without a person, one whose events arrive in two
 * inserts out of order — for every figure, breakdown, filter and the comparison. The REST
 * envelope and the refusals at the end.
 */
import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import type { QueryEnv } from "@/server/analytics/kind";
import { restRoute } from "@/test-support/rest-routes";
import type { WebOverviewItem } from "./contract";
import { webOverviewKind, webStatsTableKind } from "./service";

let db: Database;
let apiKey: string;
/** PostHog's overview example, its stats-table example, and the shop. */
let overviewProject: number;
let tableProject: number;
let shopProject: number;

const p1 = "0190c000-0000-7000-8000-000000000001";
const p2 = "0190c000-0000-7000-8000-000000000002";
const p3 = "0190c000-0000-7000-8000-000000000003";
const pa = "0190c000-0000-7000-8000-00000000000a";
const pb = "0190c000-0000-7000-8000-00000000000b";

interface Sent {
  person: string | null;
  distinctId: string;
  event: string;
  at: string;
  properties: Record<string, unknown>;
}

const sent = (person: string | null, event: string, at: string, properties: Record<string, unknown> = {}): Sent => ({ person, distinctId: person ?? "anon", event, at, properties });

async function insert(projectId: number, events: Sent[]): Promise<void> {
  await db.events.insert(
    events.map((e) => ({
      uuid: uuidv7(),
      projectId,
      event: e.event,
      distinctId: e.distinctId,
      personId: e.person,
      properties: e.properties,
      timestamp: new Date(`${e.at}Z`),
    })),
  );
}

/** A page view of PostHog's test helpers: $pathname and $current_url both set. */
const view = (person: string, at: string, session: string, path = "/") => sent(person, "$pageview", at, { $session_id: session, $pathname: path, $current_url: `http://www.example.com${path}` });

// The shop: sessions A (pa, id not a UUID), B (pb), C (pa again, events in two inserts, the earlier one last), D (no person); and a page view without a session.
const shop = { host: "shop.example", url: (path: string) => `https://shop.example${path}` };
const shopA = {
  $session_id: "sess-a",
  $host: shop.host,
  $referring_domain: "www.google.com",
  $geoip_country_code: "GB",
  $geoip_city_name: "London",
  $browser: "Chrome",
  $os: "Mac OS X",
  $device_type: "Desktop",
  $viewport_width: 1440,
  $viewport_height: 900,
  $browser_language: "en-GB",
  $timezone_offset: -60,
};
const sessionB = uuidv7();
const sessionC = uuidv7();
const sessionD = uuidv7();
const shopB = { $session_id: sessionB, $host: shop.host, $referring_domain: "$direct", $geoip_country_code: "US", $browser: "Firefox", $os: "Windows", $device_type: "Mobile", $timezone_offset: 300 };
const shopC = { $session_id: sessionC, $host: "docs.example", $geoip_country_code: "GB", $browser: "Chrome", $os: "Mac OS X", $device_type: "Desktop" };
const shopD = { $session_id: sessionD, $host: shop.host, $browser: "Safari", $os: "iOS", $device_type: "Mobile" };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "web@example.com", password: "pw12345678" });
  apiKey = owner.personal_api_key;
  overviewProject = owner.project_id;
  const project = async (name: string) => (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name, apiToken: `phc_${randomUUID()}` } })).id;
  tableProject = await project("Stats table");
  shopProject = await project("Shop");

  const [s1a, s1b, s2, long] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await insert(overviewProject, [
    view(p1, "2023-12-02T00:00:00", s1a),
    view(p1, "2023-12-03T00:00:00", s1a),
    view(p1, "2023-12-12T00:00:00", s1b),
    view(p2, "2023-12-11T00:00:00", s2),
    // The long-running session, in January.
    view(p3, "2024-01-01T00:00:00", long),
    view(p3, "2024-01-02T00:00:00", long),
    view(p3, "2024-01-03T00:00:00", long),
  ]);
  const [t1a, t1b, t2] = [uuidv7(), uuidv7(), uuidv7()];
  await insert(tableProject, [
    view(p1, "2023-12-02T00:00:00", t1a, "/"),
    view(p1, "2023-12-03T00:00:00", t1a, "/login"),
    view(p1, "2023-12-13T00:00:00", t1b, "/docs"),
    view(p2, "2023-12-10T00:00:00", t2, "/"),
  ]);

  const landing = { $pathname: "/landing", $current_url: shop.url("/landing?utm_source=google") };
  await insert(shopProject, [
    sent(pa, "$pageview", "2024-03-01T10:00:00", { ...shopA, ...landing, utm_source: "google", utm_medium: "cpc", utm_campaign: "spring" }),
    sent(pa, "$pageview", "2024-03-01T10:00:30", { ...shopA, $pathname: "/pricing", $current_url: shop.url("/pricing") }),
    sent(pa, "$pageleave", "2024-03-01T10:01:00", { ...shopA, $pathname: "/pricing", $current_url: shop.url("/pricing") }),
    sent(pb, "$pageview", "2024-03-02T12:00:00", { ...shopB, $pathname: "/landing", $current_url: shop.url("/landing") }),
    sent(pb, "$pageleave", "2024-03-02T12:00:05", { ...shopB, $pathname: "/landing", $current_url: shop.url("/landing") }),
    // C's last event first.
    sent(pa, "$pageleave", "2024-03-03T09:05:00", { ...shopC, $pathname: "/docs", $current_url: "https://docs.example/docs" }),
    { ...sent(null, "$pageview", "2024-03-04T08:00:00", { ...shopD, $pathname: "/landing", $current_url: shop.url("/landing") }), distinctId: "anon-d" },
    { ...sent(null, "$pageleave", "2024-03-04T08:00:20", { ...shopD, $pathname: "/landing", $current_url: shop.url("/landing") }), distinctId: "anon-d" },
    { ...sent(null, "$pageview", "2024-03-05T08:00:00", { $host: shop.host, $pathname: "/landing", $current_url: shop.url("/landing") }), distinctId: "no-session" },
  ]);
  // C's earlier events, in a batch of their own.
  await insert(shopProject, [
    sent(pa, "$pageview", "2024-03-03T09:00:00", { ...shopC, $pathname: "/blog", $current_url: "https://docs.example/blog", $referring_domain: "news.ycombinator.com", utm_source: "hn" }),
    sent(pa, "$autocapture", "2024-03-03T09:00:02", { ...shopC, $pathname: "/blog", $current_url: "https://docs.example/blog" }),
  ]);
}, 60_000);

afterAll(() => closeDb());

const envOf = (projectId: number): QueryEnv => ({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") });

async function overview(projectId: number, node: Record<string, unknown>): Promise<Record<string, Omit<WebOverviewItem, "key">>> {
  const spec = webOverviewKind.spec({ kind: "WebOverviewQuery", properties: [], ...node }, null);
  const items = (await webOverviewKind.compute(envOf(projectId), spec)).results as WebOverviewItem[];
  return Object.fromEntries(items.map(({ key, ...rest }) => [key, rest]));
}

async function table(projectId: number, node: Record<string, unknown>) {
  const spec = webStatsTableKind.spec({ kind: "WebStatsTableQuery", properties: [], ...node }, null);
  const answer = await webStatsTableKind.compute(envOf(projectId), spec);
  return { rows: answer.results as unknown[][], ...(answer.extra as { columns: string[]; hasMore: boolean; limit: number; offset: number }) };
}

/** value → [visitors, views] of the current period (no comparison). */
async function counts(projectId: number, node: Record<string, unknown>): Promise<[unknown, number, number][]> {
  const { rows } = await table(projectId, node);
  return rows.map((row) => [row[0], (row[1] as number[])[0]!, (row[2] as number[])[0]!]);
}

const shopWeek = { date_from: "2024-03-01", date_to: "2024-03-07" };
const filter = (key: string, value: string) => [{ type: "event", key, value, operator: "exact" }];

describe(`web analytics on ${testStoresName}`, () => {
  describe("PostHog's worked examples", () => {
    it("test_increase_in_users: the overview with the previous period", async () => {
      const answer = await overview(overviewProject, { dateRange: { date_from: "2023-12-08", date_to: "2023-12-15" }, compareFilter: { compare: true } });
      expect(answer).toEqual({
        visitors: { kind: "unit", isIncreaseBad: false, value: 2, previous: 1, changeFromPreviousPct: 100 },
        views: { kind: "unit", isIncreaseBad: false, value: 2, previous: 2, changeFromPreviousPct: 0 },
        sessions: { kind: "unit", isIncreaseBad: false, value: 2, previous: 1, changeFromPreviousPct: 100 },
        "session duration": { kind: "duration_s", isIncreaseBad: false, value: 0, previous: 86400, changeFromPreviousPct: -100 },
        "bounce rate": { kind: "percentage", isIncreaseBad: true, value: 100, previous: 0, changeFromPreviousPct: null },
      });
    });

    it("test_all_time: from the first event, without a comparison", async () => {
      const answer = await overview(overviewProject, { dateRange: { date_from: "all", date_to: "2023-12-15" } });
      expect(answer.visitors).toMatchObject({ value: 2, previous: null, changeFromPreviousPct: null });
      expect(answer.views!.value).toBe(4);
      expect(answer.sessions!.value).toBe(3);
      expect(answer["session duration"]!.value).toBeCloseTo(86400 / 3, 6);
      expect(answer["bounce rate"]!.value).toBeCloseTo((100 * 2) / 3, 6);
    });

    it("a long-running session counts every page view of the range once, by its start", async () => {
      const answer = await overview(overviewProject, { dateRange: { date_from: "2024-01-01", date_to: "2024-01-03" } });
      expect([answer.visitors!.value, answer.views!.value, answer.sessions!.value]).toEqual([1, 3, 1]);
      // A range ending before its last view counts the views up to the end.
      const early = await overview(overviewProject, { dateRange: { date_from: "2024-01-01", date_to: "2024-01-02" } });
      expect([early.visitors!.value, early.views!.value, early.sessions!.value, early["session duration"]!.value]).toEqual([1, 2, 1, 2 * 86400]);
      const filtered = await overview(overviewProject, { dateRange: { date_from: "2024-01-01", date_to: "2024-01-02" }, properties: filter("$pathname", "/") });
      expect([filtered.visitors!.value, filtered.views!.value, filtered.sessions!.value]).toEqual([1, 2, 1]);
      // Tables without a comparison count its views inside the range even so (PostHog's have no session-start filter then).
      expect(await counts(overviewProject, { breakdownBy: "InitialPage", dateRange: { date_from: "2024-01-02", date_to: "2024-01-03" } })).toEqual([["/", 1, 2]]);
      expect(await counts(overviewProject, { breakdownBy: "Page", dateRange: { date_from: "2024-01-02", date_to: "2024-01-03" } })).toEqual([["/", 1, 2]]);
      // Page's bounce rate, by the sessions entering on each page (from the sessions alone, and
      // through the events with a filter): the session has a view inside the range, three in all.
      const bounced = (properties: unknown[]) =>
        table(overviewProject, { breakdownBy: "Page", dateRange: { date_from: "2024-01-01", date_to: "2024-01-02" }, includeBounceRate: true, properties });
      for (const properties of [[], filter("$pathname", "/")]) {
        expect((await bounced(properties)).rows.map((row) => row.slice(0, 4))).toEqual([["/", [1, null], [2, null], [0, null]]]);
      }
      // From the second day on, the session began before the range: not counted at all.
      const laterPage = await table(overviewProject, { breakdownBy: "Page", dateRange: { date_from: "2024-01-02", date_to: "2024-01-03" }, includeBounceRate: true });
      expect(laterPage.rows).toEqual([]);
      const later = await overview(overviewProject, { dateRange: { date_from: "2024-01-02", date_to: "2024-01-03" } });
      expect([later.visitors!.value, later.views!.value, later.sessions!.value]).toEqual([0, 0, 0]);
      expect([later["session duration"]!.value, later["bounce rate"]!.value]).toEqual([null, null]);
    });

    it("test_increase_in_users: the Page breakdown, alone and compared", async () => {
      const alone = await table(tableProject, { breakdownBy: "Page", dateRange: { date_from: "2023-12-01", date_to: "2023-12-11" } });
      expect(alone.columns).toEqual([
        "context.columns.breakdown_value",
        "context.columns.visitors",
        "context.columns.views",
        "context.columns.ui_fill_fraction",
        "context.columns.cross_sell",
      ]);
      expect(alone.rows).toEqual([
        ["/", [2, null], [2, null], 2 / 3, ""],
        ["/login", [1, null], [1, null], 1 / 3, ""],
      ]);
      expect([alone.hasMore, alone.limit, alone.offset]).toEqual([false, 100, 0]);

      const compared = await table(tableProject, { breakdownBy: "Page", dateRange: { date_from: "2023-12-06", date_to: "2023-12-13" }, compareFilter: { compare: true } });
      expect(compared.rows).toEqual([
        ["/", [1, 1], [1, 1], 1 / 2, ""],
        ["/docs", [1, 0], [1, 0], 1 / 2, ""],
        ["/login", [0, 1], [0, 1], 0, ""],
      ]);
      const first = await table(tableProject, { breakdownBy: "Page", dateRange: { date_from: "2023-12-06", date_to: "2023-12-13" }, compareFilter: { compare: true }, limit: 1 });
      expect([first.rows.length, first.hasMore]).toEqual([1, true]);
      const second = await table(tableProject, { breakdownBy: "Page", dateRange: { date_from: "2023-12-06", date_to: "2023-12-13" }, compareFilter: { compare: true }, limit: 1, offset: 1 });
      expect(second.rows.map((row) => row[0])).toEqual(["/docs"]);
    });
  });

  describe("compared with a period compare_to moves back", () => {
    it("the overview against the same days nine days earlier, and against one day earlier (overlapping)", async () => {
      // 10–15 Dec: s2 (p2, 11 Dec) and s1b (p1, 12 Dec); 1–6 Dec: s1a (p1, 2 and 3 Dec).
      const week = await overview(overviewProject, { dateRange: { date_from: "2023-12-10", date_to: "2023-12-15" }, compareFilter: { compare: true, compare_to: "-9d" } });
      expect([week.visitors, week.views, week.sessions].map((item) => [item!.value, item!.previous])).toEqual([
        [2, 1],
        [2, 2],
        [2, 1],
      ]);
      // 11–12 Dec against 10–11 Dec: s2 (11 Dec) is in both.
      const overlapping = await overview(overviewProject, { dateRange: { date_from: "2023-12-11", date_to: "2023-12-12" }, compareFilter: { compare: true, compare_to: "-1d" } });
      expect([overlapping.visitors, overlapping.sessions].map((item) => [item!.value, item!.previous])).toEqual([
        [2, 1],
        [2, 1],
      ]);
      // Without compare, compare_to changes nothing.
      expect((await overview(overviewProject, { dateRange: { date_from: "2023-12-10", date_to: "2023-12-15" }, compareFilter: { compare_to: "-9d" } })).visitors!.previous).toBeNull();
    });

    it("the Page table against the same days eight days earlier", async () => {
      // 10–13 Dec: t2 (p2, "/" 10 Dec), t1b (p1, "/docs" 13 Dec); 2–5 Dec: t1a (p1, "/" and "/login").
      const { rows } = await table(tableProject, { breakdownBy: "Page", dateRange: { date_from: "2023-12-10", date_to: "2023-12-13" }, compareFilter: { compare: true, compare_to: "-8d" } });
      expect(rows).toEqual([
        ["/", [1, 1], [1, 1], 1 / 2, ""],
        ["/docs", [1, 0], [1, 0], 1 / 2, ""],
        ["/login", [0, 1], [0, 1], 0, ""],
      ]);
    });
  });

  describe("the shop", () => {
    it("overview: visitors, views, sessions, duration and bounce rate (a session id need not be a UUID)", async () => {
      const answer = await overview(shopProject, { dateRange: shopWeek });
      // Sessions A, B, C, D (the view without a session counts nowhere); pa, pb and D's distinct id.
      expect([answer.visitors!.value, answer.views!.value, answer.sessions!.value]).toEqual([3, 5, 4]);
      // 60 s, 5 s, 300 s (C's events arrived out of order), 20 s.
      expect(answer["session duration"]!.value).toBeCloseTo((60 + 5 + 300 + 20) / 4, 6);
      // Only B bounced: A has two page views, C an autocapture, D lasted 20 s.
      expect(answer["bounce rate"]!.value).toBeCloseTo(25, 6);
    });

    it("overview compared with the period before", async () => {
      const answer = await overview(shopProject, { dateRange: { date_from: "2024-03-04", date_to: "2024-03-07" }, compareFilter: { compare: true } });
      expect(answer.visitors).toMatchObject({ value: 1, previous: 2, changeFromPreviousPct: -50 });
      expect(answer.views).toMatchObject({ value: 1, previous: 4, changeFromPreviousPct: -75 });
      expect(answer.sessions).toMatchObject({ value: 1, previous: 3, changeFromPreviousPct: -67 });
      expect(answer["session duration"]!.value).toBe(20);
      expect(answer["session duration"]!.previous).toBeCloseTo(365 / 3, 6);
      expect(answer["bounce rate"]!.value).toBe(0);
      expect(answer["bounce rate"]!.previous).toBeCloseTo(100 / 3, 6);
    });

    it("overview filtered by $host and by $pathname", async () => {
      const docs = await overview(shopProject, { dateRange: shopWeek, properties: filter("$host", "docs.example") });
      expect([docs.visitors!.value, docs.views!.value, docs.sessions!.value, docs["session duration"]!.value, docs["bounce rate"]!.value]).toEqual([1, 1, 1, 300, 0]);
      const landing = await overview(shopProject, { dateRange: shopWeek, properties: filter("$pathname", "/landing") });
      expect([landing.visitors!.value, landing.views!.value, landing.sessions!.value]).toEqual([3, 3, 3]);
      expect(landing["session duration"]!.value).toBeCloseTo((60 + 5 + 20) / 3, 6);
      expect(landing["bounce rate"]!.value).toBeCloseTo(100 / 3, 6);
    });

    it("Page: every page view with a path, sessions or not", async () => {
      const { rows } = await table(shopProject, { breakdownBy: "Page", dateRange: shopWeek });
      expect(rows).toEqual([
        ["/landing", [4, null], [4, null], 4 / 6, ""],
        ["/blog", [1, null], [1, null], 1 / 6, ""],
        ["/pricing", [1, null], [1, null], 1 / 6, ""],
      ]);
    });

    it("entry and exit pages come from the session's first and last events with a URL", async () => {
      expect(await counts(shopProject, { breakdownBy: "InitialPage", dateRange: shopWeek })).toEqual([
        ["/landing", 3, 4],
        ["/blog", 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "ExitPage", dateRange: shopWeek })).toEqual([
        ["/landing", 2, 2],
        ["/pricing", 1, 2],
        ["/docs", 1, 1],
      ]);
    });

    it("referring domains and UTM fields of the session's entry, no value kept as a row", async () => {
      expect(await counts(shopProject, { breakdownBy: "InitialReferringDomain", dateRange: shopWeek })).toEqual([
        [null, 2, 2],
        ["www.google.com", 1, 2],
        ["$direct", 1, 1],
        ["news.ycombinator.com", 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "InitialUTMSource", dateRange: shopWeek })).toEqual([
        [null, 3, 3],
        ["google", 1, 2],
        ["hn", 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "InitialUTMMedium", dateRange: shopWeek })).toEqual([
        [null, 4, 4],
        ["cpc", 1, 2],
      ]);
      expect(await counts(shopProject, { breakdownBy: "InitialUTMCampaign", dateRange: shopWeek })).toEqual([
        [null, 4, 4],
        ["spring", 1, 2],
      ]);
    });

    it("countries, cities, browsers, OS, devices, viewports, languages and time zones of the events", async () => {
      expect(await counts(shopProject, { breakdownBy: "Country", dateRange: shopWeek })).toEqual([
        [null, 2, 2],
        ["GB", 1, 3],
        ["US", 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "City", dateRange: shopWeek })).toEqual([
        [[null, null], 2, 2],
        [["GB", "London"], 1, 2],
        [["GB", null], 1, 1],
        [["US", null], 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "Browser", dateRange: shopWeek })).toEqual([
        ["Chrome", 1, 3],
        ["Firefox", 1, 1],
        ["Safari", 1, 1],
        [null, 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "OS", dateRange: shopWeek })).toEqual([
        ["Mac OS X", 1, 3],
        ["Windows", 1, 1],
        ["iOS", 1, 1],
        [null, 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "DeviceType", dateRange: shopWeek })).toEqual([
        ["Mobile", 2, 2],
        ["Desktop", 1, 3],
        [null, 1, 1],
      ]);
      expect(await counts(shopProject, { breakdownBy: "Viewport", dateRange: shopWeek })).toEqual([
        [[null, null], 4, 4],
        [[1440, 900], 1, 2],
      ]);
      expect(await counts(shopProject, { breakdownBy: "Language", dateRange: shopWeek })).toEqual([
        [null, 4, 4],
        ["en-GB", 1, 2],
      ]);
      expect(await counts(shopProject, { breakdownBy: "Timezone", dateRange: shopWeek })).toEqual([
        [null, 3, 3],
        [1, 1, 2],
        [-5, 1, 1],
      ]);
    });

    it("bounce rate per entry page, and per page by the sessions entering there", async () => {
      const entry = await table(shopProject, { breakdownBy: "InitialPage", dateRange: shopWeek, includeBounceRate: true });
      expect(entry.columns).toContain("context.columns.bounce_rate");
      expect(entry.rows.map((row) => [row[0], (row[3] as number[])[0]])).toEqual([
        ["/landing", 1 / 3],
        ["/blog", 0],
      ]);
      const page = await table(shopProject, { breakdownBy: "Page", dateRange: shopWeek, includeBounceRate: true });
      // Counted by sessions starting in the range (the page view without a session drops out); /pricing is no session's entry.
      expect(page.rows.map((row) => [row[0], row[1], row[3]])).toEqual([
        ["/landing", [3, null], [1 / 3, null]],
        ["/blog", [1, null], [0, null]],
        ["/pricing", [1, null], [null, null]],
      ]);
    });

    it("a table compared with the period before, and filtered by $host", async () => {
      const { rows } = await table(shopProject, { breakdownBy: "InitialPage", dateRange: { date_from: "2024-03-04", date_to: "2024-03-07" }, compareFilter: { compare: true } });
      expect(rows).toEqual([
        ["/landing", [1, 2], [1, 3], 1, ""],
        ["/blog", [0, 1], [0, 1], 0, ""],
      ]);
      expect(await counts(shopProject, { breakdownBy: "Page", dateRange: shopWeek, properties: filter("$host", "docs.example") })).toEqual([["/blog", 1, 1]]);
    });
  });

  describe("persons merged after their visits", () => {
    // x, y and z each visit once; z is merged into y, then y into x: one visitor, by every read.
    const [x, y, z] = ["0190c000-0000-7000-8000-0000000000c1", "0190c000-0000-7000-8000-0000000000c2", "0190c000-0000-7000-8000-0000000000c3"];
    const week = { date_from: "2024-04-01", date_to: "2024-04-07" };
    let mergedProject: number;

    beforeAll(async () => {
      const owner = await db.prisma.project.findFirstOrThrow({ where: { id: overviewProject } });
      mergedProject = (await db.prisma.project.create({ data: { organizationId: owner.organizationId, name: "Merged", apiToken: `phc_${randomUUID()}` } })).id;
      await insert(mergedProject, [
        view(x, "2024-04-01T10:00:00", uuidv7(), "/a"),
        view(y, "2024-04-02T10:00:00", uuidv7(), "/a"),
        view(z, "2024-04-03T10:00:00", uuidv7(), "/b"),
        view(z, "2024-04-03T10:00:30", uuidv7(), "/b"),
      ]);
      expect((await overview(mergedProject, { dateRange: week })).visitors!.value).toBe(3);
      await db.events.reassignPerson(mergedProject, z, y);
      await db.events.reassignPerson(mergedProject, y, x);
    });

    it("counts one visitor in the overview, from the sessions alone and through the events", async () => {
      expect(await overview(mergedProject, { dateRange: week })).toMatchObject({ visitors: { value: 1 }, views: { value: 4 }, sessions: { value: 4 } });
      const filtered = await overview(mergedProject, { dateRange: week, properties: filter("$pathname", "/b") });
      expect([filtered.visitors!.value, filtered.views!.value]).toEqual([1, 2]);
    });

    it("counts one visitor per entry page and per page", async () => {
      expect(await counts(mergedProject, { breakdownBy: "InitialPage", dateRange: week })).toEqual([
        ["/a", 1, 2],
        ["/b", 1, 2],
      ]);
      expect(await counts(mergedProject, { breakdownBy: "Page", dateRange: week })).toEqual([
        ["/a", 1, 2],
        ["/b", 1, 2],
      ]);
    });
  });

  describe("through POST /api/projects/:id/query/", () => {
    const queryRoute = restRoute("projects", "query");
    async function post(projectId: number, query: unknown) {
      const response = await queryRoute.POST!(
        new Request(`http://internal.test/api/projects/${projectId}/query/`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ query, refresh: true }),
        }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    }

    it("answers PostHog's envelope for both kinds", async () => {
      const over = await post(overviewProject, { kind: "WebOverviewQuery", properties: [], dateRange: { date_from: "2023-12-08", date_to: "2023-12-15" }, compareFilter: { compare: true } });
      expect(over.status).toBe(200);
      expect(over.body.results.map((item: WebOverviewItem) => item.key)).toEqual(["visitors", "views", "sessions", "session duration", "bounce rate"]);
      expect(over.body).toMatchObject({ is_cached: false, dateFrom: "2023-12-08 00:00:00", dateTo: "2023-12-15 23:59:59", timezone: "UTC" });
      const stats = await post(tableProject, { kind: "WebStatsTableQuery", properties: [], breakdownBy: "Page", dateRange: { date_from: "2023-12-01", date_to: "2023-12-11" }, limit: 1 });
      expect(stats.status).toBe(200);
      expect(stats.body).toMatchObject({ results: [["/", [2, null], [2, null], 2 / 3, ""]], hasMore: true, limit: 1, offset: 0 });
      expect(stats.body.columns).toHaveLength(5);
    });

    it("a breakdownBy it does not know, or a field it does not support, is a 400 naming it", async () => {
      const bad = await post(tableProject, { kind: "WebStatsTableQuery", properties: [], breakdownBy: "Planet" });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toContain("breakdownBy");
      const goal = await post(tableProject, { kind: "WebOverviewQuery", properties: [], conversionGoal: { customEvent: "signup" } });
      expect(goal.status).toBe(400);
      expect(goal.body.detail).toContain("conversionGoal");
      for (const compareTo of ["last week", "-1", "+1w", "-99999d", 7]) {
        const answer = await post(tableProject, { kind: "WebOverviewQuery", properties: [], compareFilter: { compare: true, compare_to: compareTo } });
        expect(answer.status).toBe(400);
        expect(answer.body.detail).toContain("compare_to must be a relative date");
      }
      // A NUL byte is refused at the edge, before the query's own checks.
      const nul = await post(tableProject, { kind: "WebStatsTableQuery", properties: [], breakdownBy: "Page", includeHost: true, compareFilter: { compare: true, compare_to: "-1w\u0000" } });
      expect(nul.status).toBe(400);
      expect(nul.body.detail).toContain("Null characters are not allowed");
    });
  });
});
