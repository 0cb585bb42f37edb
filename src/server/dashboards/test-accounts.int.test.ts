/**
 * A dashboard's "Internal and test users" (PostHog's DashboardFilter `filterTestAccounts`):
 * saved with the dashboard's filters it replaces every tile's own setting — on the dashboard
 * page, under the page's temporary filters, and on the shared page — and null leaves each
 * insight its own. The project keeps the test account filters it was created with (the
 * owner is owner@example.com: `email` not containing `@example.com`, `$host` not local).
 *
 * Yesterday's page views: ann 1 and ben 2 on shop.example; dev 1 from localhost:3000; staff
 * (staff@example.com) 1 on shop.example — 5 in all, 3 without the test accounts.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { createCaller } from "@/server/http/trpc/root";
import { restRoute } from "@/test-support/rest-routes";
import { sendBatch } from "@/test-support/ingestion";
import { findSharedDashboardWithCharts } from "@/test-support/shared-charts";
import type { TrendsSeriesResult } from "@/server/trends/service";
import { callRoute, createWorld, type Person, type World } from "@/test-support/dashboards-api";

const envItem = restRoute("environments", "dashboards/:id");
const sharingRoute = restRoute("environments", "dashboards/:id/sharing");

let db: Database;
let world: World;
let projectId: number;

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
  projectId = world.projectId;
  const { apiToken } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
  const yesterday = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
  const view = (who: string, host: string, email: string) => ({
    uuid: randomUUID(),
    event: "$pageview",
    distinct_id: who,
    timestamp: yesterday,
    properties: { $host: host, $current_url: `https://${host}/`, $set: { email } },
  });
  await sendBatch(apiToken, [
    view("ann", "shop.example", "ann@customer.test"),
    view("ben", "shop.example", "ben@customer.test"),
    view("ben", "shop.example", "ben@customer.test"),
    view("dev", "localhost:3000", "dev@customer.test"),
    view("staff", "shop.example", "staff@example.com"),
  ]);
});

afterAll(() => closeDb());

const as = (who: Person) => createCaller({ db, headers: new Headers(), user: { id: who.id, uuid: who.uuid, email: who.email, firstName: "", currentProjectId: world.projectId } });
const params = (id: number) => ({ project_id: String(projectId), id: String(id) });
const patch = (id: number, body: unknown) => callRoute(envItem, "PATCH", `/api/environments/${projectId}/dashboards/${id}/`, params(id), world.member.key, body);

const pageviews = (filterTestAccounts?: boolean) => ({
  kind: "InsightVizNode",
  source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "total" }], interval: "day", dateRange: { date_from: "-7d" }, ...(filterTestAccounts === undefined ? {} : { filterTestAccounts }) },
});

const total = (result: unknown[] | undefined) => ((result ?? []) as TrendsSeriesResult[]).reduce((sum, series) => sum + series.count, 0);

async function board() {
  const api = as(world.member);
  const dashboard = await api.dashboards.create({ projectId, name: `Test accounts ${randomUUID().slice(0, 6)}` });
  await api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: { name: "Own: all", query: pageviews() } });
  const full = await api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: { name: "Own: filtered", query: pageviews(true) } });
  return { id: dashboard.id, tileNames: new Map(full.tiles.map((tile) => [tile.id, tile.insight?.name])) };
}

/** Each tile's total and whether it was read without the test accounts, by insight name. */
async function tiles(dashboard: Awaited<ReturnType<typeof board>>, filters?: Record<string, unknown>) {
  const answer: Record<string, [number, boolean]> = {};
  for await (const result of await as(world.member).dashboards.results({ projectId, dashboardId: dashboard.id, ...(filters ? { filters } : {}) })) {
    if (result.state !== "ready") throw new Error(`tile ${result.tile_id}: ${result.message}`);
    answer[dashboard.tileNames.get(result.tile_id)!] = [total(result.result), result.effective.filter_test_accounts];
  }
  return answer;
}

async function shared(dashboardId: number) {
  const sharing = await callRoute(sharingRoute, "PATCH", `/api/environments/${projectId}/dashboards/${dashboardId}/sharing/`, params(dashboardId), world.member.key, { enabled: true });
  expect(sharing.status, sharing.text).toBe(200);
  const page = await findSharedDashboardWithCharts(db, sharing.body.access_token);
  return Object.fromEntries(
    page!.tiles.flatMap((tile) => (tile.insight?.computation?.state === "ready" ? [[tile.insight.name, [total(tile.insight.computation.result), tile.insight.computation.effective!.filter_test_accounts]]] : [])),
  );
}

describe(`a dashboard's "Internal and test users" (${testDbKind})`, () => {
  it("without it each insight keeps its own; saved on, every tile leaves them out, on the shared page too", async () => {
    const dashboard = await board();
    expect(await tiles(dashboard)).toEqual({ "Own: all": [5, false], "Own: filtered": [3, true] });

    const saved = await patch(dashboard.id, { filters: { date_from: null, date_to: null, properties: [], filterTestAccounts: true } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.filters).toEqual({ date_from: null, date_to: null, properties: [], filterTestAccounts: true });
    expect(await tiles(dashboard)).toEqual({ "Own: all": [3, true], "Own: filtered": [3, true] });
    expect(await shared(dashboard.id)).toEqual({ "Own: all": [3, true], "Own: filtered": [3, true] });
  });

  it("saved off, every tile counts them; the page's temporary filters replace the saved ones, null being each insight's own", async () => {
    const dashboard = await board();
    await as(world.member).dashboards.update({ projectId, dashboardId: dashboard.id, filters: { filterTestAccounts: false } });
    expect(await tiles(dashboard)).toEqual({ "Own: all": [5, false], "Own: filtered": [5, false] });
    expect(await shared(dashboard.id)).toEqual({ "Own: all": [5, false], "Own: filtered": [5, false] });
    // The URL's filters: on, then none named (each insight's own), with the saved "off" left behind
    expect(await tiles(dashboard, { date_from: null, date_to: null, properties: [], filterTestAccounts: true })).toEqual({ "Own: all": [3, true], "Own: filtered": [3, true] });
    expect(await tiles(dashboard, { date_from: null, date_to: null, properties: [] })).toEqual({ "Own: all": [5, false], "Own: filtered": [3, true] });
    // Its other filters hold beside it: ben's two views on shop.example
    const ben = [{ key: "$host", value: "shop.example", operator: "exact", type: "event" }, { key: "email", value: "ben@", operator: "icontains", type: "person" }];
    expect(await tiles(dashboard, { properties: ben, filterTestAccounts: true })).toEqual({ "Own: all": [2, true], "Own: filtered": [2, true] });
  });

  it("refuses a setting that is not true, false or null", async () => {
    const dashboard = await board();
    const refused = await patch(dashboard.id, { filters: { filterTestAccounts: "yes" } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("filterTestAccounts must be a boolean");
    await expect(as(world.member).dashboards.results({ projectId, dashboardId: dashboard.id, filters: { filterTestAccounts: "yes" as never } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
