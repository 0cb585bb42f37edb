/**
 * PostHog's CanEditInsight over REST and tRPC: an insight on a dashboard restricted to its
 * editors (level 37) is renamed, re-queried, deleted or taken off the dashboard only by
 * someone who may edit that dashboard (owner, admin, editor collaborator); everyone else
 * gets PostHog's 403 and the insight stays as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { callRoute, createWorld, type Person, type World } from "@/test-support/dashboards-api";
import { NO_INSIGHT_EDIT_PERMISSION } from "@/server/access/contract";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";

const itemRoute = restRoute("projects", "insights/:id");
const listRoute = restRoute("projects", "insights");

let db: Database;
let world: World;
/** A member made an editor collaborator on every restricted dashboard these tests create. */
let collaborator: Person;

const QUERY = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] };
const OTHER_QUERY = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$autocapture" }] };
const FORBIDDEN_BODY = { type: "authentication_error", code: "permission_denied", detail: NO_INSIGHT_EDIT_PERMISSION, attr: null };

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
  collaborator = world.viewer;
});

afterAll(async () => {
  await closeDb();
});

const patch = (who: Person, id: number, body: unknown) =>
  callRoute(itemRoute, "PATCH", `/api/projects/${world.projectId}/insights/${id}/`, { project_id: String(world.projectId), id: String(id) }, who.key, body);

const trpc = (who: Person) =>
  createCaller({ db, headers: new Headers(), user: { id: who.id, uuid: who.uuid, email: who.email, firstName: "", currentProjectId: world.projectId } });

/** An insight of the owner's on a new dashboard of the owner's at `restrictionLevel` (with `collaborator` as editor at 37). */
async function insightOnDashboard(restrictionLevel: 21 | 37): Promise<{ insightId: number; dashboardId: number }> {
  const dashboard = await db.prisma.dashboard.create({ data: { projectId: world.projectId, name: `Board ${restrictionLevel}`, restrictionLevel, createdById: world.owner.id } });
  if (restrictionLevel === 37) await db.prisma.dashboardCollaborator.create({ data: { dashboardId: dashboard.id, userId: collaborator.id, level: 37 } });
  const created = await callRoute(listRoute, "POST", `/api/projects/${world.projectId}/insights/`, { project_id: String(world.projectId) }, world.owner.key, {
    name: "Revenue",
    query: QUERY,
    dashboards: [dashboard.id],
  });
  expect(created.status, created.text).toBe(201);
  return { insightId: created.body.id, dashboardId: dashboard.id };
}

async function stored(insightId: number) {
  const row = await db.prisma.insight.findUniqueOrThrow({ where: { id: insightId }, select: { name: true, query: true, deleted: true } });
  const tiles = await db.prisma.dashboardTile.findMany({ where: { insightId, deleted: false }, select: { dashboardId: true } });
  return { ...row, dashboards: tiles.map((tile) => tile.dashboardId) };
}

const EDITS = (dashboardId: number) => ({
  rename: { name: "Renamed" },
  "change the query": { query: OTHER_QUERY },
  delete: { deleted: true },
  "remove from the dashboard": { dashboards: [] as number[] },
  "move to another dashboard": { dashboards: [dashboardId + 1_000_000] },
});

describe(`editing insights on restricted dashboards (${testDbKind})`, () => {
  it("refuses a member who is not a collaborator, over REST, with PostHog's 403, and changes nothing", async () => {
    const { insightId, dashboardId } = await insightOnDashboard(37);
    const before = await stored(insightId);
    for (const [edit, body] of Object.entries(EDITS(dashboardId))) {
      const answer = await patch(world.member, insightId, body);
      expect([edit, answer.status, answer.body]).toEqual([edit, 403, FORBIDDEN_BODY]);
    }
    const put = await callRoute(itemRoute, "PUT", `/api/projects/${world.projectId}/insights/${insightId}/`, { project_id: String(world.projectId), id: String(insightId) }, world.member.key, { name: "Put" });
    expect(put.status).toBe(403);
    expect(await stored(insightId)).toEqual(before);
    // Reading stays open to everyone in the project, as PostHog's SAFE_METHODS.
    const read = await callRoute(itemRoute, "GET", `/api/projects/${world.projectId}/insights/${insightId}/`, { project_id: String(world.projectId), id: String(insightId) }, world.member.key);
    expect(read.status).toBe(200);
  });

  it("refuses the same member over tRPC, and changes nothing", async () => {
    const { insightId, dashboardId } = await insightOnDashboard(37);
    const before = await stored(insightId);
    for (const body of Object.values(EDITS(dashboardId))) {
      await expect(trpc(world.member).insights.update({ projectId: world.projectId, insightId, ...body })).rejects.toMatchObject({
        code: "FORBIDDEN",
        message: NO_INSIGHT_EDIT_PERMISSION,
      });
    }
    expect(await stored(insightId)).toEqual(before);
  });

  it("lets the editor collaborator, the owner and an admin edit it", async () => {
    for (const [who, via] of [
      [() => collaborator, "rest"],
      [() => collaborator, "trpc"],
      [() => world.owner, "rest"],
      [() => world.admin, "trpc"],
    ] as const) {
      const { insightId } = await insightOnDashboard(37);
      const edit = { name: "Renamed", query: OTHER_QUERY };
      if (via === "rest") {
        const answer = await patch(who(), insightId, edit);
        expect(answer.status, answer.text).toBe(200);
      } else {
        await trpc(who()).insights.update({ projectId: world.projectId, insightId, ...edit });
      }
      expect(await stored(insightId)).toMatchObject({ name: "Renamed", query: OTHER_QUERY });
      expect((await patch(who(), insightId, { dashboards: [] })).status).toBe(200);
      expect((await patch(who(), insightId, { deleted: true })).status).toBe(200);
      expect(await stored(insightId)).toMatchObject({ deleted: true, dashboards: [] });
    }
  });

  it("keeps insights on no restricted dashboard editable by every member", async () => {
    const open = await insightOnDashboard(21);
    expect((await patch(world.member, open.insightId, { name: "Open" })).status).toBe(200);
    const loose = await callRoute(listRoute, "POST", `/api/projects/${world.projectId}/insights/`, { project_id: String(world.projectId) }, world.owner.key, { query: QUERY });
    expect((await patch(world.member, loose.body.id, { name: "Loose" })).status).toBe(200);
    await trpc(world.member).insights.update({ projectId: world.projectId, insightId: loose.body.id, deleted: true });
    expect(await stored(loose.body.id)).toMatchObject({ name: "Loose", deleted: true });
  });

  it("lets a member edit an insight that is also on a dashboard they may edit, as PostHog (any editable dashboard)", async () => {
    const { insightId, dashboardId } = await insightOnDashboard(37);
    const open = await db.prisma.dashboard.create({ data: { projectId: world.projectId, name: "Open", restrictionLevel: 21 } });
    await db.prisma.dashboardTile.create({ data: { dashboardId: open.id, insightId } });
    expect((await patch(world.member, insightId, { name: "Shared" })).status).toBe(200);
    // Taking it off the restricted dashboard still needs edit rights there.
    const off = await patch(world.member, insightId, { dashboards: [open.id] });
    expect(off.status).toBe(403);
    expect((await stored(insightId)).dashboards.sort()).toEqual([dashboardId, open.id].sort());
  });

  it("does not count deleted dashboards or removed tiles", async () => {
    const { insightId, dashboardId } = await insightOnDashboard(37);
    await db.prisma.dashboard.update({ where: { id: dashboardId }, data: { deleted: true } });
    expect((await patch(world.member, insightId, { name: "Free again" })).status).toBe(200);
  });
});
