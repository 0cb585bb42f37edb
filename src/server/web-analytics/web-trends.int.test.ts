/**
 * Web analytics trends (PostHog's web_trends.py): a TrendsQuery tagged
 * `tags: { productKey: "web_analytics" }` whose series are `$pageview`/`$screen` with `total`,
 * `dau`, `unique_session` or avg `$session_duration`/`$is_bounce` is answered from the sessions,
 * each session in the bucket of its start: it counts when it starts inside the range and has a
 * matching view inside it; its views inside the range all land in its start's bucket; views
 * without a session count nowhere. Anything else tagged is plain trends. Answers worked out by
 * hand from the sessions below (UTC project; bounce: at most one `$pageview`, no
 * `$autocapture`, under 10 s; duration: whole seconds, each end's epoch seconds floored):
 *
 *   s0  p1  30 Apr 23:50:00 /home, 1 May 00:10:00 /pricing                1200 s, bounce 0   starts before 1 May
 *   sI  p6   1 May 09:20:00 /home, 09:40:00 /home                         1200 s, bounce 0
 *   sA  p1   1 May 10:00:00 /home, 10:00:05 /pricing                          5 s, bounce 0
 *   sB  p1   1 May 15:00:00 /home                                             0 s, bounce 1
 *   sC  p2   1 May 23:59:00 /home, 2 May 00:00:30 and 00:01:00 /docs (b)    120 s, bounce 0   straddles midnight
 *   sD  anon 2 May 09:00:00 /home, 09:00:03 click                             3 s, bounce 1   no person
 *   sE  p3   2 May 12:00:00.900 /home, 12:00:09.100 $autocapture             9 s, bounce 0   (8.2 s exactly)
 *   sF  p4   3 May 08:00:00 signup, 08:00:40 signup                          40 s             no view
 *   sG  p5   3 May 11:00:00 /pricing, 11:00:12 scroll                        12 s, bounce 0
 *   —   p5   3 May 13:00:00 /home without $session_id
 *   —   p6   3 May 14:00:00 /home with $session_id ""
 *   sH  p2   4 May 20:00:00 /home, 23:59:30 /pricing, 5 May 00:00:10 /home 14410 s, bounce 0  runs past 4 May
 *
 * Every view is a `$pageview` on host a.example except sC's two /docs views on b.example.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { clearInsightCache, computeInsight } from "@/server/insights/service";
import type { QueryEnv } from "@/server/analytics/kind";
import { trendsKind, type TrendsSeriesResult } from "@/server/trends/service";
import { ANONYMOUS_ACTOR } from "@/server/analytics/kind";
import { sessionTrendQuery, trendQuery } from "@/components/web/web-query";
import type { WebFilters } from "@/components/web/web-filters";
import type { WebOverviewItem } from "./contract";
import { webOverviewKind } from "./service";

let db: Database;
/** The sessions above (UTC). */
let projectId: number;
/** New York: a session whose local start day is not its UTC day. */
let nyProject: number;
/** An app's `$screen`s beside a page view. */
let appProject: number;

const person = (n: number) => `0190d000-0000-7000-8000-00000000000${n}`;

interface Who {
  person: string | null;
  distinctId: string;
}
const who = (n: number): Who => ({ person: person(n), distinctId: `d${n}` });
const anonymous: Who = { person: null, distinctId: "anon-1" };

const A = "a.example";
const B = "b.example";

/** One event; `session` undefined leaves `$session_id` out. */
function sent(actor: Who, event: string, at: string, session: string | undefined, properties: Record<string, unknown> = {}) {
  return {
    uuid: randomUUID(),
    event,
    distinctId: actor.distinctId,
    personId: actor.person,
    properties: { ...(session === undefined ? {} : { $session_id: session }), ...properties },
    timestamp: new Date(`${at}Z`),
  };
}
const view = (actor: Who, at: string, session: string | undefined, path: string, host = A) => sent(actor, "$pageview", at, session, { $host: host, $pathname: path });

