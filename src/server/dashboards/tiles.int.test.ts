/**
 * Tiles, templates and duplication through the real dashboards route handlers and
 * services: a dashboard from the "Product analytics" template charts events captured by
 * the ingestion pipeline, the same on the shared page (computed with no session, without
 * insight ids); PATCH `tiles` adds texts, moves, resizes, recolors and removes under the
 * restriction rules; insight tiles come from the insights service; duplicates share or
 * copy insights; `delete_insights` spares insights shown elsewhere.
 */
import type { TrendsSeriesResult } from "@/server/trends/service";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { clearInsightCache, computeSavedInsight } from "@/server/insights/service";
import { restRoute } from "@/test-support/rest-routes";
import { findSharedDashboardWithCharts } from "@/test-support/shared-charts";
import { testContext } from "@/test-support/context";
import { callRoute, createWorld, type Person, type World } from "@/test-support/dashboards-api";
import { addInsightTile } from "./service";

const envItem = restRoute("environments", "dashboards/:id");
const envList = restRoute("environments", "dashboards");
const sharingRoute = restRoute("environments", "dashboards/:id/sharing");

let db: Database;
let world: World;

const DAY = 24 * 60 * 60 * 1000;
const yesterday = new Date(Date.now() - DAY);
const twoDaysAgo = new Date(Date.now() - 2 * DAY);

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
  const { apiToken } = await db.prisma.project.findUniqueOrThrow({ where: { id: world.projectId } });
  const at = (date: Date) => date.toISOString();
  const events = [
    ...["/", "/", "/pricing"].map((path) => ({ event: "$pageview", distinct_id: "ann", timestamp: at(yesterday), properties: { $pathname: path } })),
    ...["/", "/docs"].map((path) => ({ event: "$pageview", distinct_id: "ben", timestamp: at(twoDaysAgo), properties: { $pathname: path } })),
    { event: "$pageview", distinct_id: "ann", timestamp: at(twoDaysAgo), properties: { $pathname: "/" } },
    { event: "$feature_flag_called", distinct_id: "ann", timestamp: at(yesterday), properties: { $feature_flag: "new-nav", $feature_flag_response: true } },
    { event: "$feature_flag_called", distinct_id: "ben", timestamp: at(yesterday), properties: { $feature_flag: "new-nav", $feature_flag_response: false } },
    { event: "$feature_flag_called", distinct_id: "ben", timestamp: at(yesterday), properties: { $feature_flag: "beta", $feature_flag_response: true } },
  ];
  await sendBatch(apiToken, events.map((event) => ({ uuid: randomUUID(), ...event })));
});

afterAll(async () => {
  await closeDb();
});

const base = `/api/environments/{project}/dashboards/`;
const path = (suffix = "") => base.replace("{project}", String(world.projectId)) + suffix;
const params = (id?: number) => ({ project_id: String(world.projectId), ...(id === undefined ? {} : { id: String(id) }) });
const create = (who: Person, body: unknown) => callRoute(envList, "POST", path(), params(), who.key, body);
const retrieve = (who: Person, id: number) => callRoute(envItem, "GET", path(`${id}/`), params(id), who.key);
const patch = (who: Person, id: number, body: unknown) => callRoute(envItem, "PATCH", path(`${id}/`), params(id), who.key, body);

async function createOk(who: Person, body: Record<string, unknown>) {
  const answer = await create(who, body);
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: number } & Record<string, any>;
}

