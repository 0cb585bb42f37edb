import type { DbClient } from "@/server/db/transaction";

/** How many projects and users the instance holds, and how many organizations `userId` administers. */
export function countProjectsUsersAndAdminships(db: DbClient, userId: number, adminLevel: number) {
  return Promise.all([
    db.project.count(),
    db.user.count(),
    db.organizationMembership.count({ where: { userId, level: { gte: adminLevel } } }),
  ]);
}