async function insert(project: number, events: ReturnType<typeof sent>[]): Promise<void> {
  await db.events.insert(events.map((event) => ({ ...event, projectId: project })));
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "web-trends@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const project = async (name: string, timezone: string) =>
    (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name, apiToken: `phc_${randomUUID()}`, timezone } })).id;
  nyProject = await project("New York", "America/New_York");
  appProject = await project("App", "UTC");

  await insert(projectId, [
    view(who(1), "2024-04-30T23:50:00", "s0", "/home"),
    view(who(1), "2024-05-01T00:10:00", "s0", "/pricing"),
    view(who(6), "2024-05-01T09:20:00", "sI", "/home"),
    view(who(6), "2024-05-01T09:40:00", "sI", "/home"),
    view(who(1), "2024-05-01T10:00:00", "sA", "/home"),
    view(who(1), "2024-05-01T10:00:05", "sA", "/pricing"),
    view(who(1), "2024-05-01T15:00:00", "sB", "/home"),
    view(who(2), "2024-05-01T23:59:00", "sC", "/home"),
    view(who(2), "2024-05-02T00:00:30", "sC", "/docs", B),
    view(who(2), "2024-05-02T00:01:00", "sC", "/docs", B),
    view(anonymous, "2024-05-02T09:00:00", "sD", "/home"),
    sent(anonymous, "click", "2024-05-02T09:00:03", "sD"),
    view(who(3), "2024-05-02T12:00:00.900", "sE", "/home"),
    sent(who(3), "$autocapture", "2024-05-02T12:00:09.100", "sE"),
    sent(who(4), "signup", "2024-05-03T08:00:00", "sF"),
    sent(who(4), "signup", "2024-05-03T08:00:40", "sF"),
    view(who(5), "2024-05-03T11:00:00", "sG", "/pricing"),
    sent(who(5), "scroll", "2024-05-03T11:00:12", "sG"),
    view(who(5), "2024-05-03T13:00:00", undefined, "/home"),
    view(who(6), "2024-05-03T14:00:00", "", "/home"),
    view(who(2), "2024-05-04T20:00:00", "sH", "/home"),
    view(who(2), "2024-05-04T23:59:30", "sH", "/pricing"),
    view(who(2), "2024-05-05T00:00:10", "sH", "/home"),
  ]);

  // New York is UTC−4 in May.
  //   n0 p7 1 May 03:00Z (30 Apr 23:00 local), 04:10Z (1 May 00:10 local)      starts before 1 May local
  //   n1 p7 2 May 03:30Z (1 May 23:30 local), 04:20Z (2 May 00:20 local)        3000 s, bounce 0; UTC day 2 May
  //   n2 p8 2 May 12:00Z (2 May 08:00 local)                                      0 s, bounce 1
  await insert(nyProject, [
    view(who(7), "2024-05-01T03:00:00", "n0", "/"),
    view(who(7), "2024-05-01T04:10:00", "n0", "/"),
    view(who(7), "2024-05-02T03:30:00", "n1", "/"),
    view(who(7), "2024-05-02T04:20:00", "n1", "/"),
    view(who(8), "2024-05-02T12:00:00", "n2", "/"),
  ]);

  //   m1 p7 1 May 08:00:00 $screen, 08:00:04 $screen, 08:00:06 $pageview    6 s, bounce 1 (one page view, short)
  //   m3 p7 1 May 23:59:40 $screen, 2 May 00:00:30 $screen                  50 s, no bounce (no page view)
  //   m2 p8 2 May 10:00:00 $pageview                                         0 s, bounce 1
  //   m4 p8 2 May 12:00:00 $screen, 12:00:15 $pageview                      15 s, bounce 0 (15 s)
  await insert(appProject, [
    sent(who(7), "$screen", "2024-05-01T08:00:00", "m1", { $screen_name: "Home" }),
    sent(who(7), "$screen", "2024-05-01T08:00:04", "m1", { $screen_name: "Cart" }),
    view(who(7), "2024-05-01T08:00:06", "m1", "/"),
    sent(who(7), "$screen", "2024-05-01T23:59:40", "m3", { $screen_name: "Home" }),
    sent(who(7), "$screen", "2024-05-02T00:00:30", "m3", { $screen_name: "Cart" }),
    view(who(8), "2024-05-02T10:00:00", "m2", "/"),
    sent(who(8), "$screen", "2024-05-02T12:00:00", "m4", { $screen_name: "Home" }),
    view(who(8), "2024-05-02T12:00:15", "m4", "/"),
  ]);
}, 60_000);

afterAll(async () => {
  await closeDb();
});

beforeEach(() => clearInsightCache(db));

const WEB = { productKey: "web_analytics" };
const MAY_1_TO_4 = { date_from: "2024-05-01", date_to: "2024-05-04" };
const DAYS_1_TO_4 = ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"];
/** Fixed ranges are read long after their events. */
const LATER = new Date("2024-06-01T00:00:00Z");

