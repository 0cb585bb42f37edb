/**
 * A dashboard's tiles in one round trip (tRPC `dashboards.results`) over events sent through
 * the ingestion pipeline: every insight tile computed, then from the cache; the dashboard's
 * saved filters (PATCHed over REST and tRPC) replace each tile's date range and AND their
 * conditions with the tile's own; the page's temporary filters replace the saved ones; the
 * shared page computes the same way; a removal leaves no gap in the grid.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { createTRPCClient, httpBatchStreamLink } from "@trpc/client";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter, createCaller, type AppRouter } from "@/server/http/trpc/root";
import { restRoute } from "@/test-support/rest-routes";
import { sendBatch } from "@/test-support/ingestion";
import { clearInsightCache } from "@/server/insights/service";
import { findSharedDashboardCharting } from "@/server/sharing/service";
import { findSharedDashboardWithCharts } from "@/test-support/shared-charts";
import type { TrendsSeriesResult } from "@/server/trends/service";
import { callRoute, createWorld, type Person, type World } from "@/test-support/dashboards-api";
import { mapAsCompleted, TILE_CONCURRENCY } from "./service";

const envItem = restRoute("environments", "dashboards/:id");
const sharingRoute = restRoute("environments", "dashboards/:id/sharing");

let db: Database;
let world: World;
let projectId: number;

const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
  projectId = world.projectId;
  const { apiToken } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
  const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();
  const events = [
    // Two page views yesterday, on Chrome; three 20 days ago, one on Chrome.
    { event: "$pageview", distinct_id: "ann", timestamp: at(1), properties: { $pathname: "/", $browser: "Chrome" } },
    { event: "$pageview", distinct_id: "ann", timestamp: at(1), properties: { $pathname: "/pricing", $browser: "Chrome" } },
    { event: "$pageview", distinct_id: "ben", timestamp: at(20), properties: { $pathname: "/", $browser: "Safari" } },
    { event: "$pageview", distinct_id: "ben", timestamp: at(20), properties: { $pathname: "/docs", $browser: "Safari" } },
    { event: "$pageview", distinct_id: "cy", timestamp: at(20), properties: { $pathname: "/", $browser: "Chrome" } },
  ];
  await sendBatch(apiToken, events.map((event) => ({ uuid: randomUUID(), ...event })));
});

afterAll(async () => {
  await closeDb();
});

const as = (who: Person) =>
  createCaller({ db, headers: new Headers(), user: { id: who.id, uuid: who.uuid, email: who.email, firstName: "", currentProjectId: world.projectId } });
/**
 * The browser's client for `who`: the page's link (httpBatchStreamLink) over tRPC's fetch
 * adapter, in process, so that the answer is the JSON-lines stream a browser reads.
 */
const overHttp = (who: Person) =>
  createTRPCClient<AppRouter>({
    links: [
      httpBatchStreamLink({
        url: "http://burrow.test/api/trpc",
        fetch: (url, init) =>
          fetchRequestHandler({
            endpoint: "/api/trpc",
            req: new Request(url, init as RequestInit),
            router: appRouter,
            createContext: () => ({ db, headers: new Headers(), user: { id: who.id, uuid: who.uuid, email: who.email, firstName: "", currentProjectId: world.projectId } }),
          }),
      }),
    ],
  });
const params = (id: number) => ({ project_id: String(projectId), id: String(id) });
const patch = (who: Person, id: number, body: unknown) => callRoute(envItem, "PATCH", `/api/environments/${projectId}/dashboards/${id}/`, params(id), who.key, body);

/** The results one `dashboards.results` stream yields, gathered in the order they came. */
async function gathered<T>(stream: Promise<AsyncIterable<T>>): Promise<{ results: T[] }> {
  const results: T[] = [];
  for await (const result of await stream) results.push(result);
  return { results };
}

