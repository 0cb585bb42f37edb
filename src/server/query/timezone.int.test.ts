/**
 * The project's time zone across every query kind, /web and dashboards (issue 34): a project
 * in Europe/Berlin, whose clocks went forward at 02:00 on 31 March 2024 (30 March is UTC+1,
 * 31 March 23 hours long, 1 April UTC+2), set through PATCH-able settings, with events near
 * local midnight on either side. Each answer below is worked out by hand on Berlin's wall
 * clock, and each differs from the UTC one (given beside it), so a kind that bucketed in UTC
 * fails. Runs on every store (BURROW_TEST_DB, BURROW_TEST_EVENTS).
 *
 *   alice: A 2024-03-29T23:30Z = 30 Mar 00:30 +01   (UTC day: 29 Mar)
 *          C 2024-03-30T23:30Z = 31 Mar 00:30 +01   (UTC: 30 Mar)
 *          E1 2024-03-31T22:30Z = 1 Apr 00:30 +02 /pricing, E2 22:35Z /buy   (UTC: 31 Mar)
 *   bob:   B 2024-03-30T22:30Z = 30 Mar 23:30 +01   (UTC: 30 Mar)
 *          D 2024-03-31T21:30Z = 31 Mar 23:30 +02   (UTC: 31 Mar)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { createCaller } from "@/server/http/trpc/root";
import { sendBatch } from "@/test-support/ingestion";
import { clearQueryCache } from "./service";

let db: Database;
let projectId: number;
let api: ReturnType<typeof createCaller>;

const RANGE = { date_from: "2024-03-30", date_to: "2024-04-01" };
const pageview = (distinct_id: string, timestamp: string, path = "/") => ({
  event: "$pageview",
  uuid: randomUUID(),
  distinct_id,
  timestamp,
  properties: { $pathname: path, $current_url: `https://shop.example${path}`, $host: "shop.example", $session_id: `${distinct_id}-${timestamp.slice(0, 10)}` },
});

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "zone@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "zone@example.com" } });
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
  await api.account.updateProject({ projectId, timezone: "Europe/Berlin" });
  await sendBatch(owner.project_api_key, [
    pageview("alice", "2024-03-29T23:30:00.000Z"),
    pageview("alice", "2024-03-30T23:30:00.000Z"),
    pageview("alice", "2024-03-31T22:30:00.000Z", "/pricing"),
    pageview("alice", "2024-03-31T22:35:00.000Z", "/buy"),
    pageview("bob", "2024-03-30T22:30:00.000Z"),
    pageview("bob", "2024-03-31T21:30:00.000Z"),
  ]);
  clearQueryCache(db);
});

afterAll(async () => {
  await closeDb();
});

const run = (query: Record<string, unknown>) => api.query.run({ projectId, request: { query, refresh: "force_blocking" } });
const series = (results: unknown) => results as { label: string; data: number[]; days?: string[]; status?: string }[];
const views = [{ kind: "EventsNode", event: "$pageview" }];

describe(`the project's time zone across a DST change (${testStoresName})`, () => {
  it("trends: days from local midnight, the 23-hour day included", async () => {
    const answer = await run({ kind: "TrendsQuery", series: views, interval: "day", dateRange: RANGE });
    expect(answer.timezone).toBe("Europe/Berlin");
    expect(answer.resolved_date_range).toEqual({ date_from: "2024-03-30T00:00:00+01:00", date_to: "2024-04-01T23:59:59+02:00" });
    // UTC would say [2, 3, 0].
    expect(series(answer.results)[0]!.data).toEqual([2, 2, 2]);
    expect(series(answer.results)[0]!.days).toEqual(["2024-03-30", "2024-03-31", "2024-04-01"]);
    const users = await run({ kind: "TrendsQuery", series: [{ ...views[0], math: "dau" }], interval: "day", dateRange: RANGE });
    expect(series(users.results)[0]!.data).toEqual([2, 2, 1]);
    // Hours of 31 March: its first local hour (alice's C) and its last (bob's D).
    const hours = await run({ kind: "TrendsQuery", series: views, interval: "hour", dateRange: { date_from: "2024-03-31T00:00", date_to: "2024-03-31T23:59" } });
    const hourly = series(hours.results)[0]!;
    expect(hourly.data[0]).toBe(1);
    expect(hourly.data.at(-1)).toBe(1);
    expect(hourly.data.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it("stickiness: days active counted on local days", async () => {
    const answer = await run({ kind: "StickinessQuery", series: views, interval: "day", dateRange: RANGE });
    // alice on 3 local days, bob on 2 (UTC: both on 2, [0, 2, 0]).
    expect(series(answer.results)[0]!.data).toEqual([0, 1, 1]);
  });

  it("lifecycle: new and returning on local days", async () => {
    const answer = await run({ kind: "LifecycleQuery", series: views, interval: "day", dateRange: RANGE });
    const byStatus = Object.fromEntries(series(answer.results).map((one) => [one.status, one.data]));
    // Both new on 30 March (alice's first event is 29 March in UTC: "returning" there), both back on the 31st, bob gone on 1 April.
    expect(byStatus.new).toEqual([2, 0, 0]);
    expect(byStatus.returning).toEqual([0, 2, 1]);
    expect(byStatus.dormant).toEqual([0, 0, -1]);
  });

  it("retention: cohorts of local days", async () => {
    const answer = await run({
      kind: "RetentionQuery",
      dateRange: { date_from: "2024-03-30", date_to: "2024-04-01" },
      retentionFilter: { period: "Day", totalIntervals: 3, targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" } },
    });
    const rows = answer.results as { date: string; values: { count: number }[] }[];
    expect(rows[0]!.date).toBe("2024-03-30T00:00:00+01:00");
    expect(rows[1]!.date).toBe("2024-03-31T00:00:00+01:00");
    // 30 March: alice and bob; both back the next day, alice the day after (UTC: bob and alice's C on the 30th, [2, 2, 0]).
    expect(rows[0]!.values.map((cell) => cell.count)).toEqual([2, 2, 1]);
  });

  it("funnels: the range ends at local midnight", async () => {
    const answer = await run({ kind: "FunnelsQuery", series: views, dateRange: { date_from: "2024-04-01", date_to: "2024-04-01" } });
    // Only alice's E1 (UTC 1 April has no events at all).
    expect((answer.results as { count: number }[]).map((step) => step.count)).toEqual([1]);
  });

  it("paths: the range ends at local midnight", async () => {
    const answer = await run({ kind: "PathsQuery", dateRange: { date_from: "2024-04-01", date_to: "2024-04-01" } });
    expect(answer.results).toEqual([expect.objectContaining({ source: "1_https://shop.example/pricing", target: "2_https://shop.example/buy", value: 1 })]);
  });

  it("/web: the overview's day is the local day", async () => {
    const answer = await run({ kind: "WebOverviewQuery", properties: [], dateRange: { date_from: "2024-04-01", date_to: "2024-04-01" } });
    const item = (key: string) => (answer.results as { key: string; value: number | null }[]).find((one) => one.key === key)?.value;
    expect(item("visitors")).toBe(1);
    expect(item("views")).toBe(2);
  });

  it("dashboards: a tile answers in the project's zone", async () => {
    const dashboard = await api.dashboards.create({ projectId, name: "Zones" });
    await api.dashboards.tiles.addInsight({
      projectId,
      dashboardId: dashboard.id,
      insight: { name: "Views", query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: views, interval: "day", dateRange: RANGE } } },
    });
    const tiles = [];
    for await (const tile of await api.dashboards.results({ projectId, dashboardId: dashboard.id })) tiles.push(tile);
    expect(tiles).toHaveLength(1);
    const tile = tiles[0]!;
    expect(tile).toMatchObject({ state: "ready", timezone: "Europe/Berlin" });
    expect(series((tile as { result: unknown }).result)[0]!.data).toEqual([2, 2, 2]);
  });
});
