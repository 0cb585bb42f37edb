/**
 * The insights API end to end through the real route handlers (both prefixes) and the
 * tRPC router: create, list, retrieve with the computed and cached result, refresh,
 * dashboard filters, update, soft delete and restore, dashboards and tags, and the 400s.
 */
import type { TrendsSeriesResult } from "@/server/trends/service";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { callRoute, createWorld, type World } from "@/test-support/dashboards-api";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { clearInsightCache } from "./service";
import { restRoute } from "@/test-support/rest-routes";

const envItem = restRoute("environments", "insights/:id");
const envList = restRoute("environments", "insights");
const itemRoute = restRoute("projects", "insights/:id");
const listRoute = restRoute("projects", "insights");

let db: Database;
let world: World;

const PAGEVIEWS = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" } };

const base = (project: number | string = world.projectId) => `/api/projects/${project}/insights`;
const create = (key: string, body: unknown, project: number | string = world.projectId) =>
  callRoute(listRoute, "POST", `${base(project)}/`, { project_id: String(project) }, key, body);
const list = (key: string, search = "", project: number | string = world.projectId) =>
  callRoute(listRoute, "GET", `${base(project)}/${search}`, { project_id: String(project) }, key);
const retrieve = (key: string, id: number | string, search = "", project: number | string = world.projectId) =>
  callRoute(itemRoute, "GET", `${base(project)}/${id}/${search}`, { project_id: String(project), id: String(id) }, key);
const patch = (key: string, id: number | string, body: unknown, method: "PATCH" | "PUT" = "PATCH") =>
  callRoute(itemRoute, method, `${base()}/${id}/`, { project_id: String(world.projectId), id: String(id) }, key, body);

async function createOk(body: Record<string, unknown>, key = world.member.key) {
  const answer = await create(key, { query: PAGEVIEWS, ...body });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  process.env.SITE_URL = "https://burrow.example.test";
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
  const at = (iso: string) => new Date(iso);
  await db.events.insert([
    ...["2024-03-01T10:00:00Z", "2024-03-01T11:00:00Z", "2024-03-03T09:00:00Z"].map((t, i) => ({
      uuid: randomUUID(),
      projectId: world.projectId,
      event: "$pageview",
      distinctId: `u${i}`,
      properties: { $browser: i === 2 ? "Firefox" : "Chrome" },
      timestamp: at(t),
    })),
    { uuid: randomUUID(), projectId: world.otherProjectId, event: "$pageview", distinctId: "x", properties: {}, timestamp: at("2024-03-01T10:00:00Z") },
  ]);
});

afterAll(async () => {
  await closeDb();
});

beforeEach(() => clearInsightCache(db));