/** The total of a trend tile's one series. */
const total = (result: { state: string; result?: unknown[] } | undefined) => ((result?.result ?? []) as TrendsSeriesResult[]).reduce((sum, series) => sum + series.count, 0);

const pageviews = (dateFrom: string, properties: unknown[] = []) => ({
  kind: "InsightVizNode",
  source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "total" }], interval: "day", dateRange: { date_from: dateFrom }, properties },
});

async function dashboardWithTiles(who: Person) {
  const api = as(who);
  const dashboard = await api.dashboards.create({ projectId, name: `Results ${randomUUID().slice(0, 6)}` });
  await api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: { name: "Pageviews 7d", query: pageviews("-7d") } });
  await api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: { name: "Chrome 30d", query: pageviews("-30d", [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]) } });
  const full = await api.dashboards.tiles.update({ projectId, dashboardId: dashboard.id, tiles: [{ text: { body: "# Notes" } }] });
  const tileOf = (name: string) => full.tiles.find((tile) => tile.insight?.name === name)!.id;
  return { id: dashboard.id, weekTile: tileOf("Pageviews 7d"), chromeTile: tileOf("Chrome 30d"), tiles: full.tiles };
}

describe(`dashboard results in one round trip (${testDbKind})`, () => {
  it("computes every insight tile under its own range, then answers from the cache; refresh recomputes", async () => {
    const api = as(world.member);
    const board = await dashboardWithTiles(world.member);
    clearInsightCache(db);
    const first = await gathered(api.dashboards.results({ projectId, dashboardId: board.id }));
    expect(first.results.map((result) => result.tile_id).sort()).toEqual([board.weekTile, board.chromeTile].sort());
    const byTile = new Map(first.results.map((result) => [result.tile_id, result]));
    expect(total(byTile.get(board.weekTile))).toBe(2);
    expect(total(byTile.get(board.chromeTile))).toBe(3);
    expect(byTile.get(board.weekTile)).toMatchObject({ state: "ready", is_cached: false, effective: { date_from: "-7d", date_to: null, dashboard_properties: [], insight_properties: [] } });
    expect(byTile.get(board.chromeTile)!.effective.insight_properties).toEqual([{ type: "event", key: "$browser", operator: "exact", value: "Chrome" }]);

    const again = await gathered(api.dashboards.results({ projectId, dashboardId: board.id }));
    expect(again.results.every((result) => result.state === "ready" && result.is_cached)).toBe(true);
    // By tile: the stream yields tiles in the order they finish, which differs between calls.
    const lastRefresh = (answer: typeof first) => Object.fromEntries(answer.results.map((result) => [result.tile_id, result.state === "ready" ? result.last_refresh : null]));
    expect(lastRefresh(again)).toEqual(lastRefresh(first));

    const fresh = await gathered(api.dashboards.results({ projectId, dashboardId: board.id, refresh: true }));
    expect(fresh.results.every((result) => result.state === "ready" && !result.is_cached)).toBe(true);

    // One tile's own refresh: only it, recomputed.
    const one = await gathered(api.dashboards.results({ projectId, dashboardId: board.id, refresh: true, tileIds: [board.chromeTile] }));
    expect(one.results).toHaveLength(1);
    expect(one.results[0]).toMatchObject({ tile_id: board.chromeTile, state: "ready", is_cached: false });
    expect(total(one.results[0])).toBe(3);
  });

  it("streams each tile as soon as it is computed: cached tiles before a cold one listed first; a failing tile is its own error", async () => {
    const api = as(world.member);
    const dashboard = await api.dashboards.create({ projectId, name: `Stream ${randomUUID().slice(0, 6)}` });
    const add = (name: string, query: unknown) => api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: { name, query } });
    // First on the dashboard, and the most work: four series, each broken down, over 90 days.
    const heavySeries = ["$pageview", "$pageview", "$pageview", "$pageview"].map((event, index) => ({ kind: "EventsNode", event, math: index % 2 ? "dau" : "total" }));
    await add("Heavy", {
      kind: "InsightVizNode",
      source: { kind: "TrendsQuery", series: heavySeries, interval: "day", dateRange: { date_from: "-90d" }, breakdownFilter: { breakdown: "$pathname", breakdown_type: "event" } },
    });
    for (const days of [7, 14, 30]) await add(`Light ${days}d`, pageviews(`-${days}d`));
    const full = await add("Broken", pageviews("-7d"));
    const idOf = (name: string) => full.tiles.find((tile) => tile.insight?.name === name)!.id;
    const heavy = idOf("Heavy");
    const light = [7, 14, 30].map((days) => idOf(`Light ${days}d`));
    const broken = idOf("Broken");
    // A query no tile can run: computed, it is that tile's error, not the stream's.
    await db.prisma.insight.update({ where: { id: full.tiles.find((tile) => tile.id === broken)!.insight!.id }, data: { query: { kind: "WebGoalsQuery" } } });
    // As many as compute at once, so that all start together and none waits for a lane.
    const racing = [heavy, ...light];
    expect(racing).toHaveLength(TILE_CONCURRENCY);

    clearInsightCache(db);
    // The light tiles computed (and cached) on their own first: the heavy one stays cold.
    const warmed = await gathered(api.dashboards.results({ projectId, dashboardId: dashboard.id, tileIds: light }));
    expect(warmed.results.map((result) => result.tile_id).sort()).toEqual([...light].sort());

    const arrivals: { tileId: number; at: number; cached: boolean | null }[] = [];
    const started = performance.now();
    for await (const result of await overHttp(world.member).dashboards.results.query({ projectId, dashboardId: dashboard.id, tileIds: racing })) {
      arrivals.push({ tileId: result.tile_id, at: performance.now() - started, cached: result.state === "ready" ? result.is_cached : null });
    }
    const order = arrivals.map((arrival) => arrival.tileId);
    expect([...order].sort()).toEqual([...racing].sort());
    // Listed first, computed last: it came after every cached tile, which did not wait for it.
    expect(order.at(-1), JSON.stringify(arrivals)).toBe(heavy);
    expect(arrivals.find((arrival) => arrival.tileId === heavy)!.cached).toBe(false);
    expect(arrivals.filter((arrival) => light.includes(arrival.tileId)).every((arrival) => arrival.cached === true)).toBe(true);
    const firstLight = Math.min(...arrivals.filter((arrival) => light.includes(arrival.tileId)).map((arrival) => arrival.at));
    expect(firstLight).toBeLessThan(arrivals.find((arrival) => arrival.tileId === heavy)!.at);

    const answers = await gathered(api.dashboards.results({ projectId, dashboardId: dashboard.id, refresh: true }));
    expect(answers.results.map((result) => result.tile_id).sort()).toEqual([...racing, broken].sort());
    const byTile = new Map(answers.results.map((result) => [result.tile_id, result]));
    expect(byTile.get(broken)).toMatchObject({ state: "error", message: expect.stringContaining("not supported") });
    expect(total(byTile.get(light[0]!))).toBe(2);
    for (const id of light) expect(byTile.get(id)).toMatchObject({ state: "ready", is_cached: false });
    expect(byTile.get(heavy)).toMatchObject({ state: "ready", is_cached: false });

    // The shared page's charts settle the same way, each as soon as it is computed.
    clearInsightCache(db);
    await gathered(api.dashboards.results({ projectId, dashboardId: dashboard.id, tileIds: light }));
    const sharing = await callRoute(sharingRoute, "PATCH", `/api/environments/${projectId}/dashboards/${dashboard.id}/sharing/`, params(dashboard.id), world.member.key, { enabled: true });
    expect(sharing.status, sharing.text).toBe(200);
    const shared = (await findSharedDashboardCharting(db, sharing.body.access_token))!;
    const settled: string[] = [];
    await Promise.all(
      shared.dashboard.tiles.map(async (tile) => {
        const chart = await shared.charts[tile.id]!;
        settled.push(`${tile.insight!.name}: ${chart.state}`);
      }),
    );
    expect([...settled].sort()).toEqual(["Broken: error", "Heavy: ready", "Light 14d: ready", "Light 30d: ready", "Light 7d: ready"]);
    expect(settled.indexOf("Heavy: ready"), settled.join(", ")).toBeGreaterThan(Math.max(...["7d", "14d", "30d"].map((days) => settled.indexOf(`Light ${days}: ready`))));

    // A tile's own refresh streams just it; its error too.
    expect((await gathered(api.dashboards.results({ projectId, dashboardId: dashboard.id, refresh: true, tileIds: [broken] }))).results).toEqual([
      expect.objectContaining({ tile_id: broken, state: "error" }),
    ]);
  });

  it("lays the saved filters over every tile: the range replaces the tile's, conditions AND with its own", async () => {
    const api = as(world.member);
    const board = await dashboardWithTiles(world.member);
    const chrome = { key: "$browser", value: "Chrome", operator: "exact", type: "event" };
    const saved = await patch(world.member, board.id, { filters: { date_from: "-30d", properties: [{ key: "$pathname", value: "/", operator: "exact", type: "event" }] } });
    expect(saved.status, saved.text).toBe(200);
    const answer = new Map((await gathered(api.dashboards.results({ projectId, dashboardId: board.id }))).results.map((result) => [result.tile_id, result]));
    // The 7-day tile now counts 30 days of "/": ann yesterday, ben and cy 20 days ago.
    expect(total(answer.get(board.weekTile))).toBe(3);
    expect(answer.get(board.weekTile)!.effective).toMatchObject({ date_from: "-30d", dashboard_properties: [{ key: "$pathname", value: ["/"] }] });
    // Chrome (the tile's own) and "/" (the dashboard's): ann yesterday and cy.
    expect(total(answer.get(board.chromeTile))).toBe(2);
    expect(answer.get(board.chromeTile)!.effective.insight_properties).toEqual([chrome]);

    // The page's temporary filters replace the saved ones (here: none, and yesterday only).
    const temporary = new Map(
      (await gathered(api.dashboards.results({ projectId, dashboardId: board.id, filters: { date_from: "-1d", date_to: null, properties: [] } }))).results.map((result) => [result.tile_id, result]),
    );
    expect(total(temporary.get(board.weekTile))).toBe(2);
    expect(total(temporary.get(board.chromeTile))).toBe(2);
    expect(temporary.get(board.weekTile)!.effective).toMatchObject({ date_from: "-1d", dashboard_properties: [] });

    // Saved through tRPC too; the shared page computes under them.
    await api.dashboards.update({ projectId, dashboardId: board.id, filters: { date_from: "-1d" } });
    const sharing = await callRoute(sharingRoute, "PATCH", `/api/environments/${projectId}/dashboards/${board.id}/sharing/`, params(board.id), world.member.key, { enabled: true });
    expect(sharing.status, sharing.text).toBe(200);
    const shared = await findSharedDashboardWithCharts(db, sharing.body.access_token);
    const sharedCharts = shared!.tiles.filter((tile) => tile.insight).map((tile) => tile.insight!.computation!);
    expect(sharedCharts.map((chart) => (chart.state === "ready" ? total({ state: "ready", result: chart.result }) : -1))).toEqual([2, 2]);
    expect(sharedCharts[0]!.effective).toMatchObject({ date_from: "-1d" });
  });

  it("sends the shared page only the results it draws: no persons or events behind a tile it cannot draw (issue 32)", async () => {
    const { apiToken } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    await sendBatch(apiToken, [{ uuid: randomUUID(), event: "$pageview", distinct_id: "dee", timestamp: new Date(Date.now() - DAY).toISOString(), properties: { $pathname: "/", $set: { email: "dee@private.example" } } }]);
    const api = as(world.member);
    const board = await api.dashboards.create({ projectId, name: `Shared kinds ${randomUUID().slice(0, 6)}` });
    const range = { date_from: "-30d" };
    // Every kind the page draws, and kinds it says it cannot draw (persons, web analytics); the
    // kinds a dashboard takes are these (EventsQuery is refused when the tile is added).
    const tiles: Record<string, { query: unknown; drawn: boolean }> = {
      trends: { query: pageviews("-30d"), drawn: true },
      funnel: { query: { kind: "InsightVizNode", source: { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "$pageview" }], dateRange: range } }, drawn: true },
      retention: { query: { kind: "InsightVizNode", source: { kind: "RetentionQuery", retentionFilter: { period: "Day", totalIntervals: 3 }, dateRange: range } }, drawn: true },
      lifecycle: { query: { kind: "InsightVizNode", source: { kind: "LifecycleQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: range } }, drawn: true },
      stickiness: { query: { kind: "InsightVizNode", source: { kind: "StickinessQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: range } }, drawn: true },
      paths: { query: { kind: "InsightVizNode", source: { kind: "PathsQuery", dateRange: range } }, drawn: true },
      hogql: { query: { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: "SELECT event, count() FROM events GROUP BY event" } }, drawn: true },
      actors: {
        query: { kind: "DataTableNode", source: { kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: pageviews("-30d").source, day: new Date(Date.now() - DAY).toISOString().slice(0, 10), series: 0 }, select: ["person"] } },
        drawn: false,
      },
      overview: { query: { kind: "DataTableNode", source: { kind: "WebOverviewQuery", properties: [], dateRange: range } }, drawn: false },
      web: { query: { kind: "DataTableNode", source: { kind: "WebStatsTableQuery", breakdownBy: "Page", properties: [], dateRange: range } }, drawn: false },
    };
    for (const [name, tile] of Object.entries(tiles)) await api.dashboards.tiles.addInsight({ projectId, dashboardId: board.id, insight: { name, query: tile.query } });
    const sharing = await callRoute(sharingRoute, "PATCH", `/api/environments/${projectId}/dashboards/${board.id}/sharing/`, params(board.id), world.member.key, { enabled: true });
    expect(sharing.status, sharing.text).toBe(200);
    const shared = (await findSharedDashboardWithCharts(db, sharing.body.access_token))!;
    // What the page hands the browser: the dashboard and every chart, as one payload.
    const payload = JSON.stringify(shared);
    expect(payload).not.toContain("dee@private.example");
    expect(payload).not.toContain('"distinct_id"');
    const byName = new Map(shared.tiles.filter((tile) => tile.insight).map((tile) => [tile.insight!.name, tile.insight!.computation!]));
    for (const [name, tile] of Object.entries(tiles)) {
      const chart = byName.get(name)!;
      expect([name, chart.state]).toEqual([name, "ready"]);
      if (chart.state !== "ready") continue;
      // Drawn kinds keep their rows (paths has none here: these events carry no $current_url).
      if (!tile.drawn) expect([name, chart.result]).toEqual([name, []]);
      else if (name !== "paths") expect([name, chart.result.length > 0]).toEqual([name, true]);
      if (name !== "hogql") expect([name, chart.columns]).toEqual([name, null]);
    }
    // The signed-in dashboard still gets every tile's rows: only the share page leaves them out.
    const own = await gathered(api.dashboards.results({ projectId, dashboardId: board.id }));
    expect(JSON.stringify(own.results)).toContain("dee@private.example");
  });

  it("carries a lifecycle tile's visitors left out for want of a person profile, on the page, from the cache and on the shared page (issue 34)", async () => {
    const { apiToken } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    // Yesterday, "read article": rea with a person profile; two anonymous visitors under
    // posthog-js's identified_only (one of them twice), whose events make no person.
    const read = (distinctId: string, properties: Record<string, unknown> = {}) => ({
      uuid: randomUUID(),
      event: "read article",
      distinct_id: distinctId,
      timestamp: new Date(Date.now() - DAY).toISOString(),
      properties,
    });
    const anonymous = { $process_person_profile: false };
    await sendBatch(apiToken, [read("rea"), read("anon-a", anonymous), read("anon-b", anonymous), read("anon-b", anonymous)]);
    const api = as(world.member);
    const dashboard = await api.dashboards.create({ projectId, name: `Lifecycle ${randomUUID().slice(0, 6)}` });
    const series = [{ kind: "EventsNode", event: "read article" }];
    await api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: { name: "Readers", query: { kind: "InsightVizNode", source: { kind: "LifecycleQuery", series, dateRange: { date_from: "-7d" } } } } });
    const full = await api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: { name: "Reads", query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series, dateRange: { date_from: "-7d" } } } } });
    const idOf = (name: string) => full.tiles.find((tile) => tile.insight?.name === name)!.id;
    const [lifecycleTile, trendsTile] = [idOf("Readers"), idOf("Reads")];

    clearInsightCache(db);
    const byTile = async (filters?: { date_from: string; date_to: string | null; properties: [] }) =>
      new Map((await gathered(api.dashboards.results({ projectId, dashboardId: dashboard.id, filters }))).results.map((result) => [result.tile_id, result]));
    const first = await byTile();
    // Lifecycle counts rea alone (new yesterday, dormant today); the two anonymous visitors are the note's.
    expect(first.get(lifecycleTile)).toMatchObject({ state: "ready", is_cached: false, personlessVisitors: 2 });
    const lifecycleRows = (first.get(lifecycleTile) as { result: { status: string; count: number }[] }).result;
    expect(lifecycleRows.map((row) => [row.status, row.count])).toEqual([["new", 1], ["returning", 0], ["resurrecting", 0], ["dormant", -1]]);
    expect(first.get(trendsTile)).toMatchObject({ state: "ready", personlessVisitors: null });
    // From the cache, the count with it.
    expect((await byTile()).get(lifecycleTile)).toMatchObject({ is_cached: true, personlessVisitors: 2 });
    // Under the page's filters: a range before these events has no one to leave out.
    expect((await byTile({ date_from: "-30d", date_to: "-10d", properties: [] })).get(lifecycleTile)).toMatchObject({ state: "ready", personlessVisitors: 0 });

    // The saved insight on its own (its page, and the REST resource's field) says the same.
    const insightId = full.tiles.find((tile) => tile.id === lifecycleTile)!.insight!.id;
    expect(await api.insights.compute({ projectId, insightId })).toMatchObject({ personlessVisitors: 2 });

    // The shared page: the count (no one in it) for the lifecycle tile, nothing for the others.
    const sharing = await callRoute(sharingRoute, "PATCH", `/api/environments/${projectId}/dashboards/${dashboard.id}/sharing/`, params(dashboard.id), world.member.key, { enabled: true });
    expect(sharing.status, sharing.text).toBe(200);
    const shared = (await findSharedDashboardWithCharts(db, sharing.body.access_token))!;
    const charts = new Map(shared.tiles.map((tile) => [tile.insight!.name, tile.insight!.computation!]));
    expect(charts.get("Readers")).toMatchObject({ state: "ready", personlessVisitors: 2 });
    expect(charts.get("Reads")).toMatchObject({ state: "ready", personlessVisitors: null });
    expect(JSON.stringify(shared)).not.toContain("anon-a");
  });

  it("refuses filters the insights cannot read, on PATCH and in the results call", async () => {
    const board = await dashboardWithTiles(world.member);
    const bad = await patch(world.member, board.id, { filters: { date_from: "the day before" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: "validation_error", attr: "filters" });
    const badProperties = await patch(world.member, board.id, { filters: { properties: [{ key: "$browser", operator: "regex", value: "(" }] } });
    expect(badProperties.status).toBe(400);
    await expect(as(world.member).dashboards.results({ projectId, dashboardId: board.id, filters: { date_from: "the day before" } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("answers 404 for a dashboard of another project", async () => {
    const board = await dashboardWithTiles(world.member);
    await expect(as(world.outsider).dashboards.results({ projectId, dashboardId: board.id })).rejects.toMatchObject({ code: expect.stringMatching(/NOT_FOUND|FORBIDDEN/) });
  });

  it("closes the gap a removed tile leaves, for every client", async () => {
    const board = await dashboardWithTiles(world.member);
    const rect = (tiles: typeof board.tiles, id: number) => (tiles.find((tile) => tile.id === id)!.layouts as { sm: { x: number; y: number } }).sm;
    const text = board.tiles.find((tile) => tile.text)!.id;
    // The two charts side by side, the text below the first.
    expect(rect(board.tiles, text)).toMatchObject({ x: 0, y: 5 });
    const removed = await patch(world.member, board.id, { tiles: [{ id: board.weekTile, deleted: true }] });
    expect(removed.status, removed.text).toBe(200);
    expect(rect(removed.body.tiles, text)).toMatchObject({ x: 0, y: 0 });
    // A tile stored far down rises to the tile above it.
    const dropped = await patch(world.member, board.id, { tiles: [{ id: text, layouts: { sm: { x: 6, y: 40, w: 6, h: 2 } } }] });
    expect(rect(dropped.body.tiles, text)).toMatchObject({ x: 6, y: 5 });
  });
});

describe("mapAsCompleted", () => {
  const delayed = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("yields each answer as it is ready, with its item's index, never running more than the limit", async () => {
    let running = 0;
    let most = 0;
    const yielded: { index: number; value: number }[] = [];
    // Each item's work ends when the test says so: an order of timers is one a loaded machine can swap.
    const ends = new Map<number, () => void>();
    const consumed = (async () => {
      for await (const answer of mapAsCompleted([40, 5, 25, 10, 1], 3, async (item) => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => ends.set(item, resolve));
        running--;
        return item;
      })) {
        yielded.push(answer);
      }
    })();
    await vi.waitFor(() => expect([...ends.keys()]).toEqual([40, 5, 25]));
    // 10 and 1 take the lane 5 frees, one after the other; the answers come in the order the work ends.
    for (const item of [5, 10, 1, 25, 40]) {
      await vi.waitFor(() => expect(ends.has(item)).toBe(true));
      ends.get(item)!();
      await vi.waitFor(() => expect(yielded.at(-1)?.value).toBe(item));
    }
    await consumed;
    expect(yielded).toEqual([
      { index: 1, value: 5 },
      { index: 3, value: 10 },
      { index: 4, value: 1 },
      { index: 2, value: 25 },
      { index: 0, value: 40 },
    ]);
    expect(most).toBe(3);
  });

  it("throws the first failure after the answers ready before it, and starts no more work once its consumer stops", async () => {
    const started: number[] = [];
    const yielded: number[] = [];
    const run = async () => {
      for await (const { value } of mapAsCompleted([1, 2, 3, 4], 1, async (item) => {
        started.push(item);
        await delayed(1);
        if (item === 2) throw new Error("tile 2 broke");
        return item;
      })) {
        yielded.push(value);
      }
    };
    await expect(run()).rejects.toThrow("tile 2 broke");
    expect(yielded).toEqual([1]);
    expect(started).toEqual([1, 2]);

    const stoppedEarly: number[] = [];
    for await (const { value } of mapAsCompleted([1, 2, 3, 4], 1, async (item) => {
      stoppedEarly.push(item);
      await delayed(1);
      return item;
    })) {
      if (value === 1) break;
    }
    await delayed(20);
    expect(stoppedEarly).toEqual([1, 2]);
  });
});
