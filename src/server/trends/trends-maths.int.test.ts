/**
 * Trends' maths, formulas, comparison, displays and the actors behind a point, over a small
 * set of `buy` events whose answers are worked out by hand in the comments. Persons are
 * fixed uuids (no persons rows: unique users count `person_id`), one buyer has none.
 *
 *   u3  24 Feb  buy                         (a week before the range: weekly active on 1 Mar only)
 *   u1  27 Feb  buy amount 5                 (before the range)
 *   u1   1 Mar  09:00 buy 10   s1 Chrome GB
 *   u1   1 Mar  10:00 buy "20" s1 Chrome GB   (a numeric string counts)
 *   u2   1 Mar  12:00 buy 30   s3 Firefox US
 *   u1   2 Mar  09:00 buy "abc" s2 Firefox    (not a number: left out of property maths)
 *   u1   2 Mar  11:00 view         Safari
 *   u2   3 Mar  12:00 buy 40   s4 Chrome US
 *   anon 4 Mar  08:00 buy 1.5      Chrome FR  (no person, no session)
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { clearInsightCache, computeInsight } from "@/server/insights/service";
import { AppError } from "@/server/errors";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, trendsKind, type TrendsSeriesResult } from "./service";

let db: Database;
let projectId: number;

const U1 = "00000000-0000-4000-8000-000000000001";
const U2 = "00000000-0000-4000-8000-000000000002";
const U3 = "00000000-0000-4000-8000-000000000003";
const ANON = "distinct_id:anon";

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "maths@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const event = (distinctId: string, personId: string | null, timestamp: string, properties: Record<string, unknown>, name = "buy") => ({
    uuid: randomUUID(),
    projectId,
    event: name,
    distinctId,
    personId,
    properties,
    timestamp: new Date(timestamp),
  });
  await db.events.insert([
    event("d3", U3, "2024-02-24T10:00:00.000Z", {}),
    event("d1", U1, "2024-02-27T10:00:00.000Z", { amount: 5 }),
    event("d1", U1, "2024-03-01T09:00:00.000Z", { amount: 10, $session_id: "s1", $browser: "Chrome", $geoip_country_code: "GB" }),
    event("d1", U1, "2024-03-01T10:00:00.000Z", { amount: "20", $session_id: "s1", $browser: "Chrome", $geoip_country_code: "GB" }),
    event("d2", U2, "2024-03-01T12:00:00.000Z", { amount: 30, $session_id: "s3", $browser: "Firefox", $geoip_country_code: "US" }),
    event("d1", U1, "2024-03-02T09:00:00.000Z", { amount: "abc", $session_id: "s2", $browser: "Firefox" }),
    event("d1", U1, "2024-03-02T11:00:00.000Z", { $browser: "Safari" }, "view"),
    event("d2", U2, "2024-03-03T12:00:00.000Z", { amount: 40, $session_id: "s4", $browser: "Chrome", $geoip_country_code: "US" }),
    event("anon", null, "2024-03-04T08:00:00.000Z", { amount: 1.5, $browser: "Chrome", $geoip_country_code: "FR" }),
  ]);
});

afterAll(async () => {
  await closeDb();
});

beforeEach(() => clearInsightCache(db));

const RANGE = { date_from: "2024-03-01", date_to: "2024-03-04" };
const DAYS = ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"];

async function trends(query: Record<string, unknown>): Promise<TrendsSeriesResult[]> {
  return (await computeInsight(db, projectId, { query: { kind: "TrendsQuery", dateRange: RANGE, ...query } })).result as TrendsSeriesResult[];
}
const buy = (extra: Record<string, unknown> = {}) => ({ kind: "EventsNode", event: "buy", ...extra });
const dataOf = async (query: Record<string, unknown>) => (await trends(query)).map((r) => r.data);
const byValue = (results: TrendsSeriesResult[]) => Object.fromEntries(results.map((r) => [String(r.breakdown_value), r.aggregated_value ?? r.data]));

async function actors(query: Record<string, unknown>, selector: Record<string, unknown>): Promise<string[]> {
  const spec = trendsKind.spec({ kind: "TrendsQuery", dateRange: RANGE, ...query }, null);
  return trendsKind.actors!({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") }, spec, selector);
}

async function refused(query: Record<string, unknown>): Promise<string> {
  try {
    await trends(query);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("invalid_input");
    return (error as Error).message;
  }
  throw new Error("expected a 400");
}

describe(`trends maths (${testStoresName})`, () => {
  it("total counts events, dau unique users (the anonymous buyer by distinct id), unique_session distinct $session_ids", async () => {
    expect(await dataOf({ series: [buy(), buy({ math: "dau" }), buy({ math: "unique_session" })] })).toEqual([
      [3, 1, 1, 1],
      [2, 1, 1, 1],
      // 1 Mar: s1, s3. 4 Mar: no session.
      [2, 1, 1, 0],
    ]);
  });

  it("property maths aggregate the numeric values of math_property per day, numeric strings in and other text out", async () => {
    const maths = ["sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99"];
    const results = await trends({ series: maths.map((math) => buy({ math, math_property: "amount" })) });
    const expected: Record<string, number[]> = {
      // 1 Mar: 10, 20, 30. 2 Mar: only "abc", so 0. 3 Mar: 40. 4 Mar: 1.5.
      sum: [60, 0, 40, 1.5],
      avg: [20, 0, 40, 1.5],
      min: [10, 0, 40, 1.5],
      max: [30, 0, 40, 1.5],
      // Interpolated between the ordered values (10, 20, 30).
      median: [20, 0, 40, 1.5],
      p75: [25, 0, 40, 1.5],
      p90: [28, 0, 40, 1.5],
      p95: [29, 0, 40, 1.5],
      p99: [29.8, 0, 40, 1.5],
    };
    results.forEach((result, i) => {
      const math = maths[i]!;
      expect(result.action!.math).toBe(math);
      expect(result.action!.math_property).toBe("amount");
      result.data.forEach((value, day) => expect(value, `${math} on ${DAYS[day]}`).toBeCloseTo(expected[math]![day]!, 9));
    });
  });

  it("numbers too large for float8 are left out of property maths instead of failing the query (a project key is public)", async () => {
    // 1e300 as JSON twice would overflow a float8 sum; "1e400" overflows the cast itself; 120
    // nines are a number no analytics value is. A short decimal number with a two-digit exponent
    // ("1e99") still counts, and numbers that large never overflow a sum.
    const amounts = [1e300, 1e300, "1e400", "9".repeat(120), "-1e400", "1e99", 2];
    await db.events.insert(
      amounts.map((amount, i) => ({
        uuid: randomUUID(),
        projectId,
        event: "pay",
        distinctId: "d1",
        personId: U1,
        properties: { amount },
        timestamp: new Date(`2024-03-01T09:0${i}:00.000Z`),
      })),
    );
    const pay = (math: string) => ({ kind: "EventsNode", event: "pay", math, math_property: "amount" });
    const results = await trends({ series: ["sum", "avg", "min", "max", "median"].map(pay) });
    const firstDay = results.map((result) => result.data[0]!);
    expect(firstDay[0]).toBeCloseTo(1e99 + 2, -90);
    expect(firstDay[1]).toBeCloseTo((1e99 + 2) / 2, -90);
    expect(firstDay[2]).toBe(2);
    expect(firstDay[3]).toBeCloseTo(1e99, -90);
    expect(firstDay[4]).toBeCloseTo((1e99 + 2) / 2, -90);
    expect(results.map((result) => result.data.slice(1))).toEqual(results.map(() => [0, 0, 0]));
  });

  it("property maths over the whole range for a number display: 1.5, 10, 20, 30, 40", async () => {
    const results = await trends({
      series: ["sum", "avg", "min", "max", "median", "p75", "p90"].map((math) => buy({ math, math_property: "amount" })),
      trendsFilter: { display: "BoldNumber" },
    });
    const values = results.map((r) => r.aggregated_value!);
    [101.5, 20.3, 1.5, 40, 20, 30, 36].forEach((expected, i) => expect(values[i]).toBeCloseTo(expected, 9));
  });

  it("a property math per breakdown value, the values past the limit in other", async () => {
    const sum = buy({ math: "sum", math_property: "amount" });
    expect(byValue(await trends({ series: [sum], breakdownFilter: { breakdown: "$browser" } }))).toEqual({
      Chrome: [30, 0, 40, 1.5],
      Firefox: [30, 0, 0, 0],
    });
    // Chrome has 4 events, Firefox 2: Firefox folds into other.
    const limited = await trends({ series: [sum], breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 }, trendsFilter: { display: "ActionsPie" } });
    expect(byValue(limited)).toEqual({ Chrome: 71.5, [BREAKDOWN_OTHER]: 30 });
    expect(byValue(await trends({ series: [buy({ math: "dau" })], breakdownFilter: { breakdown: "$browser" } }))).toEqual({
      Chrome: [1, 0, 1, 1],
      Firefox: [1, 1, 0, 0],
    });
    // Sessions: Chrome s1 (twice on 1 Mar) and s4, the anonymous Chrome buy has none; Firefox s3 and s2.
    const sessions = buy({ math: "unique_session" });
    expect(byValue(await trends({ series: [sessions], breakdownFilter: { breakdown: "$browser" } }))).toEqual({
      Chrome: [1, 0, 1, 0],
      Firefox: [1, 1, 0, 0],
    });
    expect(byValue(await trends({ series: [sessions], breakdownFilter: { breakdown: "$browser" }, trendsFilter: { display: "BoldNumber" } }))).toEqual({ Chrome: 2, Firefox: 2 });
    const [whole] = await trends({ series: [sessions, buy({ math: "dau" })], trendsFilter: { display: "BoldNumber" } });
    expect(whole!.aggregated_value).toBe(4);
  });

  it("weekly and monthly active users: unique users of the 7 or 30 days ending each day, looking back before the range", async () => {
    const [weekly, monthly] = await trends({ series: [buy({ math: "weekly_active" }), buy({ math: "monthly_active" })] });
    // 1 Mar's week is 24 Feb – 1 Mar: u3 (24 Feb), u1, u2. 2 Mar's starts 25 Feb: u3 is out. 4 Mar: anon too.
    expect(weekly!.data).toEqual([3, 2, 2, 3]);
    expect(monthly!.data).toEqual([3, 3, 3, 4]);
    expect(weekly!.action!.math).toBe("weekly_active");
  });

  it("weekly active users per breakdown value; on a number, the users of the last 7 days; on a weekly chart, daily users", async () => {
    const results = await trends({ series: [buy({ math: "weekly_active" })], breakdownFilter: { breakdown: "$browser" } });
    // Chrome: u1 from 1 Mar, u2 from 3 Mar, anon on 4 Mar. Firefox: u2 from 1 Mar, u1 from 2 Mar.
    // The events before the range have no browser and the range none without one: no null value.
    expect(byValue(results)).toEqual({ Chrome: [1, 1, 2, 3], Firefox: [1, 2, 2, 2] });
    const [bold] = await trends({ series: [buy({ math: "weekly_active" })], trendsFilter: { display: "BoldNumber" } });
    // 26 Feb 23:59:59.999 to 4 Mar: u1, u2, anon.
    expect(bold!.aggregated_value).toBe(3);
    const [weeks] = await trends({ series: [buy({ math: "weekly_active" })], interval: "week" });
    expect(weeks!.action!.math).toBe("dau");
  });

  it("refuses unsupported maths and property maths without math_property", async () => {
    expect(await refused({ series: [buy({ math: "hogql" })] })).toMatch(/math 'hogql' is not supported/);
    expect(await refused({ series: [buy({ math: "sum" })] })).toMatch(/needs math_property/);
    expect(await refused({ series: [buy({ math: "avg_count_per_actor" })] })).toMatch(/not supported/);
  });
});

describe(`trends formulas (${testStoresName})`, () => {
  it("applies a formula point by point, labelled as PostHog's, division by zero giving 0", async () => {
    const [ratio, ...rest] = await trends({ series: [buy(), buy({ math: "dau" })], trendsFilter: { formula: "A/B" } });
    expect(rest).toEqual([]);
    expect(ratio).toMatchObject({ label: "Formula (A/B)", data: [1.5, 1, 1, 1], count: 4.5, days: DAYS, action: null });
    const [percent] = await trends({ series: [buy(), { event: "view" }], trendsFilter: { formula: "A/B*100" } });
    expect(percent!.data).toEqual([0, 100, 0, 0]);
  });

  it("formulaNodes come out in order with their custom names; precedence, parentheses, unary minus and lower-case letters", async () => {
    const results = await trends({
      series: [buy(), buy({ math: "dau" })],
      trendsFilter: { formulaNodes: [{ formula: "(a + b) * 2", custom_name: "Doubled" }, { formula: "-A + B * 2 ** 2" }], formula: "A" },
    });
    expect(results.map((r) => [r.label, r.data])).toEqual([
      ["Doubled", [10, 4, 4, 4]],
      ["Formula (-A + B * 2 ** 2)", [5, 3, 3, 3]],
    ]);
    const legacy = await trends({ series: [buy(), buy({ math: "dau" })], trendsFilter: { formulas: ["A-B", "A+1"] } });
    expect(legacy.map((r) => r.data)).toEqual([
      [1, 0, 0, 0],
      [4, 2, 2, 2],
    ]);
  });

  it("with a breakdown, matches the series by value (zeros where a series lacks it), largest first", async () => {
    const results = await trends({ series: [buy(), { event: "view" }], breakdownFilter: { breakdown: "$browser" }, trendsFilter: { formula: "A+B" } });
    expect(results.map((r) => [r.label, r.breakdown_value, r.data, r.count])).toEqual([
      ["Formula (A+B)", "Chrome", [2, 0, 1, 1], 4],
      ["Formula (A+B)", "Firefox", [1, 1, 0, 0], 2],
      ["Formula (A+B)", "Safari", [0, 1, 0, 0], 1],
    ]);
  });

  it("on a total value, the formula of the aggregated values", async () => {
    const [result] = await trends({ series: [buy(), buy({ math: "dau" })], trendsFilter: { formula: "A/B", display: "BoldNumber" } });
    // 6 buys by 3 users.
    expect(result).toMatchObject({ label: "Formula (A/B)", aggregated_value: 2, count: 0, data: [] });
  });

  it("refuses formulas that do not parse, call anything, or name a missing series", async () => {
    const two = [buy(), buy({ math: "dau" })];
    expect(await refused({ series: two, trendsFilter: { formula: "A/" } })).toMatch(/trendsFilter\.formula/);
    expect(await refused({ series: two, trendsFilter: { formula: "A+C" } })).toMatch(/references series C, but only 2 series are defined \(A, B\)/);
    expect(await refused({ series: two, trendsFilter: { formula: "abs(A)" } })).toMatch(/not 'abs'/);
    expect(await refused({ series: two, trendsFilter: { formulaNodes: [{ formula: "A; B" }] } })).toMatch(/formulaNodes.*not ';'/);
  });
});

describe(`trends compare and displays (${testStoresName})`, () => {
  const MARCH_3_TO_4 = { date_from: "2024-03-03", date_to: "2024-03-04" };

  it("compare: the current period, then the same number of days just before it", async () => {
    const results = await trends({ series: [buy()], dateRange: MARCH_3_TO_4, compareFilter: { compare: true } });
    expect(results.map((r) => [r.compare, r.compare_label, r.days, r.data, r.labels])).toEqual([
      [true, "current", ["2024-03-03", "2024-03-04"], [1, 1], ["3-Mar-2024", "4-Mar-2024"]],
      [true, "previous", ["2024-03-01", "2024-03-02"], [3, 1], ["1-Mar-2024", "2-Mar-2024"]],
    ]);
  });

  it("compare_to moves the previous period back by that much; compare: false compares nothing", async () => {
    const results = await trends({ series: [buy()], dateRange: MARCH_3_TO_4, compareFilter: { compare: true, compare_to: "-3d" } });
    expect(results.map((r) => [r.compare_label, r.days, r.data])).toEqual([
      ["current", ["2024-03-03", "2024-03-04"], [1, 1]],
      ["previous", ["2024-02-29", "2024-03-01"], [0, 3]],
    ]);
    const [only, ...none] = await trends({ series: [buy()], dateRange: MARCH_3_TO_4, compareFilter: { compare: false } });
    expect(none).toEqual([]);
    expect(only!.compare).toBeUndefined();
  });

  it("compare with a formula: the formula per period, current first", async () => {
    const results = await trends({ series: [buy(), buy({ math: "dau" })], dateRange: MARCH_3_TO_4, compareFilter: { compare: true }, trendsFilter: { formula: "A/B" } });
    expect(results.map((r) => [r.label, r.compare_label, r.data])).toEqual([
      ["Formula (A/B)", "current", [1, 1]],
      ["Formula (A/B)", "previous", [1.5, 1]],
    ]);
  });

  it("compare with a formula and a breakdown: values matched within each period", async () => {
    const results = await trends({
      series: [buy(), buy({ math: "dau" })],
      dateRange: MARCH_3_TO_4,
      compareFilter: { compare: true },
      breakdownFilter: { breakdown: "$browser" },
      trendsFilter: { formula: "A/B" },
    });
    // Current: Chrome only (u2 on 3 Mar, anon on 4 Mar). Previous: Chrome 2 buys by u1 on 1 Mar; Firefox u2, then u1.
    expect(results.map((r) => [r.compare_label, r.breakdown_value, r.data])).toEqual([
      ["current", "Chrome", [1, 1]],
      ["previous", "Chrome", [2, 0]],
      ["previous", "Firefox", [1, 1]],
    ]);
  });

  it("time-series displays chart each day; the cumulative one adds up, its count the last value", async () => {
    for (const display of ["ActionsLineGraph", "ActionsBar", "ActionsAreaGraph"]) {
      const [series] = await trends({ series: [buy()], trendsFilter: { display } });
      expect(series).toMatchObject({ data: [3, 1, 1, 1], count: 6, days: DAYS });
      expect(series!.aggregated_value).toBeUndefined();
    }
    const [cumulative] = await trends({ series: [buy()], trendsFilter: { display: "ActionsLineGraphCumulative" } });
    expect(cumulative).toMatchObject({ data: [3, 4, 5, 6], count: 6 });
  });

  it("a cumulative chart of unique users counts each user once, from their first day (per breakdown value too)", async () => {
    const display = { display: "ActionsLineGraphCumulative" };
    const [users] = await trends({ series: [buy({ math: "dau" })], trendsFilter: display });
    // u1 and u2 on 1 Mar, anon on 4 Mar.
    expect(users).toMatchObject({ data: [2, 2, 2, 3], count: 3 });
    const byBrowser = await trends({ series: [buy({ math: "dau" })], trendsFilter: display, breakdownFilter: { breakdown: "$browser" } });
    expect(byValue(byBrowser)).toEqual({ Chrome: [1, 1, 2, 3], Firefox: [1, 2, 2, 2] });
  });

  it("total-value displays give aggregated_value with no data", async () => {
    for (const display of ["BoldNumber", "ActionsPie", "ActionsBarValue", "ActionsTable"]) {
      const [series] = await trends({ series: [buy()], trendsFilter: { display } });
      expect(series).toMatchObject({ aggregated_value: 6, count: 0, data: [], labels: [], days: DAYS });
    }
  });

  it("WorldMap breaks down by $geoip_country_code with total values", async () => {
    const results = await trends({ series: [buy()], trendsFilter: { display: "WorldMap" } });
    // The "abc" buy has no country.
    expect(byValue(results)).toEqual({ GB: 2, US: 2, FR: 1, [BREAKDOWN_NULL]: 1 });
    expect(results.map((r) => r.breakdown_value).slice(0, 2)).toEqual(["GB", "US"]);
    expect(results.every((r) => r.data.length === 0 && r.count === 0)).toBe(true);
  });
});

describe(`trends actors (${testStoresName})`, () => {
  it("the persons behind a day, most events first; events without a person by distinct id", async () => {
    expect(await actors({ series: [buy()] }, { day: "2024-03-01", series: 0 })).toEqual([U1, U2]);
    expect(await actors({ series: [buy()] }, { day: "2024-03-04" })).toEqual([ANON]);
    expect(await actors({ series: [buy()] }, { day: "2024-03-05" })).toEqual([]);
    expect(await actors({ series: [buy(), { event: "view" }] }, { day: "2024-03-02", series: 1 })).toEqual([U1]);
  });

  it("weekly active users: the persons of the day's trailing week", async () => {
    // u1: 27 Feb and twice on 1 Mar.
    expect(await actors({ series: [buy({ math: "weekly_active" })] }, { day: "2024-03-01" })).toEqual([U1, U2, U3]);
    expect(await actors({ series: [buy({ math: "weekly_active" })] }, { day: "2024-03-02" })).toEqual([U1, U2]);
  });

  it("a breakdown value, the null value and other", async () => {
    const byBrowser = { series: [buy()], breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 } };
    expect(await actors(byBrowser, { day: "2024-03-02", breakdown: "Firefox" })).toEqual([U1]);
    expect(await actors(byBrowser, { day: "2024-03-01", breakdown: "Chrome" })).toEqual([U1]);
    // Chrome is kept; other is Firefox: u2 on 1 Mar.
    expect(await actors(byBrowser, { day: "2024-03-01", breakdown: BREAKDOWN_OTHER })).toEqual([U2]);
    const byCountry = { series: [buy()], breakdownFilter: { breakdown: "$geoip_country_code" }, trendsFilter: { display: "ActionsPie" } };
    expect(await actors(byCountry, { breakdown: BREAKDOWN_NULL })).toEqual([U1]);
  });

  it("total values: everyone with an event in the range; compare: the previous period's day", async () => {
    expect(await actors({ series: [buy()], trendsFilter: { display: "BoldNumber" } }, {})).toEqual([U1, U2, ANON]);
    const compared = { series: [buy()], dateRange: { date_from: "2024-03-03", date_to: "2024-03-04" }, compareFilter: { compare: true } };
    expect(await actors(compared, { day: "2024-03-01", compare: "previous" })).toEqual([U1, U2]);
    expect(await actors(compared, { day: "2024-03-03", compare: "current" })).toEqual([U2]);
  });

  it("refuses a series the query does not have and a malformed day", async () => {
    await expect(actors({ series: [buy()] }, { series: 3 })).rejects.toThrow(/series 3 does not exist/);
    await expect(actors({ series: [buy()] }, { day: "March" })).rejects.toThrow(/day must be a date/);
  });
});
