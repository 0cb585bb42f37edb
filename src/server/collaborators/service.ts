/**
 * Dashboard collaborators: users given edit rights on a dashboard that only collaborators
 * may edit. PostHog's rules (ee/api/dashboard_collaborator.py), each a 400 with its message.
 */
import { PrivilegeLevel, RestrictionLevel } from "@/server/access/contract";
import { assertCanEdit, isInherentEditor } from "@/server/access/service";
import { logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import { requireDashboard } from "@/server/dashboards/service";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import type { AddCollaboratorBody } from "./contract";
import { collaboratorResource, type CollaboratorResource } from "./present";
import {
  deleteCollaborator,
  findActiveUserInProject,
  findCollaboratorId,
  findCollaborators,
  insertCollaborator,
  isDuplicateCollaborator,
} from "./store";

const DASHBOARD_NOT_FOUND = "Dashboard not found.";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The dashboard's collaborators, in the order they were added (a bare list: PostHog does not page it). */
export async function listCollaborators(ctx: Context, dashboardId: number): Promise<CollaboratorResource[]> {
  await requireDashboard(ctx, dashboardId, DASHBOARD_NOT_FOUND);
  const rows = await findCollaborators(ctx.db.prisma, dashboardId);
  return rows.map(collaboratorResource);
}

export async function addCollaborator(ctx: Context, dashboardId: number, body: AddCollaboratorBody): Promise<CollaboratorResource> {
  const { row: dashboard, permissions } = await requireDashboard(ctx, dashboardId, DASHBOARD_NOT_FOUND);
  assertCanEdit(permissions);
  if (permissions.effectiveRestrictionLevel <= RestrictionLevel.everyoneInProjectCanEdit) {
    throw new AppError("invalid_input", "Cannot add collaborators to a dashboard on the lowest restriction level.");
  }
  if (body.level !== PrivilegeLevel.canEdit) throw new AppError("invalid_input", "Only edit access can be explicitly specified currently.");
  const user = await findActiveUserInProject(ctx.db.prisma, body.user_uuid, ctx.project.id);
  if (!user) throw new AppError("invalid_input", "User does not exist.");
  const membership = user.memberships[0];
  if (!membership) throw new AppError("invalid_input", "Cannot add collaborators that have no access to the project.");
  if (isInherentEditor(dashboard, { actor: { id: user.id }, project: { membershipLevel: membership.level } })) {
    throw new AppError("invalid_input", "Cannot add collaborators that already have inherent access (the dashboard owner or a project admins).");
  }
  try {
    const created = await inTransaction(ctx.db, async (tx) => {
      const row = await insertCollaborator(tx, { dashboardId, userId: user.id, level: body.level });
      await logActivity(tx, {
        projectId: ctx.project.id,
        userId: ctx.actor.id,
        scope: "Dashboard",
        itemId: dashboardId,
        activity: "collaborator_added",
        name: dashboard.name,
        extra: { collaborator: { user_uuid: user.uuid, level: body.level } },
      });
      return row;
    });
    return collaboratorResource(created);
  } catch (error) {
    if (isDuplicateCollaborator(error)) throw new AppError("invalid_input", "User already is a collaborator.");
    throw error;
  }
}

/** Removes a user's collaborator row; a path that is not a collaborator's uuid is a 404. */
export async function removeCollaborator(ctx: Context, dashboardId: number, userUuid: string): Promise<void> {
  const { row: dashboard, permissions } = await requireDashboard(ctx, dashboardId, DASHBOARD_NOT_FOUND);
  assertCanEdit(permissions);
  const existing = UUID.test(userUuid) ? await findCollaboratorId(ctx.db.prisma, dashboardId, userUuid.toLowerCase()) : null;
  if (!existing) throw new AppError("not_found", "Not found.");
  if (permissions.effectiveRestrictionLevel <= RestrictionLevel.everyoneInProjectCanEdit) {
    throw new AppError("invalid_input", "Cannot remove collaborators from a dashboard on the lowest restriction level.");
  }
  await inTransaction(ctx.db, async (tx) => {
    await deleteCollaborator(tx, existing.id);
    await logActivity(tx, {
      projectId: ctx.project.id,
      userId: ctx.actor.id,
      scope: "Dashboard",
      itemId: dashboardId,
      activity: "collaborator_removed",
      name: dashboard.name,
      extra: { collaborator: { user_uuid: userUuid.toLowerCase() } },
    });
  });
}
