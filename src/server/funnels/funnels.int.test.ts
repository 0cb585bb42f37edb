/**
 * Funnels end to end over the event store (PGlite, PostgreSQL, ClickHouse): PostHog's own
 * worked examples (conversion_time_cases.py, test_funnel.py, breakdown_cases.py,
 * test_funnel_time_to_convert.py) with their exact numbers, the UDF's edge rules, the
 * three visualisations, the 400s, and the actors behind each point.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { insertTestCohort } from "@/test-support/cohorts";
import type { QueryEnv } from "@/server/analytics/kind";
import { AppError } from "@/server/errors";
import { funnelsKind } from "./service";
import type { FunnelStepResult, FunnelTrendsResult, TimeToConvertResult } from "./present";

let db: Database;
let projectId: number;
let env: QueryEnv;

type Journey = [event: string, at: string, properties?: Record<string, unknown>][];

/** Persons (a uuid each, with properties) and their events; returns name → person uuid. */
async function journeys(byPerson: Record<string, Journey>, personProperties: Record<string, Record<string, unknown>> = {}): Promise<Record<string, string>> {
  const uuids: Record<string, string> = {};
  for (const name of Object.keys(byPerson)) {
    const uuid = randomUUID();
    uuids[name] = uuid;
    await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1::uuid, $2::int, $3::jsonb, now())`, [
      uuid,
      projectId,
      JSON.stringify(personProperties[name] ?? {}),
    ]);
  }
  await db.events.insert(
    Object.entries(byPerson).flatMap(([name, events]) =>
      events.map(([event, at, properties]) => ({
        uuid: randomUUID(),
        projectId,
        event,
        distinctId: name,
        personId: uuids[name],
        properties: properties ?? {},
        timestamp: new Date(`${at}Z`),
      })),
    ),
  );
  return uuids;
}

const funnel = (steps: string[], extra: Record<string, unknown> = {}, funnelsFilter: Record<string, unknown> = {}) => ({
  kind: "FunnelsQuery",
  series: steps.map((event) => ({ kind: "EventsNode", event })),
  dateRange: { date_from: "2020-01-01", date_to: "2020-01-08" },
  funnelsFilter,
  ...extra,
});

async function run(query: Record<string, unknown>) {
  return funnelsKind.compute(env, funnelsKind.spec(query, null));
}
const steps = async (query: Record<string, unknown>) => (await run(query)).results as FunnelStepResult[];
const breakdowns = async (query: Record<string, unknown>) => (await run(query)).results as FunnelStepResult[][];
const counts = (result: FunnelStepResult[]) => result.map((step) => step.count);
const actors = (query: Record<string, unknown>, selector: Record<string, unknown>) => funnelsKind.actors!(env, funnelsKind.spec(query, null), selector);
const sorted = (ids: (string | undefined)[]) => [...ids].sort();

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  projectId = (await bootstrap(db.prisma, { email: "funnels@example.com", password: "pw12345678" })).project_id;
  env = { db, projectId, zone: "UTC", now: new Date("2024-01-01T00:00:00Z") };
});

afterAll(() => closeDb());

describe(`funnels (${testStoresName})`, () => {
  it("reproduces test_funnel_step_conversion_times: counts, averages and medians per step", async () => {
    await journeys({
      p1: [["ct sign up", "2020-01-01T12:00:00"], ["ct play movie", "2020-01-01T13:00:00"], ["ct buy", "2020-01-01T15:00:00"]],
      p2: [["ct sign up", "2020-01-02T14:00:00"], ["ct play movie", "2020-01-02T16:00:00"]],
      p3: [["ct sign up", "2020-01-02T14:00:00"], ["ct play movie", "2020-01-02T16:00:00"], ["ct buy", "2020-01-02T17:00:00"]],
    });
    const answer = await run(funnel(["ct sign up", "ct play movie", "ct buy"], {}, { funnelWindowInterval: 7 }));
    expect(answer.extra).toEqual({ isUdf: true });
    expect(answer.results).toEqual([
      { action_id: "ct sign up", name: "ct sign up", custom_name: null, order: 0, people: [], count: 3, type: "events", average_conversion_time: null, median_conversion_time: null },
      { action_id: "ct play movie", name: "ct play movie", custom_name: null, order: 1, people: [], count: 3, type: "events", average_conversion_time: 6000, median_conversion_time: 7200 },
      { action_id: "ct buy", name: "ct buy", custom_name: null, order: 2, people: [], count: 2, type: "events", average_conversion_time: 5400, median_conversion_time: 5400 },
    ]);
  });

  it("measures the window from the first step, inclusively (test_funnel_times_with_different_conversion_windows)", async () => {
    const people = await journeys({
      s1: [["cw signed up", "2020-01-02T14:00:00"], ["cw pageview", "2020-01-02T14:05:00"]],
      s2: [["cw signed up", "2020-01-02T14:03:00"]],
      s3: [["cw signed up", "2020-01-02T12:00:00"], ["cw pageview", "2020-01-02T12:15:00"]],
    });
    const query = funnel(["cw signed up", "cw pageview"], { dateRange: { date_from: "2020-01-01", date_to: "2020-01-14" } }, { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" });
    const wide = await steps(query);
    expect(counts(wide)).toEqual([3, 2]);
    expect(wide[1]!.average_conversion_time).toBe(600);
    const five = { ...query, funnelsFilter: { funnelWindowInterval: 5, funnelWindowIntervalUnit: "minute" } };
    const narrow = await steps(five);
    expect(counts(narrow)).toEqual([3, 1]);
    expect(narrow[1]!.average_conversion_time).toBe(300);
    expect(await actors(five, { funnelStep: 2 })).toEqual([people.s1]);
    expect(await actors(five, { funnelStep: 1 })).toEqual(sorted([people.s1, people.s2, people.s3]));
  });

  it("keeps the complete try's times when later tries are incomplete (test_funnel_with_multiple_incomplete_tries)", async () => {
    const people = await journeys({
      person1: [
        ["mi signed up", "2021-05-01T01:00:00"],
        ["mi pageview", "2021-05-01T02:00:00"],
        ["mi something else", "2021-05-01T03:00:00"],
        ["mi signed up", "2021-05-03T04:00:00"],
        ["mi pageview", "2021-05-03T05:00:00"],
        ["mi signed up", "2021-05-04T07:00:00"],
        ["mi pageview", "2021-05-04T10:00:00"],
      ],
    });
    const query = funnel(["mi signed up", "mi pageview", "mi something else"], { dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" } }, { funnelWindowInterval: 1 });
    const result = await steps(query);
    expect(result[0]!.count).toBe(1);
    expect(result[1]!.average_conversion_time).toBe(3600);
    expect(result[1]!.median_conversion_time).toBe(3600);
    expect(await actors(query, { funnelStep: 1 })).toEqual([people.person1]);
  });

  it("counts a person who paid before signing up only at the first step (test_funnel_events)", async () => {
    await journeys({
      stopped_after_signup: [["fe signed up", "2020-01-02T10:00:00"]],
      stopped_after_pay: [["fe signed up", "2020-01-02T10:00:00"], ["fe pay", "2020-01-02T10:10:00"]],
      completed_movie: [["fe signed up", "2020-01-02T10:00:00"], ["fe pay", "2020-01-02T10:10:00"], ["fe movie", "2020-01-02T10:20:00"]],
      just_did_movie: [["fe movie", "2020-01-02T10:00:00"]],
      wrong_order: [["fe pay", "2020-01-02T10:00:00"], ["fe signed up", "2020-01-02T10:10:00"], ["fe movie", "2020-01-02T10:20:00"]],
    });
    expect(counts(await steps(funnel(["fe signed up", "fe pay", "fe movie"])))).toEqual([4, 2, 1]);
  });

  it("converts steps done at the same instant, and uses the latest first step", async () => {
    await journeys({
      same: [["st b", "2020-01-02T10:00:00"], ["st a", "2020-01-02T10:00:00"]],
      later: [["st a", "2020-01-02T10:00:00"], ["st a", "2020-01-02T11:00:00"], ["st b", "2020-01-02T11:30:00"]],
      before: [["st b", "2020-01-02T09:00:00"], ["st a", "2020-01-02T10:00:00"]],
    });
    const result = await steps(funnel(["st a", "st b"]));
    expect(counts(result)).toEqual([3, 2]);
    // The instant conversion is left out of the average; the later try is timed from its own start.
    expect(result[1]!.average_conversion_time).toBe(1800);
  });

  it("breaks a strict funnel with any other event in between", async () => {
    const people = await journeys({
      clean: [["sf a", "2020-01-02T10:00:00"], ["sf b", "2020-01-02T10:01:00"], ["sf c", "2020-01-02T10:02:00"]],
      interrupted: [["sf a", "2020-01-02T10:00:00"], ["sf noise", "2020-01-02T10:01:00"], ["sf b", "2020-01-02T10:02:00"], ["sf c", "2020-01-02T10:03:00"]],
    });
    const query = funnel(["sf a", "sf b", "sf c"], {}, { funnelOrderType: "strict" });
    expect(counts(await steps(query))).toEqual([2, 1, 1]);
    expect(counts(await steps(funnel(["sf a", "sf b", "sf c"])))).toEqual([2, 2, 2]);
    expect(await actors(query, { funnelStep: -2 })).toEqual([people.interrupted]);
  });

  it("drops a person whose best attempt met an exclusion from every step", async () => {
    const people = await journeys({
      excluded: [["ex a", "2020-01-02T10:00:00"], ["ex bad", "2020-01-02T10:05:00"], ["ex b", "2020-01-02T10:10:00"]],
      clean: [["ex a", "2020-01-02T10:00:00"], ["ex b", "2020-01-02T10:10:00"]],
      rescued: [["ex a", "2020-01-02T10:00:00"], ["ex bad", "2020-01-02T10:05:00"], ["ex a", "2020-01-02T11:00:00"], ["ex b", "2020-01-02T11:10:00"]],
    });
    const query = funnel(["ex a", "ex b"], {}, { exclusions: [{ kind: "EventsNode", event: "ex bad", funnelFromStep: 0, funnelToStep: 1 }] });
    expect(counts(await steps(query))).toEqual([2, 2]);
    expect(await actors(query, { funnelStep: 1 })).toEqual(sorted([people.clean, people.rescued]));
    expect(counts(await steps(funnel(["ex a", "ex b"])))).toEqual([3, 3]);
  });

  it("gives an empty result when nobody entered the funnel", async () => {
    expect((await run(funnel(["nobody did this", "nor this"]))).results).toEqual([]);
  });

  describe("breakdowns", () => {
    let people: Record<string, string>;
    const attributionQuery = (attribution: Record<string, unknown>) =>
      funnel(["bd sign up", "bd buy"], { breakdownFilter: { breakdown_type: "event", breakdown: "$browser" } }, { funnelWindowInterval: 7, ...attribution });
    const byValue = (results: FunnelStepResult[][]) =>
      Object.fromEntries(results.map((funnelSteps) => [JSON.stringify(funnelSteps[0]!.breakdown_value), [counts(funnelSteps), funnelSteps[1]!.average_conversion_time]]));

    beforeAll(async () => {
      // breakdown_cases.py's attribution journeys.
      people = await journeys({
        person1: [["bd sign up", "2020-01-01T12:00:00", { $browser: "Chrome" }], ["bd buy", "2020-01-01T13:00:00"]],
        person2: [["bd sign up", "2020-01-01T13:00:00"], ["bd buy", "2020-01-02T13:00:00", { $browser: "Safari" }]],
        person3: [["bd sign up", "2020-01-02T14:00:00", { $browser: "Mac" }], ["bd buy", "2020-01-02T15:00:00"]],
        person4: [["bd sign up", "2020-01-02T15:00:00", { $browser: 0 }], ["bd buy", "2020-01-02T16:00:00", { $browser: "alakazam" }]],
        person5: [["bd sign up", "2020-01-02T15:00:00"], ["bd buy", "2020-01-02T16:00:00"]],
      });
    });

    it("attributes first touch: the earliest value, '' for none", async () => {
      const results = await breakdowns(attributionQuery({ breakdownAttributionType: "first_touch" }));
      expect(byValue(results)).toEqual({
        '[""]': [[1, 1], 3600],
        '["0"]': [[1, 1], 3600],
        '["Chrome"]': [[1, 1], 3600],
        '["Mac"]': [[1, 1], 3600],
        '["Safari"]': [[1, 1], 86400],
      });
      expect(results[0]![0]).toMatchObject({ breakdown: results[0]![0]!.breakdown_value });
      expect(await actors(attributionQuery({}), { funnelStep: 1, funnelStepBreakdown: "0" })).toEqual([people.person4]);
      expect(await actors(attributionQuery({}), { funnelStep: 2, funnelStepBreakdown: [""] })).toEqual([people.person5]);
    });

    it("attributes last touch: the latest value", async () => {
      expect(Object.keys(byValue(await breakdowns(attributionQuery({ breakdownAttributionType: "last_touch" })))).sort()).toEqual(
        ['[""]', '["Chrome"]', '["Mac"]', '["Safari"]', '["alakazam"]'].sort(),
      );
    });

    it("attributes a step: the value on that step's event", async () => {
      expect(byValue(await breakdowns(attributionQuery({ breakdownAttributionType: "step", breakdownAttributionValue: 0 })))).toEqual({
        '[""]': [[2, 2], (86400 + 3600) / 2],
        '["0"]': [[1, 1], 3600],
        '["Chrome"]': [[1, 1], 3600],
        '["Mac"]': [[1, 1], 3600],
      });
      const stepOne = await breakdowns(attributionQuery({ breakdownAttributionType: "step", breakdownAttributionValue: 1 }));
      expect(byValue(stepOne)).toEqual({ '[""]': [[3, 3], 3600], '["Safari"]': [[1, 1], 86400], '["alakazam"]': [[1, 1], 3600] });
      expect(await actors(attributionQuery({ breakdownAttributionType: "step", breakdownAttributionValue: 1 }), { funnelStep: 1, funnelStepBreakdown: "" })).toEqual(
        sorted([people.person1, people.person3, people.person5]),
      );
    });

    it("walks each value over its own events under all_events", async () => {
      expect(byValue(await breakdowns(attributionQuery({ breakdownAttributionType: "all_events" })))).toEqual({
        // person2's sign up and person5's two events have none; person1's and person3's buy alone is no funnel.
        '[""]': [[2, 1], 3600],
        '["0"]': [[1, 0], null],
        '["Chrome"]': [[1, 0], null],
        '["Mac"]': [[1, 0], null],
      });
    });

    it("folds values past breakdown_limit into Other, ranked by conversions", async () => {
      const results = await breakdowns(
        funnel(["bd sign up", "bd buy"], { breakdownFilter: { breakdown_type: "event", breakdown: "$browser", breakdown_limit: 2 } }, { funnelWindowInterval: 7 }),
      );
      expect(results.map((result) => [result[0]!.breakdown_value, counts(result)])).toEqual([
        [[""], [1, 1]],
        [["0"], [1, 1]],
        [["Other"], [3, 3]],
      ]);
      const query = funnel(["bd sign up", "bd buy"], { breakdownFilter: { breakdown_type: "event", breakdown: "$browser", breakdown_limit: 2 } }, { funnelWindowInterval: 7 });
      expect(await actors(query, { funnelStep: 1, funnelStepBreakdown: ["Other"] })).toEqual(sorted([people.person1, people.person2, people.person3]));
    });

    it("breaks down by a person property and by cohorts", async () => {
      const crowd = await journeys(
        {
          pa: [["pb a", "2020-01-02T10:00:00"], ["pb b", "2020-01-02T10:10:00"]],
          pb: [["pb a", "2020-01-02T10:00:00"]],
          pc: [["pb a", "2020-01-02T10:00:00"], ["pb b", "2020-01-02T10:30:00"]],
        },
        { pa: { plan: "pro" }, pb: { plan: "pro" }, pc: { plan: "free" } },
      );
      const byPlan = await breakdowns(funnel(["pb a", "pb b"], { breakdownFilter: { breakdown_type: "person", breakdown: "plan" } }));
      // Ranked by the last step's count, then the first's.
      expect(byPlan.map((result) => [result[0]!.breakdown_value, counts(result)])).toEqual([
        [["pro"], [2, 1]],
        [["free"], [1, 1]],
      ]);
      const cohort = await insertTestCohort(db.sql, projectId, "Pros", { personUuids: [crowd.pa!, crowd.pb!] });
      const query = funnel(["pb a", "pb b"], { breakdownFilter: { breakdown_type: "cohort", breakdown: [cohort, "all"] } });
      const byCohort = await breakdowns(query);
      expect(byCohort.map((result) => [result[0]!.breakdown, result[0]!.breakdown_value, counts(result)])).toEqual([
        ["Pros", cohort, [2, 1]],
        ["all users", 0, [3, 2]],
      ]);
      expect(await actors(query, { funnelStep: -2, funnelStepBreakdown: cohort })).toEqual([crowd.pb]);
      expect(await actors(query, { funnelStep: 2, funnelStepBreakdown: 0 })).toEqual(sorted([crowd.pa, crowd.pc]));
    });
  });

  describe("time to convert", () => {
    const ttc = (funnelsFilter: Record<string, unknown>) =>
      funnel(["tc one", "tc two", "tc three"], { dateRange: { date_from: "2021-06-07 00:00:00", date_to: "2021-06-13 23:59:59" } }, { funnelVizType: "time_to_convert", funnelWindowInterval: 7, ...funnelsFilter });

    beforeAll(async () => {
      // test_funnel_time_to_convert.py: 3600 s, 2220 s and 82,800 s from step one to step two; user d's blah breaks strict.
      await journeys({
        a: [["tc one", "2021-06-08T18:00:00"], ["tc two", "2021-06-08T19:00:00"], ["tc three", "2021-06-08T21:00:00"]],
        b: [["tc one", "2021-06-09T13:00:00"], ["tc two", "2021-06-09T13:37:00"], ["tc blah", "2021-06-09T13:38:00"], ["tc three", "2021-06-09T13:39:00"]],
        c: [["tc one", "2021-06-11T07:00:00"], ["tc two", "2021-06-12T06:00:00"]],
        d: [["tc one", "2021-06-11T07:00:00"], ["tc blah", "2021-06-12T07:00:00"], ["tc two", "2021-06-12T09:00:00"]],
      });
    });

    it("bins automatically by the cube root of the converted persons (test_auto_bin_count_single_step, strict)", async () => {
      expect((await run(ttc({ funnelFromStep: 0, funnelToStep: 1, funnelOrderType: "strict" }))).results).toEqual({
        bins: [
          [2220, 2],
          [42510, 0],
          [82800, 1],
        ],
        average_conversion_time: 29540,
      } satisfies TimeToConvertResult);
    });

    it("takes a custom bin count (test_custom_bin_count_single_step)", async () => {
      const result = (await run(ttc({ funnelFromStep: 0, funnelToStep: 1, binCount: 7, funnelOrderType: "strict" }))).results as TimeToConvertResult;
      expect(result.bins).toEqual([
        [2220, 2],
        [13732, 0],
        [25244, 0],
        [36756, 0],
        [48268, 0],
        [59780, 0],
        [71292, 1],
        [82804, 0],
      ]);
    });

    it("measures to the last step by default, and has no bins without conversions", async () => {
      const result = (await run(ttc({}))).results as TimeToConvertResult;
      expect(result.average_conversion_time).toBe((10_800 + 2340) / 2);
      expect((await run({ ...ttc({}), series: [{ event: "nobody" }, { event: "ever" }] })).results).toEqual({ average_conversion_time: null, bins: [] });
    });
  });

  describe("trends", () => {
    const trendQuery = (funnelsFilter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
      funnel(["tr a", "tr b"], { dateRange: { date_from: "2020-02-01", date_to: "2020-02-03" }, interval: "day", ...extra }, { funnelVizType: "trends", ...funnelsFilter });
    let people: Record<string, string>;

    beforeAll(async () => {
      people = await journeys({
        u1: [["tr a", "2020-02-01T10:00:00"], ["tr b", "2020-02-01T11:00:00"]],
        u2: [["tr a", "2020-02-01T12:00:00"]],
        u3: [["tr a", "2020-02-03T09:00:00"], ["tr b", "2020-02-03T09:30:00"]],
      }, { u1: { plan: "pro" }, u2: { plan: "free" }, u3: { plan: "pro" } });
    });

    it("gives the conversion rate per entrance period", async () => {
      expect((await run(trendQuery())).results).toEqual([
        { count: 3, data: [50, 0, 100], days: ["2020-02-01", "2020-02-02", "2020-02-03"], labels: ["1-Feb-2020", "2-Feb-2020", "3-Feb-2020"] },
      ] satisfies FunnelTrendsResult[]);
    });

    it("breaks trends down by value", async () => {
      const results = (await run(trendQuery({}, { breakdownFilter: { breakdown_type: "person", breakdown: "plan" } }))).results as FunnelTrendsResult[];
      expect(results.map((series) => [series.breakdown_value, series.data])).toEqual([
        [["pro"], [100, 0, 100]],
        [["free"], [0, 0, 0]],
      ]);
    });

    it("lists who converted, or dropped off, in one entrance period", async () => {
      expect(await actors(trendQuery(), { funnelTrendsEntrancePeriodStart: "2020-02-01", funnelTrendsDropOff: false })).toEqual([people.u1]);
      expect(await actors(trendQuery(), { funnelTrendsEntrancePeriodStart: "2020-02-01 00:00:00", funnelTrendsDropOff: true })).toEqual([people.u2]);
      expect(await actors(trendQuery(), { funnelTrendsEntrancePeriodStart: "2020-02-02" })).toEqual([]);
      await expect(actors(trendQuery(), {})).rejects.toThrow(/funnelTrendsEntrancePeriodStart/);
    });
  });

  it("counts distinct steps in any order for unordered funnels, named 'Completed N steps'", async () => {
    await journeys({
      ua: [["un three", "2021-06-08T18:00:00"], ["un one", "2021-06-08T19:00:00"], ["un two", "2021-06-08T21:00:00"]],
      ub: [["un one", "2021-06-09T13:00:00"], ["un two", "2021-06-09T13:37:00"]],
      uc: [["un two", "2021-06-11T07:00:00"]],
    });
    const result = await steps(funnel(["un one", "un two", "un three"], { dateRange: { date_from: "2021-06-07", date_to: "2021-06-13" } }, { funnelOrderType: "unordered" }));
    expect(result.map((step) => [step.name, step.action_id, step.count, step.average_conversion_time])).toEqual([
      ["Completed 1 step", null, 3, null],
      ["Completed 2 steps", null, 2, (3600 + 2220) / 2],
      ["Completed 3 steps", null, 1, 7200],
    ]);
  });

  it("refuses invalid ranges and unsupported fields with a 400 naming the field", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [funnel(["a", "b"], {}, { funnelFromStep: 1 }), /funnelFromStep is out of bounds. It must be between 0 and 0/],
      [funnel(["a", "b"], {}, { funnelToStep: 2 }), /funnelToStep is out of bounds. It must be between 1 and 1/],
      [funnel(["a", "b", "c"], {}, { funnelFromStep: 1, funnelToStep: 1 }), /funnelToStep should be greater than funnelFromStep/],
      [funnel(["a", "b"], {}, { exclusions: [{ event: "x", funnelFromStep: 1, funnelToStep: 1 }] }), /End of range should be greater than start/],
      [funnel(["a", "b"], {}, { exclusions: [{ event: "x", funnelFromStep: 0, funnelToStep: 2 }] }), /End of range is greater than number of steps/],
      [funnel(["a", "b"], {}, { exclusions: [{ event: "b", funnelFromStep: 0, funnelToStep: 1 }] }), /cannot contain an event that's part of funnel steps/],
      [funnel(["a", "b", "c"], {}, { funnelOrderType: "unordered", exclusions: [{ event: "x", funnelFromStep: 0, funnelToStep: 1 }] }), /Partial Exclusions not allowed/],
      [{ ...funnel(["a"]), series: [{ kind: "ActionsNode", id: 3 }] }, /series\.0\.kind/],
      [funnel(["a", "b"], {}, { funnelAggregateByHogQL: "properties.$session_id" }), /funnelAggregateByHogQL is not supported/],
      [funnel(["a", "b"], { aggregation_group_type_index: 0 }), /aggregation_group_type_index is not supported/],
      [funnel(["a", "b"], {}, { funnelWindowIntervalUnit: "year" }), /funnelWindowIntervalUnit 'year' is not supported/],
      [{ ...funnel([]), series: [] }, /at least one step/],
    ];
    for (const [query, message] of cases) {
      let error: unknown;
      try {
        funnelsKind.spec(query, null);
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(query)).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("invalid_input");
      expect((error as AppError).message).toMatch(message);
    }
    // Display-only fields pass.
    expect(() => funnelsKind.spec(funnel(["a", "b"], {}, { funnelStepReference: "previous", layout: "horizontal", hiddenLegendBreakdowns: [] }), null)).not.toThrow();
  });

  it("refuses actors selectors that name no step", async () => {
    const query = funnel(["ct sign up", "ct play movie"]);
    await expect(actors(query, {})).rejects.toThrow(/Missing both funnelStep and funnelCustomSteps/);
    await expect(actors(query, { funnelStep: 0 })).rejects.toThrow(/1-indexed/);
    await expect(actors(query, { funnelStep: -1 })).rejects.toThrow(/-2/);
  });
});
