import { MembershipLevel } from "@/server/accounts/contract";
import type { Database } from "@/server/db";
import { describeDb } from "@/server/db/config";
import type { SystemStatus } from "./contract";

/**
 * Which database this instance runs on (only for `userId` who administers an organization),
 * and how many projects and users it holds.
 */
export async function getSystemStatus(db: Database, userId: number): Promise<SystemStatus> {
  const [projects, users, adminships] = await Promise.all([
    db.prisma.project.count(),
    db.prisma.user.count(),
    db.prisma.organizationMembership.count({ where: { userId, level: { gte: MembershipLevel.admin } } }),
  ]);
  return { database: adminships > 0 ? describeDb(db.config) : null, projects, users };
}
