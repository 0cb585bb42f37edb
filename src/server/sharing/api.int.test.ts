/**
 * A dashboard's sharing configuration through the real route handlers (GET creates it
 * disabled, PATCH enables, refresh rotates), and what the public page resolves a token to.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPersonalApiKey } from "@/server/accounts/service";
import { callRoute, createDashboardAs, createWorld, type Person, type World } from "@/test-support/dashboards-api";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { findSharedDashboard } from "./service";
import { restRoute } from "@/test-support/rest-routes";

const dashboardItem = restRoute("environments", "dashboards/:id");
const refresh = restRoute("environments", "dashboards/:id/sharing/refresh");
const sharing = restRoute("environments", "dashboards/:id/sharing");
const dashboards = restRoute("environments", "dashboards");
const projectSharing = restRoute("projects", "dashboards/:id/sharing");

let db: Database;
let world: World;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
});

afterAll(async () => {
  await closeDb();
});

const params = (id: number | string) => ({ project_id: String(world.projectId), id: String(id) });
const path = (id: number | string) => `/api/environments/${world.projectId}/dashboards/${id}/sharing/`;
const read = (who: Person | string, id: number | string) => callRoute(sharing, "GET", path(id), params(id), typeof who === "string" ? who : who.key);
const update = (who: Person | string, id: number | string, body: unknown) => callRoute(sharing, "PATCH", path(id), params(id), typeof who === "string" ? who : who.key, body);
const rotate = (who: Person | string, id: number | string) => callRoute(refresh, "POST", `${path(id)}refresh/`, params(id), typeof who === "string" ? who : who.key);
const dashboardOf = (who: Person, id: number) => callRoute(dashboardItem, "GET", `/api/environments/${world.projectId}/dashboards/${id}/`, params(id), who.key);

const dashboard = (who: Person, body: Record<string, unknown>) => createDashboardAs(world, who, body);

const TOKEN = /^[A-Za-z0-9_-]{30}$/;

describe(`dashboard sharing REST API (${testDbKind})`, () => {
  it("GET creates a disabled configuration on first read and answers the same one after", async () => {
    const id = await dashboard(world.owner, { name: "Board" });
    const first = await read(world.viewer, id);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ created_at: expect.stringMatching(/Z$/), enabled: false, access_token: expect.stringMatching(TOKEN), settings: null });
    const again = await read(world.owner, id);
    expect(again.body).toEqual(first.body);
    expect(await db.prisma.sharingConfiguration.count({ where: { dashboardId: id } })).toBe(1);
    expect(await findSharedDashboard(db, first.body.access_token)).toBeNull();
  });

  it("concurrent first reads leave one configuration", async () => {
    const id = await dashboard(world.owner, { name: "Raced" });
    const answers = await Promise.all([read(world.owner, id), read(world.member, id), read(world.viewer, id)]);
    expect(new Set(answers.map((a) => a.body.access_token)).size).toBe(1);
    expect(await db.prisma.sharingConfiguration.count({ where: { dashboardId: id } })).toBe(1);
  });

  it("PATCH enabled turns the public link on and off; the dashboard says is_shared", async () => {
    const id = await dashboard(world.owner, { name: "Quarterly numbers", description: "For the board", tags: ["board"] });
    const on = await update(world.owner, id, { enabled: true });
    expect(on).toMatchObject({ status: 200, body: { enabled: true, access_token: expect.stringMatching(TOKEN) } });
    expect((await dashboardOf(world.viewer, id)).body.is_shared).toBe(true);

    const shared = await findSharedDashboard(db, on.body.access_token);
    expect(shared).toEqual({
      name: "Quarterly numbers",
      description: "For the board",
      tags: ["board"],
      effective_restriction_level: 37,
      effective_privilege_level: 21,
      last_refresh: null,
      tiles: [],
    });

    const off = await update(world.owner, id, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, access_token: on.body.access_token });
    expect((await dashboardOf(world.viewer, id)).body.is_shared).toBe(false);
    expect(await findSharedDashboard(db, on.body.access_token)).toBeNull();

    const log = await db.prisma.activityLog.findMany({ where: { itemId: String(id), activity: { startsWith: "sharing_" } }, orderBy: { createdAt: "asc" } });
    expect(log.map((entry) => entry.activity)).toEqual(["sharing_enabled", "sharing_disabled"]);
  });

  it("keeps settings, and refuses a non-boolean enabled", async () => {
    const id = await dashboard(world.owner, {});
    expect((await update(world.owner, id, { enabled: true, settings: { whitelabel: true } })).body).toMatchObject({ enabled: true, settings: { whitelabel: true } });
    expect((await update(world.owner, id, { settings: null })).body).toMatchObject({ enabled: true, settings: null });
    expect(await update(world.owner, id, { enabled: "sometimes" })).toMatchObject({ status: 400, body: { attr: "enabled", detail: "Must be a valid boolean." } });
    expect(await update(world.owner, id, { settings: [1] })).toMatchObject({ status: 400, body: { attr: "settings" } });
  });

  it("refresh issues a new unguessable token; the old one stops working at once", async () => {
    const id = await dashboard(world.owner, { name: "Rotated" });
    const original = (await update(world.owner, id, { enabled: true })).body;
    const rotated = await rotate(world.owner, id);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ enabled: true, access_token: expect.stringMatching(TOKEN) });
    expect(rotated.body.access_token).not.toBe(original.access_token);
    expect(await findSharedDashboard(db, original.access_token)).toBeNull();
    expect(await findSharedDashboard(db, rotated.body.access_token)).toMatchObject({ name: "Rotated" });
    expect((await read(world.owner, id)).body.access_token).toBe(rotated.body.access_token);
    // The old row is kept, expired: the history stays.
    const rows = await db.prisma.sharingConfiguration.findMany({ where: { dashboardId: id }, orderBy: { id: "asc" } });
    expect(rows.map((row) => [row.accessToken, row.expiresAt !== null])).toEqual([
      [original.access_token, true],
      [rotated.body.access_token, false],
    ]);
    // Re-enabling does not revive the old token.
    await update(world.owner, id, { enabled: false });
    await update(world.owner, id, { enabled: true });
    expect(await findSharedDashboard(db, original.access_token)).toBeNull();
  });

  it("tokens are distinct and carry at least 128 bits", async () => {
    const tokens = new Set<string>();
    const id = await dashboard(world.owner, {});
    for (let i = 0; i < 20; i++) tokens.add((await rotate(world.owner, id)).body.access_token);
    expect(tokens.size).toBe(20);
    for (const token of tokens) expect(Buffer.from(token, "base64url").length * 8).toBeGreaterThanOrEqual(128);
  });

  it("a deleted dashboard's link answers nothing until it is restored", async () => {
    const id = await dashboard(world.owner, { name: "Soon deleted" });
    const token = (await update(world.owner, id, { enabled: true })).body.access_token;
    await callRoute(dashboardItem, "PATCH", `/api/environments/${world.projectId}/dashboards/${id}/`, params(id), world.owner.key, { deleted: true });
    expect(await findSharedDashboard(db, token)).toBeNull();
    expect(await read(world.owner, id)).toMatchObject({ status: 404 });
    await callRoute(dashboardItem, "PATCH", `/api/environments/${world.projectId}/dashboards/${id}/`, params(id), world.owner.key, { deleted: false });
    expect(await findSharedDashboard(db, token)).toMatchObject({ name: "Soon deleted" });
  });

  it("the public view shows tiles without people or project ids", async () => {
    const id = await dashboard(world.owner, { name: "With tiles" });
    const insight = await db.prisma.insight.create({ data: { shortId: "pubtile1", projectId: world.projectId, name: "Visits", createdById: world.owner.id, lastModifiedById: world.owner.id } });
    const text = await db.prisma.dashboardText.create({ data: { projectId: world.projectId, body: "Notes", createdById: world.owner.id } });
    await db.prisma.dashboardTile.create({ data: { dashboardId: id, insightId: insight.id, layouts: { sm: { x: 0, y: 0 } } } });
    await db.prisma.dashboardTile.create({ data: { dashboardId: id, textId: text.id, layouts: { sm: { x: 0, y: 1 } } } });
    const token = (await update(world.owner, id, { enabled: true })).body.access_token;
    const shared = await findSharedDashboard(db, token);
    expect(shared!.tiles.map((t) => [t.insight?.name ?? null, t.text?.body ?? null])).toEqual([
      ["Visits", null],
      [null, "Notes"],
    ]);
    // Content only: no insight or text ids usable elsewhere, no people, no project.
    expect(Object.keys(shared!.tiles[0]!.insight!).sort()).toEqual(["computation", "derived_name", "description", "name", "query"]);
    expect(shared!.tiles[1]!.text).toEqual({ body: "Notes" });
    expect(shared!.tiles.map((t) => t.id)).toEqual([0, 1]);
    const serialised = JSON.stringify(shared);
    expect(serialised).not.toContain(world.owner.email);
    expect(serialised).not.toContain(world.owner.uuid);
  });

  it("unknown or malformed tokens resolve to nothing", async () => {
    expect(await findSharedDashboard(db, "A".repeat(30))).toBeNull();
    expect(await findSharedDashboard(db, "")).toBeNull();
    expect(await findSharedDashboard(db, "'; DROP TABLE dashboards; --")).toBeNull();
  });

  describe("permissions", () => {
    const noEdit = { status: 403, body: { type: "authentication_error", code: "permission_denied", detail: "You don't have edit permissions for this dashboard." } };

    it("a view-only member may read the configuration but not enable or rotate it", async () => {
      const id = await dashboard(world.owner, { name: "Locked", restriction_level: 37 });
      expect(await update(world.viewer, id, { enabled: true })).toMatchObject(noEdit);
      expect(await rotate(world.viewer, id)).toMatchObject(noEdit);
      const token = (await read(world.owner, id)).body.access_token;
      expect(token).toMatch(TOKEN);
      expect((await read(world.owner, id)).body).toMatchObject({ enabled: false, access_token: token });
    });

    it("a view-only member's read creates no token, and shows none while sharing is off", async () => {
      const id = await dashboard(world.owner, { name: "Quiet", restriction_level: 37 });
      const first = await read(world.viewer, id);
      expect([first.status, first.body]).toEqual([200, { created_at: null, enabled: false, access_token: null, settings: null }]);
      expect(await db.prisma.sharingConfiguration.count({ where: { dashboardId: id } })).toBe(0);
      const stored = (await read(world.owner, id)).body;
      expect((await read(world.viewer, id)).body).toEqual({ ...stored, access_token: null });
      // Once an editor shares it, the link is public and a viewer may copy it.
      const shared = (await update(world.owner, id, { enabled: true })).body;
      expect((await read(world.viewer, id)).body).toEqual(shared);
      expect(shared.access_token).toMatch(TOKEN);
    });

    it("a collaborator and a project admin may share a restricted dashboard", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      await db.prisma.dashboardCollaborator.create({ data: { dashboardId: id, userId: world.member.id, level: 37 } });
      expect((await update(world.member, id, { enabled: true })).status).toBe(200);
      expect((await rotate(world.admin, id)).status).toBe(200);
    });

    it("needs sharing_configuration scopes: read for GET, write for PATCH and refresh", async () => {
      const id = await dashboard(world.owner, {});
      const readOnly = (await createPersonalApiKey(db.prisma, world.owner.id, { scopes: ["sharing_configuration:read"] })).key;
      const dashboardOnly = (await createPersonalApiKey(db.prisma, world.owner.id, { scopes: ["dashboard:write"] })).key;
      expect((await read(readOnly, id)).status).toBe(200);
      expect(await update(readOnly, id, { enabled: true })).toMatchObject({ status: 403, body: { detail: "API key missing required scope 'sharing_configuration:write'" } });
      expect(await rotate(readOnly, id)).toMatchObject({ status: 403, body: { detail: "API key missing required scope 'sharing_configuration:write'" } });
      expect(await read(dashboardOnly, id)).toMatchObject({ status: 403, body: { detail: "API key missing required scope 'sharing_configuration:read'" } });
    });

    it("unknown, other-project and non-numeric dashboards are 404; other organizations 403", async () => {
      expect((await read(world.owner, 999999)).status).toBe(404);
      expect((await update(world.owner, "abc", { enabled: true })).status).toBe(404);
      const other = await callRoute(dashboards, "POST", `/api/environments/${world.otherProjectId}/dashboards/`, { project_id: String(world.otherProjectId) }, world.owner.key, {});
      expect((await rotate(world.owner, other.body.id)).status).toBe(404);
      const id = await dashboard(world.owner, {});
      expect((await read(world.outsider, id)).status).toBe(403);
    });

    it("answers 405 for methods sharing does not have", async () => {
      const id = await dashboard(world.owner, {});
      expect((await callRoute(sharing, "DELETE", path(id), params(id), world.owner.key)).body).toMatchObject({ code: "method_not_allowed", detail: 'Method "DELETE" not allowed.' });
      expect((await callRoute(refresh, "GET", `${path(id)}refresh/`, params(id), world.owner.key)).status).toBe(405);
    });

    it("is served under /api/projects/ too", async () => {
      const id = await dashboard(world.owner, {});
      const answer = await callRoute(projectSharing, "GET", `/api/projects/${world.projectId}/dashboards/${id}/sharing/`, params(id), world.owner.key);
      expect(answer.body).toMatchObject({ enabled: false, access_token: expect.stringMatching(TOKEN) });
    });
  });
});