describe(`insights API (${testStoresName})`, () => {
  it("creates an insight: 201 with PostHog's fields and the computed result", async () => {
    const body = await createOk({ name: "Pageviews", description: "Daily", tags: ["Growth", "growth "] });
    expect(body).toMatchObject({
      name: "Pageviews",
      description: "Daily",
      derived_name: null,
      query: PAGEVIEWS,
      filters: {},
      saved: false,
      favorited: false,
      deleted: false,
      tags: ["growth"],
      dashboards: [],
      dashboard_tiles: [],
      created_by: { id: world.member.id, email: world.member.email },
      last_modified_by: { id: world.member.id },
      team_id: world.projectId,
      is_cached: false,
      hasMore: false,
      timezone: "UTC",
      resolved_date_range: { date_from: "2024-03-01T00:00:00+00:00", date_to: "2024-03-03T23:59:59+00:00" },
    });
    expect(body.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(body.result.map((r: any) => [r.label, r.data, r.days])).toEqual([["$pageview", [2, 0, 1], ["2024-03-01", "2024-03-02", "2024-03-03"]]]);
    expect(body.last_refresh).toBe(body.computed_at);
    const stored = await db.prisma.insight.findUniqueOrThrow({ where: { id: body.id } });
    expect(stored.lastRefresh?.toISOString()).toBe(body.last_refresh);
  });

  it("keeps an InsightVizNode query as sent and computes its source", async () => {
    const query = { kind: "InsightVizNode", source: { ...PAGEVIEWS, trendsFilter: { display: "BoldNumber", showLegend: true } } };
    const body = await createOk({ name: "Total", query });
    expect(body.query).toEqual(query);
    expect(body.result.map((r: any) => r.aggregated_value)).toEqual([3]);
  });

  it("refuses what it cannot compute, naming the field", async () => {
    const cases: [unknown, string | null, RegExp][] = [
      [{ name: "no query" }, "query", /required/],
      [{ query: { kind: "WebGoalsQuery", series: [] } }, "query__kind", /WebGoalsQuery.*not supported/],
      [{ query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", interval: "minute" } } }, "query__source__interval", /minute.*not supported/],
      [{ query: { ...PAGEVIEWS, series: [{ event: "$pageview", math: "avg_count_per_actor" }] } }, "query__series__0__math", /'avg_count_per_actor' is not supported/],
      [{ query: { ...PAGEVIEWS, series: [{ event: "$pageview", math: "sum" }] } }, "query__series__0__math_property", /'sum' needs math_property/],
      [{ query: { ...PAGEVIEWS, series: [{ kind: "ActionsNode", id: 1 }] } }, "query", /Action 1 does not exist/],
      [{ query: { ...PAGEVIEWS, dateRange: { date_from: "last tuesday" } } }, "query__dateRange__date_from", /relative time/],
      [{ query: { ...PAGEVIEWS, properties: [{ key: "a", operator: "near", value: 1 }] } }, "query__properties__0__operator", /Unknown operator 'near'/],
      [{ query: { ...PAGEVIEWS, breakdownFilter: { breakdown: "$browser", breakdown_type: "group" } } }, "query__breakdownFilter__breakdown_type", /'group' is not supported/],
      [{ query: { ...PAGEVIEWS, breakdownFilter: { breakdown: "$browser", breakdown_type: "cohort" } } }, "query__breakdownFilter__breakdown", /A cohort breakdown takes a cohort id/],
      [{ query: { ...PAGEVIEWS, breakdownFilter: { breakdown: [2_000_000_000], breakdown_type: "cohort" } } }, "breakdown", /cohort 2000000000 does not exist/],
      [{ query: { ...PAGEVIEWS, properties: [{ type: "cohort", key: "id", value: 2_000_000_000 }] } }, "properties", /cohort 2000000000 does not exist/],
      [{ query: { ...PAGEVIEWS, compareFilter: { compare: true, compare_to: "last week" } } }, "query__compareFilter__compare_to", /compare_to must be a relative date/],
      [{ query: { ...PAGEVIEWS, trendsFilter: { formula: "A+B" } } }, "query__trendsFilter__formula", /references series B/],
      [{ query: { ...PAGEVIEWS, interval: "hour", dateRange: { date_from: "2020-01-01", date_to: "2024-01-01" } } }, "query", /at most 10000/],
      [{ query: { ...PAGEVIEWS, properties: [{ key: "$browser", operator: "regex", value: "(?<name>a)b" }] } }, "properties", /rejected a regular expression/],
      [{ query: PAGEVIEWS, name: "x".repeat(401) }, "name", /no more than 400/],
      [{ query: PAGEVIEWS, dashboards: [999999] }, "dashboards", /does not exist/],
      ["{not json", null, /Malformed JSON/],
    ];
    for (const [body, attr, detail] of cases) {
      const answer = await create(world.member.key, body);
      expect([answer.status, answer.body.type, answer.body.attr], JSON.stringify(body)).toEqual([400, "validation_error", attr]);
      expect(answer.body.detail).toMatch(detail);
    }
    expect((await list(world.member.key, "?search=no%20query")).body.count).toBe(0);
  });

  it("retrieves with the result, from the cache until ?refresh=true", async () => {
    // Its own event name, so that the events added here leave the other tests' counts alone.
    const { id } = await createOk({ name: "Cached", query: { ...PAGEVIEWS, series: [{ kind: "EventsNode", event: "cache_probe" }] } });
    const probe = () => db.events.insert([{ uuid: randomUUID(), projectId: world.projectId, event: "cache_probe", distinctId: "late", properties: {}, timestamp: new Date("2024-03-02T12:00:00Z") }]);
    await probe();
    clearInsightCache(db);
    const first = await retrieve(world.member.key, id);
    expect(first.status).toBe(200);
    expect([first.body.is_cached, first.body.result[0].data]).toEqual([false, [0, 1, 0]]);
    await probe();
    const second = await retrieve(world.member.key, id);
    expect([second.body.is_cached, second.body.result[0].data, second.body.last_refresh]).toEqual([true, [0, 1, 0], first.body.last_refresh]);
    const refreshed = await retrieve(world.member.key, id, "?refresh=true");
    expect([refreshed.body.is_cached, refreshed.body.result[0].data]).toEqual([false, [0, 2, 0]]);
    await probe();
    expect((await retrieve(world.member.key, id, "?refresh=force_cache")).body.result[0].data).toEqual([0, 2, 0]);
    const bad = await retrieve(world.member.key, id, "?refresh=sometimes");
    expect([bad.status, bad.body.attr]).toEqual([400, "refresh"]);
  });

  it("lays filters_override and a dashboard's filters (then its tile's) over the query", async () => {
    const { id } = await createOk({ name: "Filtered" });
    const override = encodeURIComponent(JSON.stringify({ properties: [{ key: "$browser", value: "Firefox" }] }));
    expect((await retrieve(world.member.key, id, `?filters_override=${override}`)).body.result[0].data).toEqual([0, 0, 1]);
    const dashboard = await db.prisma.dashboard.create({ data: { projectId: world.projectId, name: "Board", filters: { date_from: "2024-03-01", date_to: "2024-03-01" } } });
    const onBoard = await retrieve(world.member.key, id, `?from_dashboard=${dashboard.id}`);
    expect([onBoard.body.result[0].data, onBoard.body.resolved_date_range.date_to]).toEqual([[2], "2024-03-01T23:59:59+00:00"]);
    await db.prisma.dashboardTile.create({ data: { dashboardId: dashboard.id, insightId: id, filtersOverrides: { date_from: "2024-03-03", date_to: "2024-03-03" } } });
    expect((await retrieve(world.member.key, id, `?from_dashboard=${dashboard.id}`)).body.result[0].data).toEqual([1]);
    const missing = await retrieve(world.member.key, id, "?from_dashboard=999999");
    expect([missing.status, missing.body.attr]).toEqual([400, "from_dashboard"]);
    const badJson = await retrieve(world.member.key, id, "?filters_override=%7B");
    expect([badJson.status, badJson.body.attr]).toEqual([400, "filters_override"]);
  });

  it("answers 404 for unknown, non-numeric and other projects' insights", async () => {
    const { id } = await createOk({ name: "Mine" });
    expect((await retrieve(world.member.key, 999999)).status).toBe(404);
    expect((await retrieve(world.member.key, "abc")).status).toBe(404);
    const elsewhere = await create(world.owner.key, { name: "Second project's", query: PAGEVIEWS }, world.otherProjectId);
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.result[0].data).toEqual([1, 0, 0]);
    expect((await retrieve(world.member.key, elsewhere.body.id)).status).toBe(404);
    expect((await retrieve(world.outsider.key, id)).status).toBe(403);
  });

  it("lists live insights, newest change first, with cached results only", async () => {
    clearInsightCache(db);
    const a = await createOk({ name: "List A alpha", saved: true });
    // Another query: the cache holds results per query, whichever insight asked.
    const b = await createOk({ name: "List B", description: "about ALPHA", query: { ...PAGEVIEWS, series: [{ event: "$pageleave" }] } });
    clearInsightCache(db);
    await retrieve(world.member.key, a.id);
    const answer = await list(world.member.key, "?search=alpha");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(answer.body.results.map((r: any) => [r.id, r.is_cached, r.result === null])).toEqual([
      [b.id, false, true],
      [a.id, true, false],
    ]);
    expect((await list(world.member.key, "?search=alpha&saved=true")).body.results.map((r: any) => r.id)).toEqual([a.id]);
    expect((await list(world.member.key, `?short_id=${b.short_id}`)).body.results.map((r: any) => r.id)).toEqual([b.id]);
    const paged = await list(world.member.key, "?search=alpha&limit=1");
    expect([paged.body.results.length, paged.body.next]).toEqual([1, expect.stringContaining("offset=1")]);
    expect((await list(world.member.key, "?limit=abc")).status).toBe(400);
    expect((await callRoute(envList, "GET", `/api/environments/${world.projectId}/insights/?search=alpha`, { project_id: String(world.projectId) }, world.member.key)).body.count).toBe(2);
  });

  it("updates fields and the query, PUT as PATCH, recording who changed it", async () => {
    const { id, created_by } = await createOk({ name: "Before" });
    const renamed = await patch(world.admin.key, id, { name: "After", favorited: true, query: { ...PAGEVIEWS, interval: "week" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "After", favorited: true, created_by, last_modified_by: { id: world.admin.id } });
    expect(renamed.body.result[0].days).toEqual(["2024-02-25", "2024-03-03"]);
    const put = await patch(world.admin.key, id, { description: "via PUT" }, "PUT");
    expect([put.status, put.body.description, put.body.name]).toEqual([200, "via PUT", "After"]);
    const bad = await patch(world.admin.key, id, { query: { kind: "TrendsQuery", series: "all" } });
    expect([bad.status, bad.body.attr]).toEqual([400, "query__series"]);
    const activity = await db.prisma.activityLog.findMany({ where: { scope: "Insight", itemId: String(id) } });
    // Sorted: writes in the same millisecond share a timestamp.
    expect(activity.map((entry) => entry.activity).sort()).toEqual(["created", "updated", "updated"]);
  });

  it("soft-deletes with deleted: true, restores with deleted: false, never hard-deletes", async () => {
    const { id } = await createOk({ name: "Doomed" });
    const deleted = await patch(world.member.key, id, { deleted: true });
    expect([deleted.status, deleted.body.deleted, deleted.body.result]).toEqual([200, true, null]);
    expect((await retrieve(world.member.key, id)).status).toBe(404);
    expect((await patch(world.member.key, id, { name: "ghost" })).status).toBe(404);
    expect((await list(world.member.key, "?search=Doomed")).body.count).toBe(0);
    const restored = await patch(world.member.key, id, { deleted: false });
    expect([restored.status, restored.body.deleted, restored.body.result[0].data]).toEqual([200, false, [2, 0, 1]]);
    const hard = await callRoute(itemRoute, "DELETE", `${base()}/${id}/`, { project_id: String(world.projectId), id: String(id) }, world.member.key);
    expect([hard.status, hard.text]).toEqual([405, ""]);
    expect((await callRoute(listRoute, "DELETE", `${base()}/`, { project_id: String(world.projectId) }, world.member.key)).status).toBe(405);
  });

  it("places the insight on dashboards the caller may edit, and takes it off again", async () => {
    const open = await db.prisma.dashboard.create({ data: { projectId: world.projectId, name: "Open", createdById: world.owner.id } });
    const restricted = await db.prisma.dashboard.create({ data: { projectId: world.projectId, name: "Restricted", restrictionLevel: 37, createdById: world.owner.id } });
    const body = await createOk({ name: "Placed", dashboards: [open.id] });
    expect(body.dashboards).toEqual([open.id]);
    expect(body.dashboard_tiles).toEqual([{ id: expect.any(Number), dashboard_id: open.id, deleted: false }]);
    const denied = await patch(world.member.key, body.id, { dashboards: [open.id, restricted.id] });
    expect([denied.status, denied.body.code]).toEqual([403, "permission_denied"]);
    const both = await patch(world.owner.key, body.id, { dashboards: [open.id, restricted.id] });
    expect(both.body.dashboards).toEqual([open.id, restricted.id]);
    const off = await patch(world.owner.key, body.id, { dashboards: [restricted.id] });
    expect(off.body.dashboards).toEqual([restricted.id]);
    const back = await patch(world.owner.key, body.id, { dashboards: [open.id, restricted.id] });
    // The removed tile comes back rather than a second one.
    expect(back.body.dashboard_tiles.map((t: any) => t.id)).toEqual(both.body.dashboard_tiles.map((t: any) => t.id));
  });

  it("serves the same under /api/environments/", async () => {
    const { id } = await createOk({ name: "Env" });
    const answer = await callRoute(envItem, "GET", `/api/environments/${world.projectId}/insights/${id}/`, { project_id: String(world.projectId), id: String(id) }, world.member.key);
    expect([answer.status, answer.body.name]).toEqual([200, "Env"]);
  });

  it("list, get and compute over tRPC use the same service and cache", async () => {
    const user = await db.prisma.user.findUniqueOrThrow({ where: { id: world.member.id } });
    const api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: world.projectId } });
    const projectId = world.projectId;
    const created = await api.insights.create({ projectId, name: "tRPC", query: PAGEVIEWS });
    expect(created.created_by?.id).toBe(world.member.id);
    const got = await api.insights.get({ projectId, insightId: created.id });
    expect([got.is_cached, (got.result as TrendsSeriesResult[])[0]?.data]).toEqual([true, [2, 0, 1]]);
    expect((await api.insights.list({ projectId, search: "tRPC" })).results.map((r) => r.id)).toEqual([created.id]);
    const adhoc = await api.insights.compute({ projectId, query: { ...PAGEVIEWS, series: [{ event: "$pageview", math: "dau" }] } });
    expect((adhoc.result as TrendsSeriesResult[])[0]?.data).toEqual([2, 0, 1]);
    const saved = await api.insights.compute({ projectId, insightId: created.id, filtersOverride: { date_from: "2024-03-03", date_to: "2024-03-03" } });
    expect((saved.result as TrendsSeriesResult[])[0]?.data).toEqual([1]);
    await expect(api.insights.compute({ projectId, query: { kind: "Nope" } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const updated = await api.insights.update({ projectId, insightId: created.id, name: "tRPC renamed" });
    expect(updated.name).toBe("tRPC renamed");
  });
});
