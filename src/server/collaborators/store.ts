/** Data access for dashboard collaborators: their rows, and the user a new one names. */
import type { Prisma } from "@/generated/prisma/client";
import { isUniqueViolation, type DbClient } from "@/server/db/transaction";

export type CollaboratorRow = Prisma.DashboardCollaboratorGetPayload<{ include: { user: true } }>;

/** The dashboard's collaborators, in the order they were added. */
export function findCollaborators(db: DbClient, dashboardId: number): Promise<CollaboratorRow[]> {
  return db.dashboardCollaborator.findMany({ where: { dashboardId }, include: { user: true }, orderBy: [{ addedAt: "asc" }, { id: "asc" }] });
}

/** An active user by uuid, with their membership in the organization of `projectId` (if any). */
export function findActiveUserInProject(db: DbClient, uuid: string, projectId: number) {
  return db.user.findFirst({
    where: { uuid, isActive: true },
    include: { memberships: { where: { organization: { projects: { some: { id: projectId } } } }, select: { level: true } } },
  });
}

/** Throws Prisma's unique violation (see `isDuplicateCollaborator`) when the user already is one. */
export function insertCollaborator(db: DbClient, collaborator: { dashboardId: number; userId: number; level: number }): Promise<CollaboratorRow> {
  return db.dashboardCollaborator.create({ data: collaborator, include: { user: true } });
}

/** The failure of `insertCollaborator` for a user who already is a collaborator. */
export function isDuplicateCollaborator(error: unknown): boolean {
  return isUniqueViolation(error, "dashboard_collaborators_dashboard_id_user_id_key");
}

/** The collaborator row of the user with `userUuid` (lowercase) on the dashboard. */
export function findCollaboratorId(db: DbClient, dashboardId: number, userUuid: string) {
  return db.dashboardCollaborator.findFirst({ where: { dashboardId, user: { uuid: userUuid } }, select: { id: true } });
}

export async function deleteCollaborator(db: DbClient, id: string): Promise<void> {
  await db.dashboardCollaborator.delete({ where: { id } });
}
