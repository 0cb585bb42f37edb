/**
 * Trends computed over a fixed set of events with answers worked out by hand: counts per
 * day, hour, week and month, unique users (merged persons, and events without a person),
 * property filters on events and persons, breakdowns with top values and "other", the
 * number (total value) display, empty ranges, date edges and the project's time zone,
 * dashboard filters and the cache. Persons come from the real ingestion pipeline.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { insertTestCohort } from "@/test-support/cohorts";
import { parseListQuery } from "@/server/http/rest/resources/events-query";
import { sendBatch } from "@/test-support/ingestion";
import { clearInsightCache, computeInsight } from "@/server/insights/service";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type TrendsSeriesResult } from "./service";

let db: Database;
let projectId: number;
let projectKey: string;
let nyProjectId: number;

interface Sent {
  event: string;
  distinct_id: string;
  timestamp: string;
  properties?: Record<string, unknown>;
}

async function capture(events: Sent[]): Promise<void> {
  await sendBatch(projectKey, events.map((e) => ({ uuid: randomUUID(), ...e })));
}

/** Events with no person (person processing off): unique users count their distinct ids. */
async function insertAnonymous(project: number, events: { distinctId: string; timestamp: string; event?: string; properties?: Record<string, unknown> }[]) {
  await db.events.insert(
    events.map((e) => ({ uuid: randomUUID(), projectId: project, event: e.event ?? "$pageview", distinctId: e.distinctId, properties: e.properties ?? {}, timestamp: new Date(e.timestamp) })),
  );
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "trends@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  projectKey = owner.project_api_key;
  nyProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "New York", apiToken: "phc_ny", timezone: "America/New_York" } })).id;

  // alice has her own person; anon-x's person is merged into hers by $identify.
  await capture([
    { event: "$pageview", distinct_id: "alice", timestamp: "2024-03-01T09:00:00.000Z", properties: { $browser: "Chrome" } },
    { event: "$pageview", distinct_id: "anon-x", timestamp: "2024-03-01T10:00:00.000Z", properties: { $browser: "Safari" } },
    { event: "$pageview", distinct_id: "bob", timestamp: "2024-03-01T12:00:00.000Z", properties: { $browser: "Chrome" } },
  ]);
  await capture([{ event: "$identify", distinct_id: "alice", timestamp: "2024-03-01T10:05:00.000Z", properties: { $anon_distinct_id: "anon-x", $set: { plan: "pro" } } }]);
  await capture([
    { event: "$pageview", distinct_id: "alice", timestamp: "2024-03-02T09:00:00.000Z", properties: { $browser: "Chrome" } },
    { event: "$pageview", distinct_id: "alice", timestamp: "2024-03-02T09:30:00.000Z", properties: { $browser: "Firefox" } },
    { event: "$pageview", distinct_id: "bob", timestamp: "2024-03-02T23:59:59.999Z", properties: { $browser: "Chrome" } },
    { event: "purchase", distinct_id: "bob", timestamp: "2024-03-02T13:00:00.000Z", properties: { amount: 30 } },
    { event: "$pageview", distinct_id: "carol", timestamp: "2024-03-04T00:00:00.000Z" },
    { event: "$pageview", distinct_id: "dave", timestamp: "2024-03-04T08:00:00.000Z", properties: { $browser: "" } },
    { event: "$pageview", distinct_id: "dave", timestamp: "2024-03-04T09:00:00.000Z", properties: { $browser: "Opera" } },
    // Just outside 1–4 March, either side.
    { event: "$pageview", distinct_id: "zed", timestamp: "2024-02-29T23:59:59.999Z", properties: { $browser: "Chrome" } },
    { event: "$pageview", distinct_id: "erin", timestamp: "2024-03-05T00:00:00.000Z", properties: { $browser: "Chrome" } },
  ]);
  await insertAnonymous(projectId, [
    { distinctId: "ghost-1", timestamp: "2024-03-02T10:00:00.000Z", properties: { $browser: "Edge" } },
    { distinctId: "ghost-1", timestamp: "2024-03-02T11:00:00.000Z", properties: { $browser: "Edge" } },
    { distinctId: "ghost-2", timestamp: "2024-03-02T12:00:00.000Z", properties: { $browser: "Edge" } },
  ]);
  // New York: either side of midnight, before and after the DST change of 10 March.
  await insertAnonymous(nyProjectId, [
    { distinctId: "n1", timestamp: "2024-03-10T04:59:59.999Z" },
    { distinctId: "n2", timestamp: "2024-03-10T05:00:00.000Z" },
    { distinctId: "n3", timestamp: "2024-03-11T03:59:59.999Z" },
    { distinctId: "n4", timestamp: "2024-03-11T04:00:00.000Z" },
  ]);
});