async function trends(query: Record<string, unknown>, project = projectId, now = LATER): Promise<TrendsSeriesResult[]> {
  return (await computeInsight(db, project, { query: { kind: "TrendsQuery", ...query } }, { now })).result as TrendsSeriesResult[];
}
/** The same query with PostHog's web analytics tag. */
const tagged = (query: Record<string, unknown>, project = projectId, now = LATER) => trends({ ...query, tags: WEB }, project, now);

const views = (math?: string, extra: Record<string, unknown> = {}) => ({ kind: "EventsNode", event: "$pageview", ...(math ? { math } : {}), ...extra });
const sessionAvg = (property: "$session_duration" | "$is_bounce", extra: Record<string, unknown> = {}) => ({
  kind: "EventsNode",
  event: "$pageview",
  math: "avg",
  math_property: property,
  math_property_type: "session_properties",
  ...extra,
});
/** The five maths the web page's graphs read, in one query. */
const FIVE_MATHS = [views("dau"), views("total"), views("unique_session"), sessionAvg("$session_duration"), sessionAvg("$is_bounce")];

const dataOf = (results: TrendsSeriesResult[]) => results.map((r) => r.data);

/** Integer series exactly; the averages to 9 digits. */
function expectFive(results: TrendsSeriesResult[], expected: [number[], number[], number[], number[], number[]]): void {
  expect(results).toHaveLength(5);
  expect(dataOf(results).slice(0, 3)).toEqual(expected.slice(0, 3));
  for (const index of [3, 4]) expectClose(results[index]!.data, expected[index]!);
}

function expectClose(actual: number[], expected: number[]): void {
  expect(actual, JSON.stringify(actual)).toHaveLength(expected.length);
  expected.forEach((value, i) => expect(actual[i], `bucket ${i}: ${JSON.stringify(actual)}`).toBeCloseTo(value, 9));
}

/** `length` zeros with the given buckets set. */
const sparse = (length: number, values: Record<number, number>) => Array.from({ length }, (_, i) => values[i] ?? 0);

const filters = (overrides: Partial<WebFilters>): WebFilters => ({ host: null, path: null, dateFrom: "-7d", order: null, goal: null, filterTestAccounts: false, ...overrides });
const exact = (key: string, value: string) => ({ type: "event", key, value, operator: "exact" });

async function overview(dateRange: Record<string, unknown>, properties: unknown[] = []) {
  const env: QueryEnv = { db, projectId, zone: "UTC", now: LATER };
  const spec = webOverviewKind.spec({ kind: "WebOverviewQuery", properties, dateRange }, null);
  const items = (await webOverviewKind.compute(env, spec)).results as WebOverviewItem[];
  return Object.fromEntries(items.map((item) => [item.key, item.value]));
}

