import { MembershipLevel } from "@/server/accounts/contract";
import type { UserContext } from "@/server/context";
import { describeDb } from "@/server/db/config";
import type { SystemStatus } from "./contract";
import { countProjectsUsersAndAdminships } from "./store";

/**
 * Which database this instance runs on (only for an actor who administers an organization),
 * and how many projects and users it holds.
 */
export async function getSystemStatus(ctx: UserContext): Promise<SystemStatus> {
  const [projects, users, adminships] = await countProjectsUsersAndAdminships(ctx.db.prisma, ctx.actor.id, MembershipLevel.admin);
  return { database: adminships > 0 ? describeDb(ctx.db.config) : null, projects, users };
}