afterAll(async () => {
  await closeDb();
});

beforeEach(() => clearInsightCache(db));

const MARCH_1_TO_4 = { date_from: "2024-03-01", date_to: "2024-03-04" };
const pageviews = (extra: Record<string, unknown> = {}) => ({ kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: MARCH_1_TO_4, ...extra });

const compute = (project: number, query: object, options?: Parameters<typeof computeInsight>[3]) => computeInsight(db, project, { query }, options);

async function trends(query: Record<string, unknown>, project = projectId, now?: Date): Promise<TrendsSeriesResult[]> {
  return (await compute(project, query, { now })).result as TrendsSeriesResult[];
}
const byValue = (results: TrendsSeriesResult[]) => results.map((r) => [r.breakdown_value, r.data, r.count]);

describe(`trends (${testStoresName})`, () => {
  it("merged persons share one person, and the anonymous events have none", async () => {
    const now = new Date();
    const personOf = async (distinctId: string) => {
      const query = parseListQuery(new URL(`http://burrow.test/?distinct_id=${distinctId}`), null, now);
      const rows = await db.events.list(projectId, query, { limit: 100, offset: 0, cursor: null, now });
      expect(rows.length).toBeGreaterThan(0);
      return new Set(rows.map((row) => row.person_id));
    };
    expect((await personOf("alice")).size).toBe(1);
    expect(await personOf("anon-x")).toEqual(await personOf("alice"));
    expect(await personOf("ghost-1")).toEqual(new Set([null]));
  });

  it("counts events per day, zero-filled, in PostHog's result shape", async () => {
    const [series, ...rest] = await trends(pageviews());
    expect(rest).toEqual([]);
    expect(series).toEqual({
      label: "$pageview",
      count: 12,
      data: [3, 6, 0, 3],
      labels: ["1-Mar-2024", "2-Mar-2024", "3-Mar-2024", "4-Mar-2024"],
      days: ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"],
      action: {
        days: ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"],
        id: "$pageview",
        type: "events",
        order: 0,
        name: "$pageview",
        custom_name: null,
        math: "total",
        math_property: null,
        math_hogql: null,
        math_group_type_index: null,
        properties: {},
      },
    });
  });

  it("counts all events when the series has no event, and several series in order", async () => {
    const results = await trends({
      kind: "TrendsQuery",
      series: [{ event: null }, { event: "purchase", custom_name: "Sales" }],
      dateRange: MARCH_1_TO_4,
    });
    expect(results.map((r) => [r.label, r.data, r.action!.order, r.action!.name, r.action!.custom_name])).toEqual([
      ["All events", [4, 7, 0, 3], 0, "All events", null],
      ["purchase", [0, 1, 0, 0], 1, "purchase", "Sales"],
    ]);
  });

  it("counts unique users: merged persons once, events without a person by distinct id", async () => {
    const [series] = await trends(pageviews({ series: [{ event: "$pageview", math: "dau" }] }));
    // 1 Mar: alice (with anon-x), bob. 2 Mar: alice, bob, ghost-1, ghost-2. 4 Mar: carol, dave.
    expect(series!.data).toEqual([2, 4, 0, 2]);
    expect(series!.action!.math).toBe("dau");
  });

  it("filters by event properties with the events API's filters, per query and per series", async () => {
    const chrome = [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }];
    expect((await trends(pageviews({ properties: chrome })))[0]!.data).toEqual([2, 2, 0, 0]);
    expect((await trends(pageviews({ series: [{ event: "$pageview", properties: chrome }] })))[0]!.data).toEqual([2, 2, 0, 0]);
    const notSet = { type: "AND", values: [{ key: "$browser", operator: "is_not_set", type: "event" }] };
    expect((await trends(pageviews({ properties: notSet })))[0]!.data).toEqual([0, 0, 0, 1]);
  });

  it("filters by person properties, following merges", async () => {
    const [series] = await trends(pageviews({ properties: [{ key: "plan", value: "pro", operator: "exact", type: "person" }] }));
    // alice's person (anon-x's 1 March pageview included), not bob's or anyone else's.
    expect(series!.data).toEqual([2, 2, 0, 0]);
  });

  it("breaks down by an event property: largest first, ties by value, null and empty as PostHog's null value", async () => {
    const results = await trends(pageviews({ breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }));
    expect(byValue(results)).toEqual([
      ["Chrome", [2, 2, 0, 0], 4],
      ["Edge", [0, 3, 0, 0], 3],
      [BREAKDOWN_NULL, [0, 0, 0, 2], 2],
      ["Firefox", [0, 1, 0, 0], 1],
      ["Opera", [0, 0, 0, 1], 1],
      ["Safari", [1, 0, 0, 0], 1],
    ]);
    expect(results[0]!.label).toBe("Chrome");
    expect((await compute(projectId, pageviews({ breakdownFilter: { breakdown: "$browser" } }))).hasMore).toBe(false);
  });

  it("breaks down by numbers and booleans as their JSON text, and counts from the first event for date_from all", async () => {
    const { organizationId } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    const typed = (await db.prisma.project.create({ data: { organizationId, name: "Typed", apiToken: "phc_typed", timezone: "UTC" } })).id;
    await insertAnonymous(typed, [
      { distinctId: "t1", timestamp: "2024-05-02T10:00:00.000Z", event: "typed", properties: { v: 30 } },
      { distinctId: "t1", timestamp: "2024-05-02T11:00:00.000Z", event: "typed", properties: { v: 30 } },
      { distinctId: "t2", timestamp: "2024-05-03T10:00:00.000Z", event: "typed", properties: { v: true } },
      { distinctId: "t3", timestamp: "2024-05-03T11:00:00.000Z", event: "typed", properties: { v: null } },
      { distinctId: "t3", timestamp: "2024-05-04T11:00:00.000Z", event: "typed", properties: { v: "x" } },
      { distinctId: "t3", timestamp: "2024-05-04T12:00:00.000Z", event: "typed", properties: { v: 2.5 } },
    ]);
    const results = await trends({ kind: "TrendsQuery", series: [{ event: "typed" }], dateRange: { date_from: "all", date_to: "2024-05-04" }, breakdownFilter: { breakdown: "v" } }, typed);
    expect(byValue(results)).toEqual([
      ["30", [2, 0, 0], 2],
      [BREAKDOWN_NULL, [0, 1, 0], 1],
      ["2.5", [0, 0, 1], 1],
      ["true", [0, 1, 0], 1],
      ["x", [0, 0, 1], 1],
    ]);
    expect(results[0]!.days).toEqual(["2024-05-02", "2024-05-03", "2024-05-04"]);
    const users = await trends({ kind: "TrendsQuery", series: [{ event: "typed", math: "dau" }], dateRange: { date_from: "all", date_to: "2024-05-04" } }, typed);
    expect(users[0]!.data).toEqual([1, 2, 1]);
  });

  it("keeps the top values and folds the rest into PostHog's other bucket", async () => {
    const answer = await compute(projectId, pageviews({ breakdownFilter: { breakdown: "$browser", breakdown_limit: 2 } }));
    expect(byValue((answer.result as TrendsSeriesResult[]))).toEqual([
      ["Chrome", [2, 2, 0, 0], 4],
      ["Edge", [0, 3, 0, 0], 3],
      [BREAKDOWN_OTHER, [1, 1, 0, 3], 5],
    ]);
    expect(answer.hasMore).toBe(true);
    // Ties at the limit go to the larger value (PostHog's `count DESC, value DESC`).
    const four = await trends(pageviews({ breakdownFilter: { breakdown: "$browser", breakdown_limit: 4 } }));
    expect(byValue(four).map(([value]) => value)).toEqual(["Chrome", "Edge", BREAKDOWN_NULL, "Safari", BREAKDOWN_OTHER]);
    expect(four.at(-1)!.data).toEqual([0, 1, 0, 1]);
    const hidden = await compute(projectId, pageviews({ breakdownFilter: { breakdown: "$browser", breakdown_limit: 2, breakdown_hide_other_aggregation: true } }));
    expect((hidden.result as TrendsSeriesResult[]).map((r) => r.breakdown_value)).toEqual(["Chrome", "Edge"]);
    expect(hidden.hasMore).toBe(true);
  });

  it("the default limit is ten values plus other", async () => {
    await insertAnonymous(projectId, Array.from({ length: 12 }, (_, i) => ({ distinctId: `v${i}`, event: "variant_seen", timestamp: "2024-03-03T12:00:00.000Z", properties: { variant: `v${String(i).padStart(2, "0")}` } })));
    const results = await trends({ kind: "TrendsQuery", series: [{ event: "variant_seen" }], dateRange: MARCH_1_TO_4, breakdownFilter: { breakdown: "variant" } });
    // All tie at one event: the ten largest values stay (v11 … v02), v00 and v01 fold.
    expect(results.map((r) => r.breakdown_value)).toEqual([...Array.from({ length: 10 }, (_, i) => `v${String(i + 2).padStart(2, "0")}`), BREAKDOWN_OTHER]);
    expect(results.at(-1)!.data).toEqual([0, 0, 2, 0]);
  });

  it("counts unique users of other once when they appear under several folded values", async () => {
    const results = await trends(pageviews({ series: [{ event: "$pageview", math: "dau" }], breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 } }));
    // dave has a null and an Opera pageview on 4 March: one user there.
    expect(byValue(results)).toEqual([
      ["Chrome", [2, 2, 0, 0], 4],
      [BREAKDOWN_OTHER, [1, 3, 0, 2], 6],
    ]);
  });

  it("breaks down by a person property, labelling series with their event when there are several", async () => {
    const results = await trends({
      kind: "TrendsQuery",
      series: [{ event: "$pageview" }, { event: "purchase" }],
      dateRange: MARCH_1_TO_4,
      breakdownFilter: { breakdown: "plan", breakdown_type: "person" },
    });
    expect(results.map((r) => [r.label, r.data])).toEqual([
      [`$pageview - ${BREAKDOWN_NULL}`, [1, 4, 0, 3]],
      ["$pageview - pro", [2, 2, 0, 0]],
      [`purchase - ${BREAKDOWN_NULL}`, [0, 1, 0, 0]],
    ]);
  });

  it("counts per hour, from the start of date_from's hour to the very date_to", async () => {
    const [series] = await trends(pageviews({ interval: "hour", dateRange: { date_from: "2024-03-02T09:15:00", date_to: "2024-03-02T12:00:00" } }));
    expect(series!.data).toEqual([2, 1, 1, 1]);
    expect(series!.labels).toEqual(["2-Mar 09:00", "2-Mar 10:00", "2-Mar 11:00", "2-Mar 12:00"]);
    expect(series!.days).toEqual(["2024-03-02 09:00:00", "2024-03-02 10:00:00", "2024-03-02 11:00:00", "2024-03-02 12:00:00"]);
  });

  it("counts per week from the Sunday before date_from, labelled with the days inside the range", async () => {
    const [series] = await trends(pageviews({ interval: "week", dateRange: { date_from: "2024-03-01", date_to: "2024-03-10" } }));
    // The week of 25 Feb counts from its Sunday (zed's 29 Feb pageview too), as PostHog does.
    expect(series!.days).toEqual(["2024-02-25", "2024-03-03", "2024-03-10"]);
    expect(series!.data).toEqual([10, 4, 0]);
    expect(series!.labels).toEqual(["1–2 Mar", "3–9 Mar", "10-Mar-2024"]);
  });

  it("counts per month", async () => {
    const [series] = await trends(pageviews({ interval: "month", dateRange: { date_from: "2024-02-01", date_to: "2024-03-31" } }));
    expect([series!.data, series!.labels, series!.days]).toEqual([[1, 13], ["Feb 2024", "Mar 2024"], ["2024-02-01", "2024-03-01"]]);
  });

  it("includes both ends of the range to the millisecond, and nothing outside", async () => {
    expect((await trends(pageviews({ dateRange: { date_from: "2024-03-02", date_to: "2024-03-02" } })))[0]!.data).toEqual([6]);
    expect((await trends(pageviews({ dateRange: { date_from: "2024-02-29", date_to: "2024-03-05" } })))[0]!.data).toEqual([1, 3, 6, 0, 3, 1]);
  });

  it("answers zeros for a range without events, and no series for a breakdown there", async () => {
    const empty = { date_from: "2023-01-01", date_to: "2023-01-03" };
    expect((await trends(pageviews({ dateRange: empty })))[0]!.data).toEqual([0, 0, 0]);
    expect(await trends(pageviews({ dateRange: empty, breakdownFilter: { breakdown: "$browser" } }))).toEqual([]);
    expect((await trends(pageviews({ series: [{ event: "never_sent" }] })))[0]!.data).toEqual([0, 0, 0, 0]);
  });

  it("reads relative dates from now: days from midnight, hours from the very time", async () => {
    const now = new Date("2024-03-04T12:00:00.000Z");
    expect((await trends(pageviews({ dateRange: { date_from: "-3d" } }), projectId, now))[0]!.data).toEqual([3, 6, 0, 3]);
    // -11h is 01:00 on 4 March: carol's pageview at midnight is before it.
    const [hours] = await trends(pageviews({ dateRange: { date_from: "-11h" } }), projectId, now);
    expect([hours!.days, hours!.data]).toEqual([["2024-03-04"], [2]]);
    const answer = await compute(projectId, pageviews({ dateRange: { date_from: "-1dStart", date_to: "-1dEnd" } }), { now });
    expect((answer.result as TrendsSeriesResult[])[0]!.data).toEqual([0]);
    expect(answer.resolved_date_range).toEqual({ date_from: "2024-03-03T00:00:00+00:00", date_to: "2024-03-03T23:59:59+00:00" });
  });

  it("answers the number display with one value over the range", async () => {
    const total = await trends(pageviews({ trendsFilter: { display: "BoldNumber" } }));
    expect(total.map((r) => [r.aggregated_value, r.count, r.data, r.days])).toEqual([[12, 0, [], ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"]]]);
    const users = await trends(pageviews({ series: [{ event: "$pageview", math: "dau" }], trendsFilter: { display: "BoldNumber" } }));
    // alice, bob, ghost-1, ghost-2, carol, dave.
    expect(users[0]!.aggregated_value).toBe(6);
    const pie = await trends(pageviews({ trendsFilter: { display: "ActionsPie" }, breakdownFilter: { breakdown: "$browser", breakdown_limit: 2 } }));
    expect(pie.map((r) => [r.breakdown_value, r.aggregated_value])).toEqual([
      ["Chrome", 4],
      ["Edge", 3],
      [BREAKDOWN_OTHER, 5],
    ]);
  });

  it("gives the number its sparkline per day and, with compare, the previous period's number", async () => {
    const [total] = await trends(pageviews({ trendsFilter: { display: "BoldNumber" } }));
    expect([total!.aggregated_value, total!.sparkline]).toEqual([12, [3, 6, 0, 3]]);
    // Unique users per day (alice and bob on the 1st; alice, bob and two ghosts on the 2nd; carol and dave on the 4th) do not add up to the range's 6.
    const [users] = await trends(pageviews({ series: [{ event: "$pageview", math: "dau" }], trendsFilter: { display: "BoldNumber" } }));
    expect([users!.aggregated_value, users!.sparkline]).toEqual([6, [2, 4, 0, 2]]);
    const compared = await trends(pageviews({ trendsFilter: { display: "BoldNumber" }, compareFilter: { compare: true } }));
    // The four days before: zed's page view late on 29 February.
    expect(compared.map((r) => [r.compare_label, r.aggregated_value, r.sparkline])).toEqual([
      ["current", 12, [3, 6, 0, 3]],
      ["previous", 1, [0, 0, 0, 1]],
    ]);
    const [formula] = await trends(pageviews({ series: [{ event: "$pageview" }, { event: "purchase" }], trendsFilter: { display: "BoldNumber", formula: "A+B" } }));
    expect([formula!.aggregated_value, formula!.sparkline]).toEqual([13, [3, 7, 0, 3]]);
    const [line] = await trends(pageviews({}));
    expect(line!.sparkline).toBeUndefined();
  });

  it("buckets in the project's time zone, across a DST change", async () => {
    const answer = await compute(nyProjectId, { kind: "TrendsQuery", series: [{ event: "$pageview" }], dateRange: { date_from: "2024-03-09", date_to: "2024-03-11" } });
    expect((answer.result as TrendsSeriesResult[])[0]!.data).toEqual([1, 2, 1]);
    expect(answer.timezone).toBe("America/New_York");
    expect(answer.resolved_date_range).toEqual({ date_from: "2024-03-09T00:00:00-05:00", date_to: "2024-03-11T23:59:59-04:00" });
    const hourly = await trends({ kind: "TrendsQuery", interval: "hour", series: [{ event: null }], dateRange: { date_from: "2024-03-09T23:00", date_to: "2024-03-10T00:59" } }, nyProjectId);
    expect(hourly[0]!.data).toEqual([1, 1]);
    // An offset in the date makes it an instant: 05:00Z is midnight in New York.
    const instant = await trends({ kind: "TrendsQuery", series: [{ event: null }], interval: "hour", dateRange: { date_from: "2024-03-10T05:00:00Z", date_to: "2024-03-10T05:30:00Z" } }, nyProjectId);
    expect([instant[0]!.days, instant[0]!.data]).toEqual([["2024-03-10 00:00:00"], [1]]);
  });

  it("lays a dashboard's filters over the query: dates replace, properties add", async () => {
    const answer = await compute(projectId, pageviews(), {
      filtersOverride: { date_from: "2024-03-02", date_to: "2024-03-02", properties: { type: "AND", values: [{ type: "event", key: "$browser", operator: "exact", value: ["Chrome"], negation: false }] } },
    });
    expect((answer.result as TrendsSeriesResult[])[0]!.data).toEqual([2]);
  });

  it("serves a result from the cache until refreshed", async () => {
    const query = pageviews({ series: [{ event: "cache_probe" }] });
    const first = await compute(projectId, query);
    expect([first.is_cached, (first.result as TrendsSeriesResult[])[0]!.count]).toEqual([false, 0]);
    await insertAnonymous(projectId, [{ distinctId: "late", event: "cache_probe", timestamp: "2024-03-02T00:00:00.000Z" }]);
    const second = await compute(projectId, query);
    expect([second.is_cached, (second.result as TrendsSeriesResult[])[0]!.count, second.computed_at, second.last_refresh]).toEqual([true, 0, first.computed_at, first.computed_at]);
    // Key order and defaults do not make another entry.
    const reordered = await compute(projectId, { dateRange: MARCH_1_TO_4, interval: "day", series: [{ math: "total", event: "cache_probe" }], kind: "TrendsQuery" });
    expect(reordered.is_cached).toBe(true);
    const refreshed = await compute(projectId, query, { refresh: "force" });
    expect([refreshed.is_cached, (refreshed.result as TrendsSeriesResult[])[0]!.count]).toEqual([false, 1]);
    expect(Date.parse(refreshed.computed_at!)).toBeGreaterThanOrEqual(Date.parse(first.computed_at!));
    expect(Date.parse(refreshed.cache_target_age!) - Date.parse(refreshed.computed_at!)).toBe(60_000);
    // Another dashboard filter is another entry.
    const filtered = await compute(projectId, query, { filtersOverride: { date_from: "2024-03-02", date_to: "2024-03-02" } });
    expect([filtered.is_cached, (filtered.result as TrendsSeriesResult[])[0]!.data]).toEqual([false, [1]]);
    expect((await compute(projectId, pageviews({ series: [{ event: "not_cached_yet" }] }), { refresh: "cache_only" })).result).toBeNull();
  });

  it("answers a rejected regular expression as a 400, not a 500", async () => {
    await expect(trends(pageviews({ properties: [{ key: "$browser", operator: "regex", value: "(?<name>a)b" }] }))).rejects.toMatchObject({ code: "invalid_input" });
  });
});

describe(`trends with cohorts (${testStoresName})`, () => {
  const cohorts: Record<string, number> = {};

  const defineCohort = async (name: string, distinctIds: string[], options: { deleted?: boolean; isStatic?: boolean } = {}) => {
    cohorts[name] = await insertTestCohort(db.sql, projectId, name, { ...options, distinctIds });
  };

  beforeAll(async () => {
    await defineCohort("Pros", ["alice"]);
    await defineCohort("Bob and Carol", ["bob", "carol"], { isStatic: true });
    await defineCohort("Nobody", []);
    await defineCohort("Deleted", ["alice"], { deleted: true });
  });

  const inCohort = (name: string, extra: Record<string, unknown> = {}) => ({ type: "cohort", key: "id", value: cohorts[name], ...extra });

  it("filters by cohort, per query and per series, following merges (anon-x is alice)", async () => {
    // Every pageview of 1–4 March: [3, 6, 0, 3].
    expect((await trends(pageviews({ properties: [inCohort("Pros")] })))[0]!.data).toEqual([2, 2, 0, 0]);
    expect((await trends(pageviews({ series: [{ event: "$pageview", properties: [inCohort("Bob and Carol")] }] })))[0]!.data).toEqual([1, 1, 0, 1]);
    // Not in: everyone else, the person-less ghosts included.
    expect((await trends(pageviews({ properties: [inCohort("Pros", { operator: "not_in" })] })))[0]!.data).toEqual([1, 4, 0, 3]);
    expect((await trends(pageviews({ properties: { type: "OR", values: [inCohort("Pros"), inCohort("Bob and Carol")] } })))[0]!.data).toEqual([3, 3, 0, 1]);
    expect((await trends(pageviews({ properties: [inCohort("Nobody")] })))[0]!.data).toEqual([0, 0, 0, 0]);
    const users = await trends(pageviews({ series: [{ event: "$pageview", math: "dau" }], properties: [inCohort("Bob and Carol", { negation: true })] }));
    expect(users[0]!.data).toEqual([1, 3, 0, 1]);
  });

  it("breaks down by cohorts: one series per cohort in the order given, labelled with its name, 'all' for everyone", async () => {
    const results = await trends(pageviews({ breakdownFilter: { breakdown_type: "cohort", breakdown: [cohorts["Bob and Carol"], "all", String(cohorts.Pros), cohorts.Nobody] } }));
    expect(results.map((r) => [r.breakdown_value, r.label, r.data, r.count])).toEqual([
      [cohorts["Bob and Carol"], "$pageview - Bob and Carol", [1, 1, 0, 1], 3],
      ["all", "$pageview - all users", [3, 6, 0, 3], 12],
      [cohorts.Pros, "$pageview - Pros", [2, 2, 0, 0], 4],
      [cohorts.Nobody, "$pageview - Nobody", [0, 0, 0, 0], 0],
    ]);
    // PostHog's newer clients send 0 for "all" (ALL_USERS_COHORT_ID); one value need not be a list.
    const everyone = await trends(pageviews({ breakdownFilter: { breakdown_type: "cohort", breakdown: [0, "all"] } }));
    expect(everyone.map((r) => [r.breakdown_value, r.count])).toEqual([["all", 12]]);
    const answer = await compute(projectId, pageviews({ breakdownFilter: { breakdown_type: "cohort", breakdown: cohorts.Pros } }));
    expect(answer.hasMore).toBe(false);
    expect((answer.result as TrendsSeriesResult[]).map((r) => [r.breakdown_value, r.data])).toEqual([[cohorts.Pros, [2, 2, 0, 0]]]);
  });

  it("breaks down several series by cohorts, with filters, unique users and the number display", async () => {
    const results = await trends({
      kind: "TrendsQuery",
      series: [{ event: "$pageview", math: "dau" }, { event: "purchase" }],
      dateRange: MARCH_1_TO_4,
      properties: [{ key: "$browser", operator: "is_not", value: "Safari" }],
      breakdownFilter: { breakdown_type: "cohort", breakdown: [cohorts.Pros, cohorts["Bob and Carol"]] },
    });
    expect(results.map((r) => [r.label, r.data])).toEqual([
      ["$pageview - Pros", [1, 1, 0, 0]],
      ["$pageview - Bob and Carol", [1, 1, 0, 1]],
      ["purchase - Pros", [0, 0, 0, 0]],
      ["purchase - Bob and Carol", [0, 1, 0, 0]],
    ]);
    const number = await trends(pageviews({ trendsFilter: { display: "BoldNumber" }, breakdownFilter: { breakdown_type: "cohort", breakdown: ["all", cohorts.Pros] } }));
    expect(number.map((r) => [r.breakdown_value, r.aggregated_value])).toEqual([
      ["all", 12],
      [cohorts.Pros, 4],
    ]);
  });

  it("breaks down property maths and weekly active users by cohort, and by a person property", async () => {
    const sum = { event: "purchase", math: "sum", math_property: "amount" };
    const byCohort = { breakdown_type: "cohort", breakdown: [cohorts["Bob and Carol"], cohorts.Pros] };
    expect((await trends(pageviews({ series: [sum], breakdownFilter: byCohort }))).map((r) => [r.breakdown_value, r.data])).toEqual([
      [cohorts["Bob and Carol"], [0, 30, 0, 0]],
      [cohorts.Pros, [0, 0, 0, 0]],
    ]);
    // Each day's week back to 24 Feb: zed's pageview of 29 Feb counts, though outside the range.
    const weekly = { event: "$pageview", math: "weekly_active" };
    expect((await trends(pageviews({ series: [weekly], breakdownFilter: { ...byCohort, breakdown: [...byCohort.breakdown, "all"] } }))).map((r) => [r.breakdown_value, r.data])).toEqual([
      [cohorts["Bob and Carol"], [1, 1, 1, 2]],
      [cohorts.Pros, [1, 1, 1, 1]],
      ["all", [3, 5, 5, 7]],
    ]);
    const byPlan = { breakdown: "plan", breakdown_type: "person" };
    expect(byValue(await trends(pageviews({ series: [weekly], breakdownFilter: byPlan })))).toEqual([
      [BREAKDOWN_NULL, [2, 4, 4, 6], 16],
      ["pro", [1, 1, 1, 1], 4],
    ]);
    expect(byValue(await trends(pageviews({ series: [sum], breakdownFilter: byPlan })))).toEqual([[BREAKDOWN_NULL, [0, 30, 0, 0], 30]]);
  });

  it("answers 400 for an unknown or deleted cohort, in filters and in the breakdown, and for a breakdown that is no list of cohorts", async () => {
    await expect(trends(pageviews({ properties: [inCohort("Deleted")] }))).rejects.toMatchObject({ code: "invalid_input", attr: "properties" });
    await expect(trends(pageviews({ breakdownFilter: { breakdown_type: "cohort", breakdown: [cohorts.Pros, 2_000_000_000] } }))).rejects.toMatchObject({
      code: "invalid_input",
      attr: "breakdown",
      message: "breakdown: cohort 2000000000 does not exist in this project (or was deleted).",
    });
    for (const breakdown of ["$browser", [], Array.from({ length: 26 }, (_, i) => i + 1), [2 ** 31], [-1], [1.5], [null], [{}], ["1e3"]]) {
      await expect(trends(pageviews({ breakdownFilter: { breakdown_type: "cohort", breakdown } })), JSON.stringify(breakdown)).rejects.toThrow(/A cohort breakdown takes a cohort id/);
    }
    await expect(trends(pageviews({ breakdownFilter: { breakdown_type: "event", breakdown: [1] } }))).rejects.toThrow(/property name/);
  });
});