describe(`web analytics trends by session start (${testStoresName})`, () => {
  it("counts each session on its start day, in plain trends' shape; untagged, the same series count by event time", async () => {
    const web = await tagged({ series: FIVE_MATHS, dateRange: MAY_1_TO_4 });
    // Sessions starting 1–4 May with a view in the range: 1 May sI (2 views), sA (2), sB (1),
    // sC (3: its two 2 May views too); 2 May sD (1), sE (1); 3 May sG (1); 4 May sH (2: its
    // 5 May view is past the range). s0 began on 30 April, sF has no view, and the views
    // without a session (or with "") count nowhere.
    // dau: 1 May p6, p1 (sA and sB: one visitor, two sessions), p2; 2 May anon-1 (no person), p3; 3 May p5; 4 May p2.
    // Duration: 1 May (1200 + 5 + 0 + 120) / 4; 2 May (3 + 9) / 2; 3 May 12; 4 May 14410 (to its 5 May view).
    // Bounce: 1 May sB of four; 2 May sD of two.
    expectFive(web, [
      [3, 2, 1, 1],
      [8, 2, 1, 2],
      [4, 2, 1, 1],
      [1325 / 4, 6, 12, 14410],
      [1 / 4, 1 / 2, 0, 0],
    ]);
    expect(web[2]).toEqual({
      label: "$pageview",
      count: 8,
      data: [4, 2, 1, 1],
      labels: ["1-May-2024", "2-May-2024", "3-May-2024", "4-May-2024"],
      days: DAYS_1_TO_4,
      action: {
        days: DAYS_1_TO_4,
        id: "$pageview",
        type: "events",
        order: 2,
        name: "$pageview",
        custom_name: null,
        math: "unique_session",
        math_property: null,
        math_hogql: null,
        math_group_type_index: null,
        properties: {},
      },
    });
    expect(web.map((r) => [r.count, r.action!.math, r.action!.math_property])).toEqual([
      [7, "dau", null],
      [13, "total", null],
      [8, "unique_session", null],
      [1325 / 4 + 6 + 12 + 14410, "avg", "$session_duration"],
      [3 / 4, "avg", "$is_bounce"],
    ]);

    // Untagged (the cache not cleared in between: each is its own entry), by each event's day:
    // views 1 May s0's 00:10, sI 2, sA 2, sB 1, sC's 23:59; 2 May sC 2, sD, sE; 3 May sG and the two without a session; 4 May sH 2.
    // dau 1 May p1, p6, p2; 2 May p2, anon-1, p3; 3 May p5, p6. Sessions: "" is none.
    // Duration and bounce per session with a view that day: 1 May s0, sI, sA, sB, sC ((1200 + 1200 + 5 + 0 + 120) / 5);
    // 2 May sC, sD, sE ((120 + 3 + 9) / 3).
    expectFive(await trends({ series: FIVE_MATHS, dateRange: MAY_1_TO_4 }), [
      [3, 3, 2, 1],
      [7, 4, 3, 2],
      [5, 3, 1, 1],
      [505, 44, 12, 14410],
      [1 / 5, 1 / 3, 0, 0],
    ]);
  });

  it("answers /web's two queries (trendQuery and sessionTrendQuery) over the last 7 days, and with a host", async () => {
    const now = new Date("2024-05-05T06:00:00Z");
    const lastWeek = trendQuery(filters({}));
    expect(lastWeek.tags).toEqual(WEB);
    const sessionsOfWeek = sessionTrendQuery(filters({}));
    expect(sessionsOfWeek.tags).toEqual(WEB);
    // -7d: 28 April to the end of 5 May. Now s0 counts on 30 April (both its views), and sH all three views on 4 May.
    const week = await trends(lastWeek, projectId, now);
    expect(week[0]!.days).toEqual(["2024-04-28", "2024-04-29", "2024-04-30", "2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04", "2024-05-05"]);
    expect(dataOf(week)).toEqual([
      [0, 0, 1, 3, 2, 1, 1, 0],
      [0, 0, 2, 8, 2, 1, 3, 0],
      [0, 0, 1, 4, 2, 1, 1, 0],
    ]);
    const [duration, bounce] = await trends(sessionsOfWeek, projectId, now);
    expectClose(duration!.data, [0, 0, 1200, 1325 / 4, 6, 12, 14410, 0]);
    expectClose(bounce!.data, [0, 0, 0, 1 / 4, 1 / 2, 0, 0, 0]);

    // b.example: sC's two 2 May views, on its start day 1 May; its duration and bounce are the whole session's.
    const onB = await trends(trendQuery(filters({ host: B })), projectId, now);
    expect(dataOf(onB)).toEqual([sparse(8, { 3: 1 }), sparse(8, { 3: 2 }), sparse(8, { 3: 1 })]);
    const [durationOnB, bounceOnB] = await trends(sessionTrendQuery(filters({ host: B })), projectId, now);
    expectClose(durationOnB!.data, sparse(8, { 3: 120 }));
    expectClose(bounceOnB!.data, sparse(8, {}));
  });

  it("serves other time-series displays, a total math left out, and formulas by session start too", async () => {
    const [bars] = await tagged({ series: [views()], dateRange: MAY_1_TO_4, trendsFilter: { display: "ActionsBar" } });
    expect(bars!.data).toEqual([8, 2, 1, 2]);
    // Views per session: 8/4, 2/2, 1/1, 2/1.
    const [perSession] = await tagged({ series: [views("dau"), views("total"), views("unique_session")], dateRange: MAY_1_TO_4, trendsFilter: { formula: "B/C" } });
    expect([perSession!.label, perSession!.data]).toEqual(["Formula (B/C)", [2, 1, 1, 2]]);
  });

  it("adds up, day by day, to the overview's views and sessions, with and without a $host filter", async () => {
    const cases: [unknown[], number[], number[]][] = [
      // As above: 13 views, 8 sessions.
      [[], [8, 2, 1, 2], [4, 2, 1, 1]],
      // a.example: sC only by its 23:59 view.
      [[exact("$host", A)], [6, 2, 1, 2], [4, 2, 1, 1]],
      // b.example: sC alone, both its 2 May views on 1 May.
      [[exact("$host", B)], [2, 0, 0, 0], [1, 0, 0, 0]],
    ];
    for (const [properties, perDayViews, perDaySessions] of cases) {
      const [total, sessions] = await tagged({ series: [views("total"), views("unique_session")], dateRange: MAY_1_TO_4, properties });
      expect([total!.data, sessions!.data], JSON.stringify(properties)).toEqual([perDayViews, perDaySessions]);
      const sum = (data: number[]) => data.reduce((a, b) => a + b, 0);
      const whole = await overview(MAY_1_TO_4, properties);
      expect([whole.views, whole.sessions], JSON.stringify(properties)).toEqual([sum(perDayViews), sum(perDaySessions)]);
      expect([total!.count, sessions!.count]).toEqual([whole.views, whole.sessions]);
    }
  });

  it("a range ending mid-session counts the session's views up to its end", async () => {
    // 23:00 1 May to 00:00:45 2 May, hourly: sC starts at 23:59; its 00:00:30 view counts (in the 23:00
    // bucket), its 00:01:00 one is past the end. Its duration is still the whole session's 120 s.
    const range = { date_from: "2024-05-01T23:00:00", date_to: "2024-05-02T00:00:45" };
    const hourly = await tagged({ series: FIVE_MATHS, interval: "hour", dateRange: range });
    expect(hourly[0]!.days).toEqual(["2024-05-01 23:00:00", "2024-05-02 00:00:00"]);
    expectFive(hourly, [
      [1, 0],
      [2, 0],
      [1, 0],
      [120, 0],
      [0, 0],
    ]);
    // Untagged: one view in each hour.
    expect((await trends({ series: [views("total")], interval: "hour", dateRange: range }))[0]!.data).toEqual([1, 1]);
    // 1 May alone: sI 2, sA 2, sB 1, sC only its 23:59 view.
    const [oneDay] = await tagged({ series: [views("total")], dateRange: { date_from: "2024-05-01", date_to: "2024-05-01" } });
    expect(oneDay!.data).toEqual([6]);
    // 4 May alone: sH's two views of 4 May, not the one of 5 May; its duration runs to that one.
    const lastDay = await tagged({ series: [views("total"), views("unique_session"), sessionAvg("$session_duration")], dateRange: { date_from: "2024-05-04", date_to: "2024-05-04" } });
    expect(dataOf(lastDay)).toEqual([[2], [1], [14410]]);
  });

  it("property filters choose the views and sessions; duration and bounce stay the whole session's", async () => {
    // /home views: 1 May sI 2, sA 1, sB 1, sC 1; 2 May sD, sE; sG (3 May) has none; 4 May sH's 20:00 one.
    // sA (two views) and sC (three) have a single /home view each, yet did not bounce; sC lasted 120 s.
    expectFive(await tagged({ series: FIVE_MATHS, dateRange: MAY_1_TO_4, properties: [exact("$pathname", "/home")] }), [
      [3, 2, 0, 1],
      [5, 2, 0, 1],
      [4, 2, 0, 1],
      [1325 / 4, 6, 0, 14410],
      [1 / 4, 1 / 2, 0, 0],
    ]);
    // Per series: /pricing views are sA's (1 May), sG's (3 May) and sH's 23:59:30 (4 May) — s0's began before the
    // range; none of those sessions bounced. b.example: sC.
    const perSeries = await tagged({
      dateRange: MAY_1_TO_4,
      series: [
        views("total", { properties: [exact("$pathname", "/pricing")] }),
        views("unique_session", { properties: [exact("$host", B)] }),
        sessionAvg("$session_duration", { properties: [exact("$host", B)] }),
        sessionAvg("$is_bounce", { properties: [exact("$pathname", "/pricing")] }),
      ],
    });
    expect(dataOf(perSeries)).toEqual([
      [1, 0, 1, 1],
      [1, 0, 0, 0],
      [120, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    // Query-level and series-level filters together: b.example and /docs, sC's two views.
    const both = await tagged({ dateRange: MAY_1_TO_4, properties: [exact("$host", B)], series: [views("total", { properties: [exact("$pathname", "/docs")] })] });
    expect(both[0]!.data).toEqual([2, 0, 0, 0]);
    const none = await tagged({ dateRange: MAY_1_TO_4, properties: [exact("$host", B)], series: [views("total", { properties: [exact("$pathname", "/home")] })] });
    expect(none[0]!.data).toEqual([0, 0, 0, 0]);
  });

  it("buckets by the start's day in the project's time zone", async () => {
    const range = { date_from: "2024-05-01", date_to: "2024-05-02" };
    // New York 1–2 May: n1 starts 1 May 23:30 local (2 May in UTC) with both views; n2 on 2 May; n0 began 30 April local.
    const web = await tagged({ series: FIVE_MATHS, dateRange: range }, nyProject);
    expect(web[0]!.days).toEqual(["2024-05-01", "2024-05-02"]);
    expectFive(web, [
      [1, 1],
      [2, 1],
      [1, 1],
      [3000, 0],
      [0, 1],
    ]);
    // Untagged: 1 May local n0's 00:10 and n1's 23:30; 2 May n1's 00:20 and n2.
    expect(dataOf(await trends({ series: [views("total"), views("unique_session")], dateRange: range }, nyProject))).toEqual([
      [2, 2],
      [2, 2],
    ]);
  });

  it("a $screen series counts screens, not page views", async () => {
    const screens = (math?: string) => ({ ...views(math), event: "$screen" });
    const screenAvg = (property: "$session_duration" | "$is_bounce") => ({ ...sessionAvg(property), event: "$screen" });
    const range = { date_from: "2024-05-01", date_to: "2024-05-02" };
    const results = await tagged(
      { dateRange: range, series: [screens("dau"), screens("total"), screens("unique_session"), screenAvg("$session_duration"), screenAvg("$is_bounce"), views("total"), views("unique_session")] },
      appProject,
    );
    // Screens: 1 May m1 2 and m3 2 (its second after midnight); 2 May m4's. Duration (6 + 50) / 2 and 15.
    // Bounce of the sessions with a page view: 1 May m1 (m3 has none), 2 May m4 (15 s).
    expect(dataOf(results.slice(0, 3))).toEqual([
      [1, 1],
      [4, 1],
      [2, 1],
    ]);
    expectClose(results[3]!.data, [28, 15]);
    expectClose(results[4]!.data, [1, 0]);
    // Page views: m1's; m2's and m4's.
    expect(dataOf(results.slice(5))).toEqual([
      [1, 2],
      [1, 2],
    ]);
    // Untagged, by each screen's day: m3's second on 2 May.
    expect((await trends({ dateRange: range, series: [screens("total")] }, appProject))[0]!.data).toEqual([3, 2]);
  });

  it("compares with the previous period, by session start there too", async () => {
    const range = { date_from: "2024-05-02", date_to: "2024-05-03" };
    const results = await tagged({ series: [views("dau"), views("total"), views("unique_session")], dateRange: range, compareFilter: { compare: true } });
    // 2–3 May: sD and sE (2 May), sG (3 May); sC's 2 May views belong to 1 May (untagged: [4, 3]).
    // 30 April–1 May, ending 1 May 23:59:59: s0 (both views, 30 April); 1 May sI 2, sA 2, sB 1 and sC's 23:59 view
    // only (its others are past that period's end). dau: p1; p6, p1, p2.
    expect(results.map((r) => [r.compare_label, r.action!.math, r.days, r.data])).toEqual([
      ["current", "dau", ["2024-05-02", "2024-05-03"], [2, 1]],
      ["current", "total", ["2024-05-02", "2024-05-03"], [2, 1]],
      ["current", "unique_session", ["2024-05-02", "2024-05-03"], [2, 1]],
      ["previous", "dau", ["2024-04-30", "2024-05-01"], [1, 3]],
      ["previous", "total", ["2024-04-30", "2024-05-01"], [2, 6]],
      ["previous", "unique_session", ["2024-04-30", "2024-05-01"], [1, 4]],
    ]);
    expect(results.every((r) => r.compare === true)).toBe(true);
    const [duration, bounce, previousDuration, previousBounce] = await tagged({
      series: [sessionAvg("$session_duration"), sessionAvg("$is_bounce")],
      dateRange: range,
      compareFilter: { compare: true },
    });
    expectClose(duration!.data, [6, 12]);
    expectClose(bounce!.data, [1 / 2, 0]);
    expect([previousDuration!.compare_label, previousBounce!.compare_label]).toEqual(["previous", "previous"]);
    // s0 1200 s; 1 May (1200 + 5 + 0 + 120) / 4 with sB bounced.
    expectClose(previousDuration!.data, [1200, 1325 / 4]);
    expectClose(previousBounce!.data, [0, 1 / 4]);
  });

  it("answers the last 24 hours hourly, from the very time 24 hours ago", async () => {
    // Now 2 May 09:30: from 1 May 09:30 to the end of 2 May's 09:00 hour, 25 buckets from 1 May 09:00.
    // sI began at 09:20, before the range (its 09:40 view is in the first bucket); sA at 10:00 (bucket 1), sB 15:00 (6),
    // sC 23:59 (14, with its two views after midnight), sD 2 May 09:00 (24); sE is later.
    const now = new Date("2024-05-02T09:30:00Z");
    const lastDay = trendQuery(filters({ dateFrom: "-24h" }));
    expect([lastDay.tags, lastDay.interval]).toEqual([WEB, "hour"]);
    const results = await trends(lastDay, projectId, now);
    expect(results[0]!.days[0]).toBe("2024-05-01 09:00:00");
    expect(results[0]!.days.at(-1)).toBe("2024-05-02 09:00:00");
    const started = sparse(25, { 1: 1, 6: 1, 14: 1, 24: 1 });
    expect(dataOf(results)).toEqual([started, sparse(25, { 1: 2, 6: 1, 14: 3, 24: 1 }), started]);
    const [duration, bounce] = await trends(sessionTrendQuery(filters({ dateFrom: "-24h" })), projectId, now);
    expectClose(duration!.data, sparse(25, { 1: 5, 14: 120, 24: 3 }));
    expectClose(bounce!.data, sparse(25, { 6: 1, 24: 1 }));
    // Untagged, by each view's hour: sI's 09:40, sA 2, sB, sC's 23:59, its two at 00:00, sD.
    const plain = await trends({ ...lastDay, tags: undefined }, projectId, now);
    expect(plain[1]!.data).toEqual(sparse(25, { 0: 1, 1: 2, 6: 1, 14: 1, 15: 2, 24: 1 }));
  });

  describe("anything else tagged is plain trends", () => {
    /**
     * The tagged query's results equal the untagged one's, which are returned for their figures
     * (the tagged one first: were the two one cache entry, the plain one would read its answer).
     */
    async function same(query: Record<string, unknown>): Promise<TrendsSeriesResult[]> {
      const web = await tagged(query);
      const plain = await trends(query);
      expect(web, JSON.stringify(query)).toEqual(plain);
      return plain;
    }

    it("a breakdown, another event, a series of another event beside a view series", async () => {
      // By each view's host and day: a.example 1 May s0's 00:10, sI 2, sA 2, sB, sC's 23:59; 2 May sD, sE;
      // 3 May sG and the two without a session; 4 May sH 2. b.example sC's two on 2 May.
      const byHost = await same({ series: [views()], dateRange: MAY_1_TO_4, breakdownFilter: { breakdown: "$host" } });
      expect(byHost.map((r) => [r.breakdown_value, r.data])).toEqual([
        [A, [7, 2, 3, 2]],
        [B, [0, 2, 0, 0]],
      ]);
      expect((await same({ series: [{ kind: "EventsNode", event: "signup" }], dateRange: MAY_1_TO_4 }))[0]!.data).toEqual([0, 0, 2, 0]);
      expect(dataOf(await same({ series: [views(), { kind: "EventsNode", event: "signup" }], dateRange: MAY_1_TO_4 }))).toEqual([
        [7, 4, 3, 2],
        [0, 0, 2, 0],
      ]);
      // All events' sessions, per day they have events: 3 May sF 40 and sG 12.
      expect((await same({ series: [{ ...sessionAvg("$session_duration"), event: null }], dateRange: MAY_1_TO_4 }))[0]!.data).toEqual([505, 44, 26, 14410]);
    });

    it("another math, a cumulative or a number display, another product's tag", async () => {
      // Visitors of each day's last 7 days: p1, p6, p2; + anon-1, p3; + p5.
      expect((await same({ series: [views("weekly_active")], dateRange: MAY_1_TO_4 }))[0]!.data).toEqual([3, 5, 6, 6]);
      expect((await same({ series: [{ ...sessionAvg("$session_duration"), math: "max" }], dateRange: MAY_1_TO_4 }))[0]!.data).toEqual([1200, 120, 12, 14410]);
      expect((await same({ series: [views()], dateRange: MAY_1_TO_4, trendsFilter: { display: "ActionsLineGraphCumulative" } }))[0]!.data).toEqual([7, 11, 14, 16]);
      expect((await same({ series: [views()], dateRange: MAY_1_TO_4, trendsFilter: { display: "BoldNumber" } }))[0]!.aggregated_value).toBe(16);
      const other = await trends({ series: [views()], dateRange: MAY_1_TO_4, tags: { productKey: "product_analytics" } });
      expect(other[0]!.data).toEqual([7, 4, 3, 2]);
    });
  });

  it("buckets by the week and the month of each session's start", async () => {
    // A weekly chart counts from the start of date_from's week (Sunday 28 April): s0, which began on
    // 30 April, is in. Sessions s0 (2 views), sI (2), sA (2), sB (1), sC (3), sD (1), sE (1), sG (1),
    // sH (2, its 5 May view past the range): 9 sessions, 15 views; visitors p1, p6, p2, anon-1, p3, p5.
    const series = [views("dau"), views(), views("unique_session")];
    expect(dataOf(await tagged({ series, dateRange: MAY_1_TO_4, interval: "week" }))).toEqual([[6], [15], [9]]);
    // A monthly one from 1 May: the same without s0 (13 views, 8 sessions, as the overview's 1–4 May), p1 still a visitor.
    expect(dataOf(await tagged({ series, dateRange: MAY_1_TO_4, interval: "month" }))).toEqual([[6], [13], [8]]);
  });

  describe("the actors behind a point", () => {
    const env = (): QueryEnv => ({ db, projectId, zone: "UTC", now: LATER });
    const actorsOf = (query: Record<string, unknown>, selector: Record<string, unknown>) =>
      trendsKind.actors!(env(), trendsKind.spec({ kind: "TrendsQuery", series: [views("unique_session")], dateRange: MAY_1_TO_4, ...query }, null), selector);
    const anon = `${ANONYMOUS_ACTOR}anon-1`;

    it("are the visitors of the sessions the point counts, most views first, then by key", async () => {
      // 1 May: sI p6 (2 views), sA + sB p1 (2 + 1), sC p2 (3, two of them on 2 May): p1 and p2 tie at 3, keys ascending.
      expect(await actorsOf({ tags: WEB }, { day: "2024-05-01", series: 0 })).toEqual([person(1), person(2), person(6)]);
      // 2 May: sD anon-1 and sE p3, one view each ("0…" sorts before "distinct_id:…"); not p2, whose 2 May views are sC's.
      expect(await actorsOf({ tags: WEB }, { day: "2024-05-02", series: 0 })).toEqual([person(3), anon]);
      // 3 May: sG p5 alone; its later view without a session and p6's with "" count for no session.
      expect(await actorsOf({ tags: WEB }, { day: "2024-05-03", series: 0 })).toEqual([person(5)]);
      // The whole range: p2 sC 3 + sH 2, p1 3, p6 2, then p3, p5, anon-1 with one each.
      expect(await actorsOf({ tags: WEB }, { series: 0 })).toEqual([person(2), person(1), person(6), person(3), person(5), anon]);
      // Untagged, 2 May is whoever viewed that day: p2 (sC's two), then anon-1 and p3.
      expect(await actorsOf({}, { day: "2024-05-02", series: 0 })).toEqual([person(2), person(3), anon]);
    });

    it("through filters: a session counts on its start day by its matching views", async () => {
      // b.example: only sC's two 2 May views match, and sC began on 1 May.
      const onB = { tags: WEB, properties: [exact("$host", B)] };
      expect(await actorsOf(onB, { day: "2024-05-01", series: 0 })).toEqual([person(2)]);
      expect(await actorsOf(onB, { day: "2024-05-02", series: 0 })).toEqual([]);
      // /home on 1 May: sI 2, sA 1, sB 1, sC 1 — p1 2 (sA + sB) ties p6 2, then p2.
      const home = { tags: WEB, properties: [exact("$pathname", "/home")] };
      expect(await actorsOf(home, { day: "2024-05-01", series: 0 })).toEqual([person(1), person(6), person(2)]);
    });
  });
});
