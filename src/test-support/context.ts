/** Service contexts for tests: what the edge builds for a signed-in user (every scope). */
import type { Context, UserContext } from "@/server/context";
import type { Database } from "@/server/db/client";
import { projectAccess } from "@/server/accounts/service";

export async function testUserContext(db: Database, userId: number): Promise<UserContext> {
  const user = await db.prisma.user.findUniqueOrThrow({ where: { id: userId } });
  return { db, actor: { id: user.id, uuid: user.uuid, email: user.email, currentProjectId: user.currentProjectId }, scopes: ["*"] };
}

/** `userId` acting on `projectId` (the user's first project if omitted), as a member of its organization. */
export async function testContext(db: Database, userId: number, projectId?: number): Promise<Context> {
  const ctx = await testUserContext(db, userId);
  const id = projectId ?? (await db.prisma.project.findFirstOrThrow({ where: { organization: { memberships: { some: { userId } } } }, orderBy: { id: "asc" } })).id;
  return { ...ctx, project: await projectAccess(db.prisma, userId, id) };
}
