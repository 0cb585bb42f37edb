import type { Database } from "@/server/db";
import { describeDb } from "@/server/db/config";
import type { SystemStatus } from "./contract";

/** Which database this instance runs on, and how many projects and users it holds. */
export async function getSystemStatus(db: Database): Promise<SystemStatus> {
  const [projects, users] = await Promise.all([db.prisma.project.count(), db.prisma.user.count()]);
  return { database: describeDb(db.config), projects, users };
}
