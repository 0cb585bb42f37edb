/**
 * Dashboard collaborators through the real route handlers: list (a bare array), add with
 * each of PostHog's rules, remove, and who may do it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRoute, createDashboardAs, createWorld, type Person, type World } from "@/test-support/dashboards-api";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";

const item = restRoute("environments", "dashboards/:id/collaborators/:user_uuid");
const collection = restRoute("environments", "dashboards/:id/collaborators");
const dashboardItem = restRoute("environments", "dashboards/:id");
const dashboards = restRoute("environments", "dashboards");

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

const params = (dashboardId: number | string, extra: Record<string, string> = {}) => ({ project_id: String(world.projectId), id: String(dashboardId), ...extra });
const path = (dashboardId: number | string) => `/api/environments/${world.projectId}/dashboards/${dashboardId}/collaborators/`;
const listOf = (who: Person, dashboardId: number | string) => callRoute(collection, "GET", path(dashboardId), params(dashboardId), who.key);
const add = (who: Person, dashboardId: number | string, body: unknown) => callRoute(collection, "POST", path(dashboardId), params(dashboardId), who.key, body);
const remove = (who: Person, dashboardId: number | string, userUuid: string) =>
  callRoute(item, "DELETE", `${path(dashboardId)}${userUuid}/`, params(dashboardId, { user_uuid: userUuid }), who.key);

const dashboard = (who: Person, body: Record<string, unknown>) => createDashboardAs(world, who, body);

const invalid = (detail: string, attr: string | null = null) => ({ status: 400, body: { type: "validation_error", code: "invalid_input", detail, attr } });

describe(`dashboard collaborators REST API (${testDbKind})`, () => {
  it("adds a member as an editor (201), lists them in a bare array, and removes them (204)", async () => {
    const id = await dashboard(world.owner, { name: "Restricted", restriction_level: 37 });
    expect(await listOf(world.viewer, id)).toMatchObject({ status: 200, body: [] });

    const added = await add(world.owner, id, { user_uuid: world.member.uuid, level: 37 });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      dashboard_id: id,
      user: { id: world.member.id, uuid: world.member.uuid, distinct_id: expect.any(String), first_name: "", last_name: "", email: world.member.email, is_email_verified: false, hedgehog_config: null },
      level: 37,
      added_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const listed = await listOf(world.viewer, id);
    expect(listed.body).toEqual([added.body]);

    // The collaborator can now edit the dashboard.
    const edit = await callRoute(dashboardItem, "PATCH", `/api/environments/${world.projectId}/dashboards/${id}/`, params(id), world.member.key, { name: "Edited by collaborator" });
    expect(edit).toMatchObject({ status: 200, body: { effective_privilege_level: 37 } });

    const removed = await remove(world.owner, id, world.member.uuid);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expect((await listOf(world.owner, id)).body).toEqual([]);
    const refused = await callRoute(dashboardItem, "PATCH", `/api/environments/${world.projectId}/dashboards/${id}/`, params(id), world.member.key, { name: "Again" });
    expect(refused.status).toBe(403);

    const log = await db.prisma.activityLog.findMany({ where: { itemId: String(id), activity: { startsWith: "collaborator_" } }, orderBy: { createdAt: "asc" } });
    expect(log.map((entry) => entry.activity)).toEqual(["collaborator_added", "collaborator_removed"]);
  });

  it("lists collaborators in the order they were added", async () => {
    const id = await dashboard(world.owner, { restriction_level: 37 });
    await add(world.owner, id, { user_uuid: world.viewer.uuid, level: 37 });
    await add(world.owner, id, { user_uuid: world.member.uuid, level: 37 });
    expect((await listOf(world.member, id)).body.map((c: any) => c.user.email)).toEqual([world.viewer.email, world.member.email]);
  });

  describe("PostHog's rules for adding, each a 400", () => {
    let restricted: number;
    beforeAll(async () => {
      restricted = await dashboard(world.member, { name: "Member's restricted", restriction_level: 37 });
    });

    it("refuses on a dashboard everyone can edit", async () => {
      const open = await dashboard(world.owner, { name: "Open" });
      expect(await add(world.owner, open, { user_uuid: world.member.uuid, level: 37 })).toMatchObject(invalid("Cannot add collaborators to a dashboard on the lowest restriction level."));
    });

    it("accepts only level 37", async () => {
      expect(await add(world.member, restricted, { user_uuid: world.viewer.uuid, level: 21 })).toMatchObject(invalid("Only edit access can be explicitly specified currently."));
      expect(await add(world.member, restricted, { user_uuid: world.viewer.uuid, level: 5 })).toMatchObject(invalid('"5" is not a valid choice.', "level"));
      expect(await add(world.member, restricted, { user_uuid: world.viewer.uuid })).toMatchObject(invalid("This field is required.", "level"));
    });

    it("needs a valid user_uuid of an active user", async () => {
      expect(await add(world.member, restricted, { level: 37 })).toMatchObject(invalid("This field is required.", "user_uuid"));
      expect(await add(world.member, restricted, { user_uuid: "not-a-uuid", level: 37 })).toMatchObject(invalid("Must be a valid UUID.", "user_uuid"));
      expect(await add(world.member, restricted, { user_uuid: randomUUID(), level: 37 })).toMatchObject(invalid("User does not exist."));
      await db.prisma.user.update({ where: { id: world.viewer.id }, data: { isActive: false } });
      try {
        expect(await add(world.member, restricted, { user_uuid: world.viewer.uuid, level: 37 })).toMatchObject(invalid("User does not exist."));
      } finally {
        await db.prisma.user.update({ where: { id: world.viewer.id }, data: { isActive: true } });
      }
    });

    it("refuses a user who is not in the project's organization", async () => {
      expect(await add(world.member, restricted, { user_uuid: world.outsider.uuid, level: 37 })).toMatchObject(invalid("Cannot add collaborators that have no access to the project."));
    });

    it("refuses the owner and project admins, who edit anyway", async () => {
      const inherent = invalid("Cannot add collaborators that already have inherent access (the dashboard owner or a project admins).");
      expect(await add(world.member, restricted, { user_uuid: world.member.uuid, level: 37 })).toMatchObject(inherent);
      expect(await add(world.member, restricted, { user_uuid: world.admin.uuid, level: 37 })).toMatchObject(inherent);
      expect(await add(world.member, restricted, { user_uuid: world.owner.uuid, level: 37 })).toMatchObject(inherent);
    });

    it("refuses a duplicate, also when two adds race", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      const [first, second] = await Promise.all([add(world.owner, id, { user_uuid: world.viewer.uuid, level: 37 }), add(world.owner, id, { user_uuid: world.viewer.uuid, level: 37 })]);
      expect([first.status, second.status].sort()).toEqual([201, 400]);
      expect([first, second].find((a) => a.status === 400)).toMatchObject(invalid("User already is a collaborator."));
      expect(await add(world.owner, id, { user_uuid: world.viewer.uuid, level: "37" })).toMatchObject(invalid("User already is a collaborator."));
      expect((await listOf(world.owner, id)).body).toHaveLength(1);
    });
  });

  describe("who may change collaborators", () => {
    it("a view-only member may list but not add or remove (403)", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      await add(world.owner, id, { user_uuid: world.member.uuid, level: 37 });
      const noEdit = { status: 403, body: { type: "authentication_error", code: "permission_denied", detail: "You don't have edit permissions for this dashboard." } };
      expect((await listOf(world.viewer, id)).status).toBe(200);
      expect(await add(world.viewer, id, { user_uuid: world.viewer.uuid, level: 37 })).toMatchObject(noEdit);
      expect(await remove(world.viewer, id, world.member.uuid)).toMatchObject(noEdit);
      expect((await listOf(world.owner, id)).body).toHaveLength(1);
    });

    it("a collaborator and a project admin may add others", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      await add(world.owner, id, { user_uuid: world.member.uuid, level: 37 });
      expect((await add(world.member, id, { user_uuid: world.viewer.uuid, level: 37 })).status).toBe(201);
      expect((await remove(world.admin, id, world.viewer.uuid)).status).toBe(204);
    });

    it("a user of another organization gets 403", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      expect((await listOf(world.outsider, id)).status).toBe(403);
      expect((await add(world.outsider, id, { user_uuid: world.outsider.uuid, level: 37 })).status).toBe(403);
    });
  });

  describe("removing", () => {
    it("answers 404 for a user who is not a collaborator, or a path that is not a uuid", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      expect(await remove(world.owner, id, world.member.uuid)).toMatchObject({ status: 404, body: { code: "not_found" } });
      expect((await remove(world.owner, id, "nobody")).status).toBe(404);
    });

    it("refuses once the dashboard is open to everyone again, and keeps the row", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      await add(world.owner, id, { user_uuid: world.member.uuid, level: 37 });
      await callRoute(dashboardItem, "PATCH", `/api/environments/${world.projectId}/dashboards/${id}/`, params(id), world.owner.key, { restriction_level: 21 });
      expect(await remove(world.owner, id, world.member.uuid)).toMatchObject(invalid("Cannot remove collaborators from a dashboard on the lowest restriction level."));
      expect((await listOf(world.owner, id)).body).toHaveLength(1);
    });
  });

  describe("a dashboard that is not there", () => {
    it("answers 404 'Dashboard not found.' for unknown, other-project and deleted dashboards", async () => {
      const notFound = { status: 404, body: { type: "invalid_request", code: "not_found", detail: "Dashboard not found.", attr: null } };
      expect(await listOf(world.owner, 999999)).toMatchObject(notFound);
      const otherProject = await callRoute(dashboards, "POST", `/api/environments/${world.otherProjectId}/dashboards/`, { project_id: String(world.otherProjectId) }, world.owner.key, { restriction_level: 37 });
      expect(await listOf(world.owner, otherProject.body.id)).toMatchObject(notFound);
      expect(await add(world.owner, otherProject.body.id, { user_uuid: world.member.uuid, level: 37 })).toMatchObject(notFound);

      const id = await dashboard(world.owner, { restriction_level: 37 });
      await callRoute(dashboardItem, "PATCH", `/api/environments/${world.projectId}/dashboards/${id}/`, params(id), world.owner.key, { deleted: true });
      expect(await listOf(world.owner, id)).toMatchObject(notFound);
      expect(await add(world.owner, id, { user_uuid: world.member.uuid, level: 37 })).toMatchObject(notFound);
      expect((await listOf(world.owner, "x")).status).toBe(404);
    });

    it("answers 405 for methods the collection and the item do not have", async () => {
      const id = await dashboard(world.owner, { restriction_level: 37 });
      expect((await callRoute(collection, "PATCH", path(id), params(id), world.owner.key, {})).body).toMatchObject({ code: "method_not_allowed" });
      expect((await callRoute(item, "GET", `${path(id)}${world.member.uuid}/`, params(id, { user_uuid: world.member.uuid }), world.owner.key)).status).toBe(405);
    });
  });
});
