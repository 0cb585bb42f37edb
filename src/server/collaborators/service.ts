/**
 * Dashboard collaborators: users given edit rights on a dashboard that only collaborators
 * may edit. PostHog's rules (ee/api/dashboard_collaborator.py), each a 400 with its message.
 */
import { Prisma } from "@/generated/prisma/client";
import { toUserBasic, type UserBasic } from "@/server/accounts/present";
import { logActivity } from "@/server/activity/service";
import { isInherentEditor, assertCanEdit, PrivilegeLevel, RestrictionLevel, type DashboardActor } from "@/server/access/service";
import { requireDashboard } from "@/server/dashboards/service";
import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type { AddCollaboratorBody } from "./contract";

export interface CollaboratorResource {
  id: string;
  dashboard_id: number;
  user: UserBasic;
  level: number;
  added_at: string;
  updated_at: string;
}

const DASHBOARD_NOT_FOUND = "Dashboard not found.";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function collaboratorResource(row: Prisma.DashboardCollaboratorGetPayload<{ include: { user: true } }>): CollaboratorResource {
  return {
    id: row.id,
    dashboard_id: row.dashboardId,
    user: toUserBasic(row.user),
    level: row.level,
    added_at: row.addedAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The dashboard's collaborators, in the order they were added (a bare list: PostHog does not page it). */
export async function listCollaborators(prisma: PrismaClient, projectId: number, actor: DashboardActor, dashboardId: number): Promise<CollaboratorResource[]> {
  await requireDashboard(prisma, projectId, actor, dashboardId, DASHBOARD_NOT_FOUND);
  const rows = await prisma.dashboardCollaborator.findMany({ where: { dashboardId }, include: { user: true }, orderBy: [{ addedAt: "asc" }, { id: "asc" }] });
  return rows.map(collaboratorResource);
}

export async function addCollaborator(
  prisma: PrismaClient,
  projectId: number,
  actor: DashboardActor,
  dashboardId: number,
  body: AddCollaboratorBody,
): Promise<CollaboratorResource> {
  const { row: dashboard, permissions } = await requireDashboard(prisma, projectId, actor, dashboardId, DASHBOARD_NOT_FOUND);
  assertCanEdit(permissions);
  if (permissions.effectiveRestrictionLevel <= RestrictionLevel.everyoneInProjectCanEdit) {
    throw new AppError("invalid_input", "Cannot add collaborators to a dashboard on the lowest restriction level.");
  }
  if (body.level !== PrivilegeLevel.canEdit) throw new AppError("invalid_input", "Only edit access can be explicitly specified currently.");
  const user = await prisma.user.findFirst({
    where: { uuid: body.user_uuid, isActive: true },
    include: { memberships: { where: { organization: { projects: { some: { id: projectId } } } }, select: { level: true } } },
  });
  if (!user) throw new AppError("invalid_input", "User does not exist.");
  const membership = user.memberships[0];
  if (!membership) throw new AppError("invalid_input", "Cannot add collaborators that have no access to the project.");
  if (isInherentEditor(dashboard, { userId: user.id, membershipLevel: membership.level })) {
    throw new AppError("invalid_input", "Cannot add collaborators that already have inherent access (the dashboard owner or a project admins).");
  }
  try {
    const created = await prisma.$transaction(async (tx) => {
      const row = await tx.dashboardCollaborator.create({ data: { dashboardId, userId: user.id, level: body.level }, include: { user: true } });
      await logActivity(tx, {
        projectId,
        userId: actor.userId,
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
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new AppError("invalid_input", "User already is a collaborator.");
    throw error;
  }
}

/** Removes a user's collaborator row; a path that is not a collaborator's uuid is a 404. */
export async function removeCollaborator(prisma: PrismaClient, projectId: number, actor: DashboardActor, dashboardId: number, userUuid: string): Promise<void> {
  const { row: dashboard, permissions } = await requireDashboard(prisma, projectId, actor, dashboardId, DASHBOARD_NOT_FOUND);
  assertCanEdit(permissions);
  const existing = UUID.test(userUuid)
    ? await prisma.dashboardCollaborator.findFirst({ where: { dashboardId, user: { uuid: userUuid.toLowerCase() } }, select: { id: true } })
    : null;
  if (!existing) throw new AppError("not_found", "Not found.");
  if (permissions.effectiveRestrictionLevel <= RestrictionLevel.everyoneInProjectCanEdit) {
    throw new AppError("invalid_input", "Cannot remove collaborators from a dashboard on the lowest restriction level.");
  }
  await prisma.$transaction(async (tx) => {
    await tx.dashboardCollaborator.delete({ where: { id: existing.id } });
    await logActivity(tx, {
      projectId,
      userId: actor.userId,
      scope: "Dashboard",
      itemId: dashboardId,
      activity: "collaborator_removed",
      name: dashboard.name,
      extra: { collaborator: { user_uuid: userUuid.toLowerCase() } },
    });
  });
}
