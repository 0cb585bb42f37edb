/**
 * The admin UI's dashboards procedures: the same services as REST, so the restriction holds
 * on the tRPC write path too (a view-only member gets FORBIDDEN and nothing changes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { createWorld, type Person, type World } from "@/test-support/dashboards-api";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";

let db: Database;
let world: World;
let projectId: number;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
  projectId = world.projectId;
});

afterAll(async () => {
  await closeDb();
});

const as = (who: Person) =>
  createCaller({ db, headers: new Headers(), user: { id: who.id, uuid: who.uuid, email: who.email, firstName: "", currentProjectId: world.projectId } });

const FORBIDDEN = { code: "FORBIDDEN", message: "You don't have edit permissions for this dashboard." };

describe(`dashboards router (${testDbKind})`, () => {
  it("creates, lists with search and tags, renames, pins, tags, deletes and restores", async () => {
    const api = as(world.member);
    const created = await api.dashboards.create({ projectId, name: "Growth", description: "Signups", tags: ["Team"] });
    expect(created).toMatchObject({ name: "Growth", tags: ["team"], created_by: { email: world.member.email }, tiles: [] });
    await api.dashboards.create({ projectId, name: "Alpha" });

    const updated = await api.dashboards.update({ projectId, dashboardId: created.id, name: "Growth KPIs", pinned: true, tags: ["team", "kpi"] });
    expect(updated).toMatchObject({ name: "Growth KPIs", pinned: true, tags: ["kpi", "team"] });

    const page = await api.dashboards.list({ projectId, limit: 10 });
    expect(page.results.map((d) => d.name)).toEqual(["Growth KPIs", "Alpha"]);
    expect((await api.dashboards.list({ projectId, search: "kpi" })).results.map((d) => d.id)).toEqual([created.id]);
    expect((await api.dashboards.list({ projectId, tags: ["kpi"] })).count).toBe(1);
    expect(await api.dashboards.tags({ projectId })).toEqual(["kpi", "team"]);

    await api.dashboards.update({ projectId, dashboardId: created.id, deleted: true });
    await expect(api.dashboards.get({ projectId, dashboardId: created.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await api.dashboards.list({ projectId, deleted: true })).results.map((d) => d.id)).toEqual([created.id]);
    await api.dashboards.update({ projectId, dashboardId: created.id, deleted: false });
    expect(await api.dashboards.get({ projectId, dashboardId: created.id })).toMatchObject({ name: "Growth KPIs", deleted: false });
  });

  it("refuses every write of a view-only member on a restricted dashboard", async () => {
    const owner = as(world.owner);
    const viewer = as(world.viewer);
    const dashboard = await owner.dashboards.create({ projectId, name: "Board only", restriction_level: 37 });
    expect(await viewer.dashboards.get({ projectId, dashboardId: dashboard.id })).toMatchObject({ effective_privilege_level: 21, user_access_level: "viewer" });

    await expect(viewer.dashboards.update({ projectId, dashboardId: dashboard.id, name: "Mine now" })).rejects.toMatchObject(FORBIDDEN);
    await expect(viewer.dashboards.update({ projectId, dashboardId: dashboard.id, deleted: true })).rejects.toMatchObject(FORBIDDEN);
    await expect(viewer.dashboards.collaborators.add({ projectId, dashboardId: dashboard.id, user_uuid: world.viewer.uuid, level: 37 })).rejects.toMatchObject(FORBIDDEN);
    await expect(viewer.dashboards.sharing.update({ projectId, dashboardId: dashboard.id, enabled: true })).rejects.toMatchObject(FORBIDDEN);
    await expect(viewer.dashboards.sharing.refresh({ projectId, dashboardId: dashboard.id })).rejects.toMatchObject(FORBIDDEN);

    expect(await owner.dashboards.get({ projectId, dashboardId: dashboard.id })).toMatchObject({ name: "Board only", deleted: false, is_shared: false });
    expect(await owner.dashboards.collaborators.list({ projectId, dashboardId: dashboard.id })).toEqual([]);
  });

  it("a collaborator added over tRPC may edit, but not change the restriction level", async () => {
    const owner = as(world.owner);
    const member = as(world.member);
    const dashboard = await owner.dashboards.create({ projectId, name: "Shared work", restriction_level: 37 });
    const collaborator = await owner.dashboards.collaborators.add({ projectId, dashboardId: dashboard.id, user_uuid: world.member.uuid, level: 37 });
    expect(collaborator).toMatchObject({ dashboard_id: dashboard.id, level: 37, user: { uuid: world.member.uuid } });

    expect(await member.dashboards.update({ projectId, dashboardId: dashboard.id, description: "by a collaborator" })).toMatchObject({ description: "by a collaborator" });
    await expect(member.dashboards.update({ projectId, dashboardId: dashboard.id, restriction_level: 21 })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/^Only the dashboard owner and project admins/),
    });

    await owner.dashboards.collaborators.remove({ projectId, dashboardId: dashboard.id, userUuid: world.member.uuid });
    await expect(member.dashboards.update({ projectId, dashboardId: dashboard.id, description: "again" })).rejects.toMatchObject(FORBIDDEN);
  });

  it("reports collaborator rule violations as BAD_REQUEST with PostHog's message", async () => {
    const owner = as(world.owner);
    const open = await owner.dashboards.create({ projectId, name: "Open" });
    await expect(owner.dashboards.collaborators.add({ projectId, dashboardId: open.id, user_uuid: world.member.uuid, level: 37 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Cannot add collaborators to a dashboard on the lowest restriction level.",
    });
  });

  it("shares with a link on SITE_URL, rotates it, and turns it off", async () => {
    const owner = as(world.owner);
    const dashboard = await owner.dashboards.create({ projectId, name: "Public" });
    const first = await owner.dashboards.sharing.get({ projectId, dashboardId: dashboard.id });
    expect(first).toMatchObject({ enabled: false, share_url: expect.stringMatching(new RegExp(`/shared/${first.access_token}$`)) });
    expect((await owner.dashboards.sharing.update({ projectId, dashboardId: dashboard.id, enabled: true })).enabled).toBe(true);
    const rotated = await owner.dashboards.sharing.refresh({ projectId, dashboardId: dashboard.id });
    expect(rotated.access_token).not.toBe(first.access_token);
    expect(rotated.enabled).toBe(true);
    expect((await owner.dashboards.sharing.update({ projectId, dashboardId: dashboard.id, enabled: false })).enabled).toBe(false);
  });

  it("answers for the caller's projects only", async () => {
    const outsider = as(world.outsider);
    await expect(outsider.dashboards.list({ projectId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(outsider.dashboards.create({ projectId, name: "Intruder" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("validates input with the REST contract", async () => {
    const api = as(world.member);
    await expect(api.dashboards.create({ projectId, name: "x".repeat(401) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(api.dashboards.create({ projectId, restriction_level: 5 } as never)).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("lists templates, creates from one, and edits tiles: add insight and text, move, recolor, remove", async () => {
    const api = as(world.member);
    expect((await api.dashboards.templates({ projectId })).map((t) => t.key)).toEqual(["DEFAULT_APP", "WEB_TRAFFIC"]);
    const board = await api.dashboards.create({ projectId, use_template: "DEFAULT_APP" });
    expect(board).toMatchObject({ creation_mode: "template", name: "Product analytics" });
    expect(board.tiles).toHaveLength(4);

    const query = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "signup", math: "dau" }], trendsFilter: { display: "BoldNumber" } };
    const withInsight = await api.dashboards.tiles.addInsight({ projectId, dashboardId: board.id, insight: { name: "Signups", query } });
    const added = withInsight.tiles.find((tile) => tile.insight?.name === "Signups")!;
    expect(added.layouts).toEqual({ sm: { x: 0, y: 10, w: 6, h: 5 } });

    const withText = await api.dashboards.tiles.update({ projectId, dashboardId: board.id, tiles: [{ text: { body: "Hello" } }] });
    const text = withText.tiles.find((tile) => tile.text)!;
    expect(text.layouts).toEqual({ sm: { x: 6, y: 10, w: 6, h: 2 } });

    const edited = await api.dashboards.tiles.update({
      projectId,
      dashboardId: board.id,
      tiles: [
        { id: text.id, layouts: { sm: { x: 0, y: 30, w: 12, h: 1 } }, color: "purple" },
        { id: added.id, deleted: true },
      ],
    });
    // Sent to row 30, it rises to the tiles above it: the grid keeps no holes.
    expect(edited.tiles.at(-1)).toMatchObject({ id: text.id, color: "purple", layouts: { sm: { x: 0, y: 10, w: 12, h: 1 } } });
    expect(edited.tiles.map((tile) => tile.id)).not.toContain(added.id);
    await expect(api.dashboards.tiles.update({ projectId, dashboardId: board.id, tiles: [{ id: text.id, layouts: { sm: { x: 11, y: 0, w: 2, h: 1 } } }] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("refuses tile edits and new insight tiles of a view-only member on a restricted dashboard", async () => {
    const board = await as(world.owner).dashboards.create({ projectId, use_template: "DEFAULT_APP", restriction_level: 37 });
    const viewer = as(world.viewer);
    await expect(viewer.dashboards.tiles.update({ projectId, dashboardId: board.id, tiles: [{ id: board.tiles[0]!.id, color: "blue" }] })).rejects.toMatchObject(FORBIDDEN);
    await expect(
      viewer.dashboards.tiles.addInsight({ projectId, dashboardId: board.id, insight: { name: "Mine", query: { kind: "TrendsQuery", series: [] } } }),
    ).rejects.toMatchObject(FORBIDDEN);
    expect((await viewer.dashboards.get({ projectId, dashboardId: board.id })).tiles.map((tile) => tile.color)).toEqual([null, null, null, null]);
  });
});
