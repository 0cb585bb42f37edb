/**
 * Property maths over session properties (PostHog's math_property_type "session_properties"):
 * `$session_duration` and `$is_bounce` of each event's session, counted once per session in
 * each day it has the series' events. Sessions, worked out by hand (UTC; bounce: no more than
 * one `$pageview`, no `$autocapture`, under 10 s):
 *
 *   sH u5 30 Apr 23:59:00 $pageview, 1 May 00:01:00 $pageview     Chrome   120 s, bounce 0 (two views)
 *   sA u1  1 May 10:00:00 $pageview, 10:00:05 $pageview           Chrome     5 s, bounce 0 (two views)
 *   sB u2  1 May 12:00:00 $pageview                               Firefox    0 s, bounce 1
 *   sC u1  1 May 23:59:50 $pageview, 2 May 00:00:20 $autocapture  Chrome    30 s, bounce 0 (autocapture)
 *   sD u3  2 May 09:00:00 $pageview, 09:00:08 click               Firefox    8 s, bounce 1
 *   sE u2  2 May 15:00, 15:01, 15:02 $pageview (three events)     Chrome   120 s, bounce 0
 *   sF u4  3 May 08:00:00 signup, 08:00:40 signup                           40 s, bounce null (no view)
 *   sG u1  3 May 11:00:00 $pageview, 11:00:12 scroll              Safari    12 s, bounce 0 (12 s)
 *   —  u1  3 May 13:00:00 $pageview without $session_id                      left out
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { clearInsightCache, computeInsight } from "@/server/insights/service";
import { AppError } from "@/server/errors";
import { trendsKind, type TrendsSeriesResult } from "./service";

let db: Database;
let projectId: number;

const person = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "session-maths@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const event = (n: number, timestamp: string, name: string, session: string | null, browser?: string) => ({
    uuid: randomUUID(),
    projectId,
    event: name,
    distinctId: `d${n}`,
    personId: person(n),
    properties: { ...(session ? { $session_id: session } : {}), ...(browser ? { $browser: browser } : {}) },
    timestamp: new Date(timestamp),
  });
  await db.events.insert([
    event(5, "2024-04-30T23:59:00.000Z", "$pageview", "sH", "Chrome"),
    event(5, "2024-05-01T00:01:00.000Z", "$pageview", "sH", "Chrome"),
    event(1, "2024-05-01T10:00:00.000Z", "$pageview", "sA", "Chrome"),
    event(1, "2024-05-01T10:00:05.000Z", "$pageview", "sA", "Chrome"),
    event(2, "2024-05-01T12:00:00.000Z", "$pageview", "sB", "Firefox"),
    event(1, "2024-05-01T23:59:50.000Z", "$pageview", "sC", "Chrome"),
    event(1, "2024-05-02T00:00:20.000Z", "$autocapture", "sC", "Chrome"),
    event(3, "2024-05-02T09:00:00.000Z", "$pageview", "sD", "Firefox"),
    event(3, "2024-05-02T09:00:08.000Z", "click", "sD", "Firefox"),
    event(2, "2024-05-02T15:00:00.000Z", "$pageview", "sE", "Chrome"),
    event(2, "2024-05-02T15:01:00.000Z", "$pageview", "sE", "Chrome"),
    event(2, "2024-05-02T15:02:00.000Z", "$pageview", "sE", "Chrome"),
    event(4, "2024-05-03T08:00:00.000Z", "signup", "sF"),
    event(4, "2024-05-03T08:00:40.000Z", "signup", "sF"),
    event(1, "2024-05-03T11:00:00.000Z", "$pageview", "sG", "Safari"),
    event(1, "2024-05-03T11:00:12.000Z", "scroll", "sG", "Safari"),
    event(1, "2024-05-03T13:00:00.000Z", "$pageview", null, "Safari"),
  ]);
});

afterAll(async () => {
  await closeDb();
});

beforeEach(() => clearInsightCache(db));

const RANGE = { date_from: "2024-05-01", date_to: "2024-05-03" };

async function trends(query: Record<string, unknown>): Promise<TrendsSeriesResult[]> {
  return (await computeInsight(db, projectId, { query: { kind: "TrendsQuery", dateRange: RANGE, ...query } })).result as TrendsSeriesResult[];
}
const session = (math: string, property: string, event: string | null = "$pageview") => ({
  kind: "EventsNode",
  event,
  math,
  math_property: property,
  math_property_type: "session_properties",
});

function expectClose(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((value, i) => expect(actual[i], `day ${i}: ${JSON.stringify(actual)}`).toBeCloseTo(value, 9));
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

describe(`trends session-property maths (${testStoresName})`, () => {
  it("avg $session_duration per day counts each session with a page view that day once", async () => {
    const [duration] = await trends({ series: [session("avg", "$session_duration")] });
    // 1 May: sH 120, sA 5, sB 0, sC 30. 2 May: sD 8, sE 120 (once, not per event: that would be 92). 3 May: sG 12.
    expectClose(duration!.data, [155 / 4, 64, 12]);
  });

  it("avg $is_bounce per day is the bounce rate of the sessions with a page view that day", async () => {
    const [bounce] = await trends({ series: [session("avg", "$is_bounce")] });
    // 1 May: sB of sH, sA, sB, sC. 2 May: sD of sD, sE. 3 May: sG did not bounce.
    expectClose(bounce!.data, [0.25, 0.5, 0]);
  });

  it("a session counts on every day it has the series' events; sessions without a page view have no bounce", async () => {
    const [duration, bounce] = await trends({ series: [session("avg", "$session_duration", null), session("avg", "$is_bounce", null)] });
    // sC's $autocapture puts it on 2 May too; sF (no page view) is on 3 May.
    expectClose(duration!.data, [155 / 4, (30 + 8 + 120) / 3, (40 + 12) / 2]);
    // 2 May: sC 0, sD 1, sE 0. 3 May: sF null (left out), sG 0.
    expectClose(bounce!.data, [0.25, 1 / 3, 0]);
  });

  it("the other property maths over the sessions' durations", async () => {
    const results = await trends({ series: ["sum", "min", "max", "median"].map((math) => session(math, "$session_duration")) });
    expectClose(results[0]!.data, [155, 128, 12]);
    expectClose(results[1]!.data, [0, 8, 12]);
    expectClose(results[2]!.data, [120, 120, 12]);
    // 1 May: 0, 5, 30, 120 → between 5 and 30.
    expectClose(results[3]!.data, [17.5, 64, 12]);
    expect(results[0]!.action!.math_property).toBe("$session_duration");
  });

  it("a number display counts each session of the range once, per breakdown value too", async () => {
    const [total] = await trends({ series: [session("avg", "$session_duration")], trendsFilter: { display: "BoldNumber" } });
    // sH 120, sA 5, sB 0, sC 30, sD 8, sE 120, sG 12.
    expect(total!.aggregated_value).toBeCloseTo(295 / 7, 9);
    const byBrowser = await trends({
      series: [session("avg", "$session_duration")],
      trendsFilter: { display: "BoldNumber" },
      breakdownFilter: { breakdown: "$browser" },
    });
    const values = Object.fromEntries(byBrowser.map((r) => [String(r.breakdown_value), r.aggregated_value]));
    expect(values.Chrome).toBeCloseTo((120 + 5 + 30 + 120) / 4, 9);
    expect(values.Firefox).toBeCloseTo(4, 9);
    expect(values.Safari).toBeCloseTo(12, 9);
  });

  it("$session_duration reads the session without math_property_type (PostHog goes by the name); $is_bounce needs it", async () => {
    const [duration, bounce] = await trends({
      series: [
        { kind: "EventsNode", event: "$pageview", math: "avg", math_property: "$session_duration" },
        { kind: "EventsNode", event: "$pageview", math: "avg", math_property: "$is_bounce" },
      ],
    });
    expectClose(duration!.data, [155 / 4, 64, 12]);
    // An event property no event has.
    expectClose(bounce!.data, [0, 0, 0]);
  });

  it("the actors behind a point are those of the sessions it counts, not of the series' events without a session", async () => {
    // 3 May: u4 reads inside sF (40 s, which ends later), u6 reads without a session.
    const read = (n: number, timestamp: string, sid: string | null) => ({
      uuid: randomUUID(),
      projectId,
      event: "read",
      distinctId: `d${n}`,
      personId: person(n),
      properties: sid ? { $session_id: sid } : {},
      timestamp: new Date(timestamp),
    });
    await db.events.insert([read(4, "2024-05-03T08:00:20.000Z", "sF"), read(6, "2024-05-03T14:00:00.000Z", null)]);
    const query = { kind: "TrendsQuery", dateRange: RANGE, series: [session("avg", "$session_duration", "read")] };
    const [series] = await trends(query);
    expectClose(series!.data, [0, 0, 40]);
    const spec = trendsKind.spec(query, null);
    const actors = await trendsKind.actors!({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") }, spec, { day: "2024-05-03", series: 0 });
    expect(actors).toEqual([person(4)]);
    // The same events counted as events: both readers.
    const total = trendsKind.spec({ ...query, series: [{ kind: "EventsNode", event: "read" }] }, null);
    const everyone = await trendsKind.actors!({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") }, total, { day: "2024-05-03", series: 0 });
    expect([...everyone].sort()).toEqual([person(4), person(6)]);
  });

  it("refuses other property types and unknown session properties with a 400", async () => {
    expect(await refused({ series: [{ ...session("avg", "$session_duration"), math_property_type: "person_properties" }] })).toMatch(
      /math_property_type 'person_properties' is not supported/,
    );
    expect(await refused({ series: [session("avg", "$pageview_count")] })).toMatch(/Session property '\$pageview_count' is not supported/);
  });
});
