/**
 * Stickiness over a fixed set of events with answers worked out by hand: actors per number
 * of active days, cumulative, per series, event-count criteria, intervals of several days,
 * weeks from Sunday, an actor without a person, the actors of a point, refused fields, and
 * one query through the REST endpoint.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { ANONYMOUS_ACTOR, type QueryEnv } from "@/server/analytics/kind";
import { restRoute } from "@/test-support/rest-routes";
import { stickinessKind, type StickinessSeriesResult } from "./service";

let db: Database;
let projectId: number;
let apiKey: string;
const queryRoute = restRoute("projects", "query");

const a = "0190c000-0000-7000-8000-00000000000a";
const b = "0190c000-0000-7000-8000-00000000000b";
const c = "0190c000-0000-7000-8000-00000000000c";
const anon = `${ANONYMOUS_ACTOR}anon`;

type Sent = [person: string | null, distinctId: string, event: string, timestamp: string];

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "stickiness@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  for (const uuid of [a, b, c]) await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1::uuid, $2::int, '{}', now())`, [uuid, projectId]);
  const events: Sent[] = [
    // a: 3 days (three pageviews on the 1st).
    [a, "a", "$pageview", "2024-03-01T09:00:00"],
    [a, "a", "$pageview", "2024-03-01T10:00:00"],
    [a, "a", "$pageview", "2024-03-01T11:00:00"],
    [a, "a", "$pageview", "2024-03-02T09:00:00"],
    [a, "a", "$pageview", "2024-03-05T09:00:00"],
    // b: 1 day, and a signup.
    [b, "b", "$pageview", "2024-03-03T09:00:00"],
    [b, "b", "signup", "2024-03-03T09:05:00"],
    // c: 2 days in 1–7 March, and one either side.
    [c, "c", "$pageview", "2024-02-29T23:59:59.999"],
    [c, "c", "$pageview", "2024-03-01T00:00:00"],
    [c, "c", "$pageview", "2024-03-07T23:59:59.999"],
    [c, "c", "$pageview", "2024-03-08T00:00:00"],
    // No person: counted by distinct id, 2 days.
    [null, "anon", "$pageview", "2024-03-04T09:00:00"],
    [null, "anon", "$pageview", "2024-03-05T09:00:00"],
  ];
  await db.events.insert(
    events.map(([personId, distinctId, event, timestamp]) => ({ uuid: uuidv7(), projectId, event, distinctId, personId, properties: {}, timestamp: new Date(`${timestamp}Z`) })),
  );
});

afterAll(() => closeDb());

const env = (): QueryEnv => ({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") });
const week = { date_from: "2024-03-01", date_to: "2024-03-07" };
const pageviews = [{ kind: "EventsNode", event: "$pageview" }];

const specOf = (node: Record<string, unknown>) => stickinessKind.spec({ kind: "StickinessQuery", dateRange: week, series: pageviews, ...node }, null);

async function stickiness(node: Record<string, unknown>): Promise<StickinessSeriesResult[]> {
  return (await stickinessKind.compute(env(), specOf(node))).results as StickinessSeriesResult[];
}

describe(`StickinessQuery (${testStoresName})`, () => {
  it("counts actors per number of active days, an actor without a person by distinct id", async () => {
    expect(await stickiness({})).toEqual([
      {
        count: 4,
        data: [1, 2, 1, 0, 0, 0, 0],
        days: [1, 2, 3, 4, 5, 6, 7],
        label: "$pageview",
        labels: ["1 day", "2 days", "3 days", "4 days", "5 days", "6 days", "7 days"],
        action: { order: 0, type: "events", name: "$pageview", id: "$pageview", custom_name: null },
      },
    ]);
  });

  it("counts actors active in k days or more when cumulative, count unchanged", async () => {
    const [series] = await stickiness({ stickinessFilter: { computedAs: "cumulative" } });
    expect(series!.data).toEqual([4, 3, 1, 0, 0, 0, 0]);
    expect(series!.count).toBe(4);
    expect(series!.labels.slice(0, 2)).toEqual(["1 day or more", "2 days or more"]);
  });

  it("answers each series apart, all events for a null event", async () => {
    const results = await stickiness({ series: [...pageviews, { kind: "EventsNode", event: "signup", custom_name: "Sign up" }, { kind: "EventsNode", event: null }] });
    expect(results.map((series) => [series.label, series.data, series.action.order, series.action.custom_name])).toEqual([
      ["$pageview", [1, 2, 1, 0, 0, 0, 0], 0, null],
      ["signup", [1, 0, 0, 0, 0, 0, 0], 1, "Sign up"],
      ["All events", [1, 2, 1, 0, 0, 0, 0], 2, null],
    ]);
  });

  it("counts only days whose number of events satisfies stickinessCriteria", async () => {
    expect((await stickiness({ stickinessFilter: { stickinessCriteria: { operator: "gte", value: 2 } } }))[0]!.data).toEqual([1, 0, 0, 0, 0, 0, 0]);
    expect((await stickiness({ stickinessFilter: { stickinessCriteria: { operator: "exact", value: 1 } } }))[0]!.data).toEqual([1, 3, 0, 0, 0, 0, 0]);
    expect((await stickiness({ stickinessFilter: { stickinessCriteria: { operator: "lte", value: 1 } } }))[0]!.data).toEqual([1, 3, 0, 0, 0, 0, 0]);
  });

  it("groups days by intervalCount, counted back from the range's end", async () => {
    const [series] = await stickiness({ intervalCount: 2 });
    expect(series!.days).toEqual([1, 2, 3, 4]);
    expect(series!.data).toEqual([2, 1, 1, 0]);
  });

  it("counts weeks from Sunday, the range starting at date_from's week", async () => {
    const [series] = await stickiness({ interval: "week", dateRange: { date_from: "2024-03-01", date_to: "2024-03-14" } });
    expect(series!.labels).toEqual(["1 week", "2 weeks", "3 weeks"]);
    expect(series!.data).toEqual([2, 2, 0]);
  });

  it("lists the actors of a point: exactly k days, k or more when cumulative or with operator gte", async () => {
    expect(await stickinessKind.actors!(env(), specOf({}), { day: 2 })).toEqual([c, anon]);
    expect(await stickinessKind.actors!(env(), specOf({}), { day: "3", series: 0 })).toEqual([a]);
    expect(await stickinessKind.actors!(env(), specOf({}), { day: 2, operator: "gte" })).toEqual([a, c, anon]);
    expect(await stickinessKind.actors!(env(), specOf({ stickinessFilter: { computedAs: "cumulative" } }), { day: 2 })).toEqual([a, c, anon]);
    const two = specOf({ series: [...pageviews, { kind: "EventsNode", event: "signup" }] });
    expect(await stickinessKind.actors!(env(), two, { day: 1, series: 1 })).toEqual([b]);
    await expect(stickinessKind.actors!(env(), two, { day: 1, series: 2 })).rejects.toThrow(/series must be an integer from 0 to 1/);
    await expect(stickinessKind.actors!(env(), two, { day: 0 })).rejects.toThrow(/day must be a number of intervals/);
  });

  it.each([
    [{ series: [] }, /At least one series/],
    [{ compareFilter: { compare: true } }, /compareFilter.compare is not supported/],
    [{ stickinessFilter: { stickinessCriteria: { operator: "gt", value: 1 } } }, /operator 'gt' is not supported/],
    [{ stickinessFilter: { computedAs: "sometimes" } }, /computedAs 'sometimes'/],
    [{ intervalCount: 0 }, /intervalCount must be at least 1/],
    [{ interval: "minute" }, /interval 'minute' is not supported/],
    [{ series: [{ kind: "EventsNode", event: "$pageview", math: "unique_group", math_group_type_index: 0 }] }, /math 'unique_group'/],
    [{ series: [{ kind: "ActionsNode", id: 3 }] }, /Series kind 'ActionsNode' is not supported/],
    [{ breakdownFilter: { breakdown: "$browser" } }, /Stickiness has no breakdowns/],
  ])("refuses %j with a 400", (node, message) => {
    expect(() => specOf(node)).toThrow(message);
  });

  it("answers POST /api/projects/:id/query/ in PostHog's envelope", async () => {
    const post = (query: unknown) =>
      queryRoute.POST(
        new Request(`http://localhost/api/projects/${projectId}/query/`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ query }),
        }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
    const response = await post({ kind: "StickinessQuery", series: pageviews, dateRange: week });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: StickinessSeriesResult[]; is_cached: boolean; resolved_date_range: unknown };
    expect(body.results[0]!.data).toEqual([1, 2, 1, 0, 0, 0, 0]);
    expect(body.resolved_date_range).toEqual({ date_from: "2024-03-01T00:00:00+00:00", date_to: "2024-03-07T23:59:59+00:00" });
    const refused = await post({ kind: "StickinessQuery", series: pageviews, compareFilter: { compare: true } });
    expect(refused.status).toBe(400);
    // A malformed field is PostHog's parse error, the field named in the detail.
    expect(await refused.json()).toMatchObject({ type: "invalid_request", code: "parse_error", attr: null, detail: expect.stringContaining("query.compareFilter.compare") });
  });
});
