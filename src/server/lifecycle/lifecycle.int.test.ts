/**
 * Lifecycle over a fixed set of persons (created at set times) and events, with answers
 * worked out by hand: new in the creation interval, returning, resurrecting after a gap and
 * right after the creation interval, dormant (negative) after each active run, the
 * intervals either side of the range, persons not processed left out, weeks, the actors of
 * a point, refused fields, and one query through the REST endpoint.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import type { QueryEnv } from "@/server/analytics/kind";
import { restRoute } from "@/test-support/rest-routes";
import { lifecycleKind, type LifecycleResult } from "./service";

let db: Database;
let projectId: number;
let apiKey: string;
const queryRoute = restRoute("projects", "query");

// n: new on 3 March; r: back after a gap; x: first active the day after its creation day; old: one late visit; p: every day.
const n = "0190d000-0000-7000-8000-00000000000e";
const r = "0190d000-0000-7000-8000-00000000000b";
const x = "0190d000-0000-7000-8000-00000000000c";
const old = "0190d000-0000-7000-8000-00000000000d";
const p = "0190d000-0000-7000-8000-00000000000a";
const q = "0190d000-0000-7000-8000-00000000000f";

type Sent = [person: string | null, event: string, timestamp: string, properties?: Record<string, unknown>];

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "lifecycle@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  const created: [string, string][] = [
    [n, "2024-03-03T10:00:00Z"],
    [r, "2024-01-01T00:00:00Z"],
    [x, "2024-03-02T20:00:00Z"],
    [old, "2023-06-01T00:00:00Z"],
    [p, "2024-03-01T00:00:00Z"],
  ];
  for (const [uuid, at] of created) {
    await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, created_at, updated_at) VALUES ($1::uuid, $2::int, '{}', $3::timestamptz, now())`, [uuid, projectId, at]);
  }
  const events: Sent[] = [
    [n, "$pageview", "2024-03-03T11:00:00"],
    [n, "$pageview", "2024-03-04T11:00:00"],
    [r, "$pageview", "2024-03-01T11:00:00"],
    [r, "$pageview", "2024-03-02T11:00:00"],
    [r, "other", "2024-03-04T11:00:00"],
    [r, "$pageview", "2024-03-05T11:00:00"],
    [x, "$pageview", "2024-03-03T11:00:00"],
    // Not processed: left out, else x would resurrect on the 5th.
    [x, "$pageview", "2024-03-05T11:00:00", { $process_person_profile: false }],
    [old, "$pageview", "2024-03-06T11:00:00"],
    ...["01", "02", "03", "04", "05", "06", "07"].map((day): Sent => [p, "$pageview", `2024-03-${day}T11:00:00`, { $process_person_profile: true }]),
    // No person: not followed.
    [null, "$pageview", "2024-03-04T11:00:00"],
    // A person whose events in the range all come without a profile (identified_only's anonymous events): not followed either.
    [q, "$pageview", "2024-03-04T12:00:00", { $process_person_profile: false }],
  ];
  await db.events.insert(
    events.map(([personId, event, timestamp, properties]) => ({
      uuid: uuidv7(),
      projectId,
      event,
      distinctId: personId ?? "anon",
      personId,
      properties: properties ?? {},
      timestamp: new Date(`${timestamp}Z`),
    })),
  );
});

afterAll(() => closeDb());

const env = (): QueryEnv => ({ db, projectId, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") });
const days = { date_from: "2024-03-02", date_to: "2024-03-06" };
const specOf = (node: Record<string, unknown>) => lifecycleKind.spec({ kind: "LifecycleQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: days, ...node }, null);

async function lifecycle(node: Record<string, unknown>): Promise<LifecycleResult[]> {
  return (await lifecycleKind.compute(env(), specOf(node))).results as LifecycleResult[];
}

describe(`LifecycleQuery (${testStoresName})`, () => {
  it("classifies each day's persons as new, returning, resurrecting and dormant (negative)", async () => {
    const results = await lifecycle({});
    expect(results.map((row) => [row.status, row.data, row.count])).toEqual([
      ["new", [0, 1, 0, 0, 0], 1],
      ["returning", [2, 1, 2, 1, 1], 7],
      ["resurrecting", [0, 1, 0, 1, 1], 3],
      ["dormant", [0, -1, -1, -1, -1], -4],
    ]);
    expect(results[0]).toMatchObject({
      action: { id: "$pageview", name: "$pageview", type: "events", order: 0, math: "total" },
      labels: ["2-Mar-2024", "3-Mar-2024", "4-Mar-2024", "5-Mar-2024", "6-Mar-2024"],
      days: ["2024-03-02", "2024-03-03", "2024-03-04", "2024-03-05", "2024-03-06"],
      label: "$pageview - new",
      status: "new",
    });
    expect(results[0]!.action).not.toHaveProperty("custom_name");
    expect(results[3]!.label).toBe("$pageview - dormant");
  });

  it("counts the visitors it leaves out, whose events in the range carry no person profile, for the chart's note", async () => {
    // The event without a person ("anon") and q's unprocessed one; x's unprocessed event does not count, x has processed ones.
    expect((await lifecycleKind.compute(env(), specOf({}))).extra).toEqual({ personlessVisitors: 2 });
    // On the 5th and 6th: x alone, whose only event there carries no profile.
    expect((await lifecycleKind.compute(env(), specOf({ dateRange: { date_from: "2024-03-05", date_to: "2024-03-06" } }))).extra).toEqual({ personlessVisitors: 1 });
    expect((await lifecycleKind.compute(env(), specOf({ dateRange: { date_from: "2024-03-06", date_to: "2024-03-07" } }))).extra).toEqual({ personlessVisitors: 0 });
  });

  it("lists the persons of a point: a day and a status, either alone", async () => {
    const spec = specOf({});
    expect(await lifecycleKind.actors!(env(), spec, { day: "2024-03-05", status: "dormant" })).toEqual([n]);
    expect(await lifecycleKind.actors!(env(), spec, { day: "2024-03-02", status: "returning" })).toEqual([p, r]);
    expect(await lifecycleKind.actors!(env(), spec, { day: "2024-03-03T00:00:00", status: "resurrecting" })).toEqual([x]);
    expect(await lifecycleKind.actors!(env(), spec, { status: "resurrecting" })).toEqual([r, x, old]);
    expect(await lifecycleKind.actors!(env(), spec, { day: "2024-03-03" })).toEqual([p, r, x, n]);
    await expect(lifecycleKind.actors!(env(), spec, { status: "gone" })).rejects.toThrow(/status must be one of/);
    await expect(lifecycleKind.actors!(env(), spec, { day: "March" })).rejects.toThrow(/day must be a date/);
  });

  it("classifies weeks from Sunday", async () => {
    const results = await lifecycle({ interval: "week", dateRange: { date_from: "2024-03-03", date_to: "2024-03-09" } });
    expect(results.map((row) => [row.status, row.data])).toEqual([
      ["new", [1]],
      ["returning", [2]],
      ["resurrecting", [2]],
      ["dormant", [0]],
    ]);
    expect(results[0]!.labels).toEqual(["3–9 Mar"]);
  });

  it("labels all events and keeps a custom name", async () => {
    const [first] = await lifecycle({ series: [{ kind: "EventsNode", event: null, custom_name: "Anything" }] });
    expect(first!.label).toBe("All events - new");
    expect(first!.action).toEqual({ id: null, name: "All events", type: "events", order: 0, math: "total", custom_name: "Anything" });
  });

  it.each([
    [{ series: [] }, /At least one series/],
    [{ series: [{ kind: "EventsNode", event: "a" }, { kind: "EventsNode", event: "b" }] }, /A lifecycle has one series/],
    [{ series: [{ kind: "ActionsNode", id: 1 }] }, /Series kind 'ActionsNode' is not supported/],
    [{ interval: "minute" }, /interval 'minute' is not supported/],
    [{ aggregation_group_type_index: 0 }, /aggregation_group_type_index/],
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
    const response = await post({ kind: "LifecycleQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: days });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: LifecycleResult[]; personlessVisitors: number };
    expect(body.personlessVisitors).toBe(2);
    expect(body.results.map((row) => row.data)).toEqual([
      [0, 1, 0, 0, 0],
      [2, 1, 2, 1, 1],
      [0, 1, 0, 1, 1],
      [0, -1, -1, -1, -1],
    ]);
    const refused = await post({ kind: "LifecycleQuery", series: [] });
    expect(refused.status).toBe(400);
    // A malformed field is PostHog's parse error, the field named in the detail.
    expect(await refused.json()).toMatchObject({ type: "invalid_request", code: "parse_error", attr: null, detail: expect.stringContaining("query.series") });
  });
});
