/**
 * A dashboard's tiles in one round trip (tRPC `dashboards.results`) over events sent through
 * the ingestion pipeline: every insight tile computed, then from the cache; the dashboard's
 * saved filters (PATCHed over REST and tRPC) replace each tile's date range and AND their
 * conditions with the tile's own; the page's temporary filters replace the saved ones; the
 * shared page computes the same way; a removal leaves no gap in the grid.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/server/db/testing";
import { createCaller } from "@/server/http/trpc/root";
import { restRoute } from "@/server/http/rest/routes.fixture";
import { sendBatch } from "@/server/ingestion/testing";
import { clearInsightCache } from "@/server/insights/service";
import { findSharedDashboardWithCharts } from "@/server/sharing/service";
import type { TrendsSeriesResult } from "@/server/trends/service";
import { callRoute, createWorld, type Person, type World } from "./api.fixture";
import { mapConcurrently } from "./service";

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
const params = (id: number) => ({ project_id: String(projectId), id: String(id) });
const patch = (who: Person, id: number, body: unknown) => callRoute(envItem, "PATCH", `/api/environments/${projectId}/dashboards/${id}/`, params(id), who.key, body);

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
    clearInsightCache();
    const first = await api.dashboards.results({ projectId, dashboardId: board.id });
    expect(first.results.map((result) => result.tile_id).sort()).toEqual([board.weekTile, board.chromeTile].sort());
    const byTile = new Map(first.results.map((result) => [result.tile_id, result]));
    expect(total(byTile.get(board.weekTile))).toBe(2);
    expect(total(byTile.get(board.chromeTile))).toBe(3);
    expect(byTile.get(board.weekTile)).toMatchObject({ state: "ready", is_cached: false, effective: { date_from: "-7d", date_to: null, dashboard_properties: [], insight_properties: [] } });
    expect(byTile.get(board.chromeTile)!.effective.insight_properties).toEqual([{ type: "event", key: "$browser", operator: "exact", value: "Chrome" }]);

    const again = await api.dashboards.results({ projectId, dashboardId: board.id });
    expect(again.results.every((result) => result.state === "ready" && result.is_cached)).toBe(true);
    const lastRefresh = (answer: typeof first) => answer.results.map((result) => (result.state === "ready" ? result.last_refresh : null));
    expect(lastRefresh(again)).toEqual(lastRefresh(first));

    const fresh = await api.dashboards.results({ projectId, dashboardId: board.id, refresh: true });
    expect(fresh.results.every((result) => result.state === "ready" && !result.is_cached)).toBe(true);

    // One tile's own refresh: only it, recomputed.
    const one = await api.dashboards.results({ projectId, dashboardId: board.id, refresh: true, tileIds: [board.chromeTile] });
    expect(one.results).toHaveLength(1);
    expect(one.results[0]).toMatchObject({ tile_id: board.chromeTile, state: "ready", is_cached: false });
    expect(total(one.results[0])).toBe(3);
  });

  it("lays the saved filters over every tile: the range replaces the tile's, conditions AND with its own", async () => {
    const api = as(world.member);
    const board = await dashboardWithTiles(world.member);
    const chrome = { key: "$browser", value: "Chrome", operator: "exact", type: "event" };
    const saved = await patch(world.member, board.id, { filters: { date_from: "-30d", properties: [{ key: "$pathname", value: "/", operator: "exact", type: "event" }] } });
    expect(saved.status, saved.text).toBe(200);
    const answer = new Map((await api.dashboards.results({ projectId, dashboardId: board.id })).results.map((result) => [result.tile_id, result]));
    // The 7-day tile now counts 30 days of "/": ann yesterday, ben and cy 20 days ago.
    expect(total(answer.get(board.weekTile))).toBe(3);
    expect(answer.get(board.weekTile)!.effective).toMatchObject({ date_from: "-30d", dashboard_properties: [{ key: "$pathname", value: ["/"] }] });
    // Chrome (the tile's own) and "/" (the dashboard's): ann yesterday and cy.
    expect(total(answer.get(board.chromeTile))).toBe(2);
    expect(answer.get(board.chromeTile)!.effective.insight_properties).toEqual([chrome]);

    // The page's temporary filters replace the saved ones (here: none, and yesterday only).
    const temporary = new Map(
      (await api.dashboards.results({ projectId, dashboardId: board.id, filters: { date_from: "-1d", date_to: null, properties: [] } })).results.map((result) => [result.tile_id, result]),
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

describe("mapConcurrently", () => {
  it("keeps the order of its items and never runs more than the limit at once", async () => {
    let running = 0;
    let most = 0;
    const answers = await mapConcurrently([5, 1, 4, 2, 3, 6, 1], 3, async (delay) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, delay * 3));
      running--;
      return delay * 10;
    });
    expect(answers).toEqual([50, 10, 40, 20, 30, 60, 10]);
    expect(most).toBe(3);
  });
});