/** `who`'s service context in the world's project, as the edge builds it (membership read from the database). */
const as = (who: Person) => testContext(db, who.id, world.projectId);
const rectOf = (tile: any) => tile.layouts.sm;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe(`dashboard tiles, templates and duplication (${testDbKind})`, () => {
  describe("use_template", () => {
    it("creates the Product analytics dashboard: four insights on the grid, creation_mode template", async () => {
      const body = await createOk(world.member, { use_template: "DEFAULT_APP" });
      expect(body).toMatchObject({ name: "Product analytics", creation_mode: "template" });
      expect(body.tiles.map((t: any) => t.insight.name)).toEqual(["Pageviews", "Daily active users", "Top pages", "Feature flag calls"]);
      expect(body.tiles.map(rectOf)).toEqual([
        { x: 0, y: 0, w: 6, h: 5 },
        { x: 6, y: 0, w: 6, h: 5 },
        { x: 0, y: 5, w: 6, h: 5 },
        { x: 6, y: 5, w: 6, h: 5 },
      ]);
      expect(body.tiles[2].insight.query.source.breakdownFilter).toMatchObject({ breakdown: "$pathname" });
      expect(body.tiles[3].insight.query.source.series[0]).toMatchObject({ event: "$feature_flag_called" });
      // Each insight is new, saved, and on this dashboard only.
      const ids = body.tiles.map((t: any) => t.insight.id);
      const rows = await db.prisma.insight.findMany({ where: { id: { in: ids } }, include: { tiles: true } });
      expect(rows.every((row) => row.saved && row.createdById === world.member.id && row.tiles.length === 1 && row.tiles[0]!.dashboardId === body.id)).toBe(true);
    });

    it("keeps a name given with the template, and lists as a template dashboard", async () => {
      const body = await createOk(world.member, { use_template: "WEB_TRAFFIC", name: "Marketing site" });
      expect(body).toMatchObject({ name: "Marketing site", creation_mode: "template" });
      expect(body.tiles.map((t: any) => t.insight?.name ?? t.text.body.slice(0, 8))).toEqual(["Unique visitors", "Visitors", "Referring domains", "Top pages"]);
    });

    it("refuses an unknown template and a template with use_dashboard, creating nothing", async () => {
      const before = await db.prisma.dashboard.count();
      expect((await create(world.member, { use_template: "NOPE" })).body).toMatchObject({ type: "validation_error", attr: "use_template", detail: "Invalid template provided: NOPE" });
      const source = await createOk(world.member, { name: "Source" });
      const both = await create(world.member, { use_template: "DEFAULT_APP", use_dashboard: source.id });
      expect(both.status).toBe(400);
      expect(both.body.detail).toBe("`use_dashboard` and `use_template` cannot be used together");
      expect(await db.prisma.dashboard.count()).toBe(before + 1);
    });

    it("charts the captured events: pageviews per day, unique users, top pages, flag calls by flag", async () => {
      clearInsightCache(db);
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const [pageviews, users, pages, flags] = dashboard.tiles.map((t: any) => t.insight.id as number);
      const compute = (id: number) => computeSavedInsight(db, world.projectId, id, { fromDashboard: dashboard.id });

      const views = (await compute(pageviews)).result as TrendsSeriesResult[];
      expect(views).toHaveLength(1);
      expect(views[0]!.data).toHaveLength(31);
      expect(sum(views[0]!.data)).toBe(6);
      expect(views[0]!.data.slice(-3, -1)).toEqual([3, 3]);

      const dau = (await compute(users)).result as TrendsSeriesResult[];
      expect(dau[0]!.data.slice(-3, -1)).toEqual([2, 1]);

      const top = (await compute(pages)).result as TrendsSeriesResult[];
      expect(Object.fromEntries(top.map((series) => [series.breakdown_value, series.aggregated_value]))).toEqual({ "/": 4, "/pricing": 1, "/docs": 1 });

      const flagCalls = (await compute(flags)).result as TrendsSeriesResult[];
      expect(Object.fromEntries(flagCalls.map((series) => [series.breakdown_value, sum(series.data)]))).toEqual({ "new-nav": 2, beta: 1 });
    });

    it("shows the same charts on the shared page, computed with no session and without insight ids", async () => {
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const sharing = await callRoute(sharingRoute, "PATCH", path(`${dashboard.id}/sharing/`), params(dashboard.id), world.member.key, { enabled: true });
      expect(sharing.status, sharing.text).toBe(200);
      const shared = (await findSharedDashboardWithCharts(db, sharing.body.access_token))!;
      expect(shared.tiles.map((t) => t.insight?.name)).toEqual(["Pageviews", "Daily active users", "Top pages", "Feature flag calls"]);
      for (const [index, tile] of shared.tiles.entries()) {
        const member = await computeSavedInsight(db, world.projectId, dashboard.tiles[index].insight.id, { fromDashboard: dashboard.id });
        expect(tile.insight!.computation).toMatchObject({ state: "ready", result: member.result });
      }
      const json = JSON.stringify(shared);
      for (const tile of dashboard.tiles) {
        expect(json).not.toContain(`"${tile.insight.short_id}"`);
        expect(json).not.toMatch(new RegExp(`"(id|insight_id|short_id)":${tile.insight.id}\\b`));
      }
      expect(json).not.toContain(world.member.email);
    });

    it("gives a failing tile its own error on the shared page, the other tiles still chart", async () => {
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      await db.prisma.insight.update({ where: { id: dashboard.tiles[0].insight.id }, data: { query: { kind: "WebGoalsQuery" } } });
      const token = (await callRoute(sharingRoute, "PATCH", path(`${dashboard.id}/sharing/`), params(dashboard.id), world.member.key, { enabled: true })).body.access_token;
      const shared = (await findSharedDashboardWithCharts(db, token))!;
      expect(shared.tiles[0]!.insight!.computation).toMatchObject({ state: "error", message: expect.stringContaining("not supported") });
      expect(shared.tiles[1]!.insight!.computation).toMatchObject({ state: "ready" });
    });
  });

  describe("PATCH tiles", () => {
    it("adds a text tile at the first free spot, edits it, moves, resizes and recolors tiles", async () => {
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const added = await patch(world.member, dashboard.id, { tiles: [{ text: { body: "Read me first" } }] });
      expect(added.status, added.text).toBe(200);
      const text = added.body.tiles.find((t: any) => t.text);
      expect(text.text).toMatchObject({ body: "Read me first", created_by: { id: world.member.id } });
      expect(rectOf(text)).toEqual({ x: 0, y: 10, w: 6, h: 2 });

      const [first, second] = dashboard.tiles;
      const moved = await patch(world.member, dashboard.id, {
        tiles: [
          { id: text.id, layouts: { sm: { x: 0, y: 0, w: 12, h: 2 } }, text: { body: "Edited" } },
          { id: first.id, layouts: { sm: { x: 0, y: 2, w: 4, h: 6 } }, color: "blue" },
          { id: second.id, layouts: { sm: { x: 4, y: 2, w: 8, h: 6 } } },
        ],
      });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body.tiles[0]).toMatchObject({ id: text.id, order: 0, text: { body: "Edited" } });
      const byId = new Map(moved.body.tiles.map((t: any) => [t.id, t]));
      expect(byId.get(first.id)).toMatchObject({ color: "blue", layouts: { sm: { x: 0, y: 2, w: 4, h: 6 } } });
      expect(rectOf(byId.get(second.id))).toEqual({ x: 4, y: 2, w: 8, h: 6 });
      expect((await retrieve(world.member, dashboard.id)).body.tiles.map((t: any) => t.id)).toEqual(moved.body.tiles.map((t: any) => t.id));
    });

    it("stores a tile's filters_overrides, which its chart then uses; refuses ones the insights cannot read", async () => {
      clearInsightCache(db);
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const tile = dashboard.tiles[0];
      const onlyPricing = { properties: [{ key: "$pathname", value: "/pricing", operator: "exact", type: "event" }] };
      const saved = await patch(world.member, dashboard.id, { tiles: [{ id: tile.id, filters_overrides: onlyPricing }] });
      expect(saved.body.tiles[0].filters_overrides).toEqual(onlyPricing);
      const computed = await computeSavedInsight(db, world.projectId, tile.insight.id, { fromDashboard: dashboard.id });
      expect(sum((computed.result as TrendsSeriesResult[])[0]!.data)).toBe(1);
      const bad = await patch(world.member, dashboard.id, { tiles: [{ id: tile.id, filters_overrides: { interval: "fortnight" } }] });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ attr: "tiles", detail: expect.stringContaining("fortnight") });
      const cleared = await patch(world.member, dashboard.id, { tiles: [{ id: tile.id, filters_overrides: null }] });
      expect(cleared.body.tiles[0].filters_overrides).toBeNull();
    });

    it("removes a tile with deleted: true, keeping its insight", async () => {
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const gone = dashboard.tiles[1];
      const answer = await patch(world.member, dashboard.id, { tiles: [{ id: gone.id, deleted: true }] });
      expect(answer.body.tiles.map((t: any) => t.id)).not.toContain(gone.id);
      expect(answer.body.tiles).toHaveLength(3);
      expect((await db.prisma.insight.findUniqueOrThrow({ where: { id: gone.insight.id } })).deleted).toBe(false);
    });

    it("refuses bad tiles with a 400 and changes nothing", async () => {
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const other = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const tile = dashboard.tiles[0];
      const cases: [unknown, string | null][] = [
        [[{ id: other.tiles[0].id, color: "blue" }], "tiles"],
        [[{ id: tile.id, layouts: { sm: { x: 8, y: 0, w: 6, h: 2 } } }], "tiles__0__layouts__sm"],
        [[{ id: tile.id, color: "red" }], "tiles__0__color"],
        [[{ layouts: { sm: { x: 0, y: 0, w: 2, h: 2 } } }], "tiles"],
        [[{ text: { body: "   " } }], "tiles__0__text__body"],
        [[{ id: tile.id, text: { body: "not a text tile" } }], "tiles"],
        ["tiles", "tiles"],
      ];
      for (const [tiles, attr] of cases) {
        const answer = await patch(world.member, dashboard.id, { tiles });
        expect(answer.status, JSON.stringify(tiles)).toBe(400);
        expect(answer.body, JSON.stringify(tiles)).toMatchObject({ type: "validation_error", attr });
      }
      expect((await retrieve(world.member, dashboard.id)).body.tiles).toEqual(dashboard.tiles);
      expect((await retrieve(world.member, other.id)).body.tiles[0].color).toBeNull();
    });

    it("on a restricted dashboard, only editors change tiles", async () => {
      const dashboard = await createOk(world.owner, { use_template: "DEFAULT_APP", restriction_level: 37 });
      const tile = dashboard.tiles[0];
      const denied = await patch(world.viewer, dashboard.id, { tiles: [{ id: tile.id, deleted: true }, { text: { body: "sneaky" } }] });
      expect(denied.status).toBe(403);
      expect(denied.body.detail).toBe("You don't have edit permissions for this dashboard.");
      expect(await db.prisma.dashboardTile.count({ where: { dashboardId: dashboard.id, deleted: false } })).toBe(4);
      expect(await db.prisma.dashboardText.count({ where: { body: "sneaky" } })).toBe(0);
      await expect(addInsightTile(await as(world.viewer), dashboard.id, { name: "Nope", query: { kind: "TrendsQuery", series: [] } })).rejects.toMatchObject({
        code: "permission_denied",
      });
      expect(await db.prisma.insight.count({ where: { name: "Nope" } })).toBe(0);
      const allowed = await patch(world.admin, dashboard.id, { tiles: [{ id: tile.id, color: "green" }] });
      expect(allowed.status).toBe(200);
    });
  });

  describe("insight tiles", () => {
    it("adds an insight made by the insights service at the first free spot", async () => {
      const dashboard = await createOk(world.member, { name: "Built by hand" });
      const query = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "total" }], dateRange: { date_from: "-7d" }, trendsFilter: { display: "BoldNumber" } };
      const one = await addInsightTile(await as(world.member), dashboard.id, { name: "Views this week", query });
      const two = await addInsightTile(await as(world.member), dashboard.id, { name: "Again", description: "Same", query });
      expect(one.tiles.map(rectOf)).toEqual([{ x: 0, y: 0, w: 6, h: 5 }]);
      expect(two.tiles.map(rectOf)).toEqual([
        { x: 0, y: 0, w: 6, h: 5 },
        { x: 6, y: 0, w: 6, h: 5 },
      ]);
      const insight = two.tiles[1]!.insight!;
      expect(insight).toMatchObject({ name: "Again", description: "Same", saved: true, created_by: { id: world.member.id } });
      const computed = await computeSavedInsight(db, world.projectId, insight.id, { fromDashboard: dashboard.id });
      expect((computed.result as TrendsSeriesResult[])[0]!.aggregated_value).toBe(6);
    });

    it("refuses a query the insights API refuses, adding no tile", async () => {
      const dashboard = await createOk(world.member, { name: "Bad query" });
      await expect(
        addInsightTile(await as(world.member), dashboard.id, { name: "Funnel", query: { kind: "TrendsQuery", series: [{ event: "$pageview", math: "median" }] } }),
      ).rejects.toMatchObject({ code: "invalid_input", attr: expect.stringMatching(/^query__series__0__/) });
      expect(await db.prisma.dashboardTile.count({ where: { dashboardId: dashboard.id } })).toBe(0);
    });
  });

  describe("use_dashboard and delete_insights", () => {
    it("duplicates a template dashboard: tiles in place, the same insights, creation_mode duplicate", async () => {
      const source = await createOk(world.member, { use_template: "DEFAULT_APP" });
      await patch(world.member, source.id, { tiles: [{ text: { body: "Notes" } }] });
      const copy = await createOk(world.member, { name: "Copy", use_dashboard: source.id });
      expect(copy.creation_mode).toBe("duplicate");
      expect(copy.tiles.map((t: any) => [t.insight?.id ?? null, t.text?.body ?? null, rectOf(t)])).toEqual(
        (await retrieve(world.member, source.id)).body.tiles.map((t: any) => [t.insight?.id ?? null, t.text?.body ?? null, rectOf(t)]),
      );
    });

    it("with duplicate_tiles copies the insights and texts; the copies chart the same; a deleted insight is not copied", async () => {
      clearInsightCache(db);
      const source = await createOk(world.member, { use_template: "DEFAULT_APP" });
      await patch(world.member, source.id, { tiles: [{ text: { body: "Notes" } }] });
      await db.prisma.insight.update({ where: { id: source.tiles[3].insight.id }, data: { deleted: true } });
      const copy = await createOk(world.member, { name: "Deep", use_dashboard: source.id, duplicate_tiles: true });
      expect(copy.creation_mode).toBe("duplicate");
      expect(copy.tiles.map((t: any) => t.insight?.name ?? t.text.body)).toEqual(["Pageviews (Copy)", "Daily active users (Copy)", "Top pages (Copy)", "Notes"]);
      const sourceIds = new Set(source.tiles.map((t: any) => t.insight.id));
      for (const tile of copy.tiles.filter((t: any) => t.insight)) expect(sourceIds.has(tile.insight.id)).toBe(false);
      const original = await computeSavedInsight(db, world.projectId, source.tiles[0].insight.id);
      const copied = await computeSavedInsight(db, world.projectId, copy.tiles[0].insight.id);
      expect(copied.result).toEqual(original.result);
      // Editing the copy's text leaves the source's alone.
      const copiedText = copy.tiles.find((t: any) => t.text);
      await patch(world.member, copy.id, { tiles: [{ id: copiedText.id, text: { body: "Mine" } }] });
      expect((await retrieve(world.member, source.id)).body.tiles.find((t: any) => t.text).text.body).toBe("Notes");
    });

    it("delete_insights soft-deletes a template dashboard's insights except one also on another dashboard; restore brings them back", async () => {
      const dashboard = await createOk(world.member, { use_template: "DEFAULT_APP" });
      const other = await createOk(world.member, { name: "Also shows pageviews" });
      const sharedInsight = dashboard.tiles[0].insight.id;
      await db.prisma.dashboardTile.create({ data: { dashboardId: other.id, insightId: sharedInsight } });
      expect((await patch(world.member, dashboard.id, { deleted: true, delete_insights: true })).status).toBe(200);
      const ids = dashboard.tiles.map((t: any) => t.insight.id);
      const rows = await db.prisma.insight.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
      expect(rows.map((row) => [row.id, row.deleted])).toEqual(ids.sort((a: number, b: number) => a - b).map((id: number) => [id, id !== sharedInsight]));
      expect((await retrieve(world.member, other.id)).body.tiles[0].insight).toMatchObject({ id: sharedInsight, deleted: false });
      expect((await patch(world.member, dashboard.id, { deleted: false })).body.tiles).toHaveLength(4);
      expect(await db.prisma.insight.count({ where: { id: { in: ids }, deleted: true } })).toBe(0);
    });
  });
});
