import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";

/** PostHog's UserBasic: how a user appears inside other objects. */
export interface UserBasic {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  is_email_verified: boolean;
  hedgehog_config: Record<string, unknown> | null;
}

export function toUserBasic(user: {
  id: number;
  uuid: string;
  distinctId: string;
  firstName: string;
  lastName: string;
  email: string;
  isEmailVerified: boolean;
  hedgehogConfig: unknown;
}): UserBasic {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    is_email_verified: user.isEmailVerified,
    hedgehog_config: (user.hedgehogConfig as Record<string, unknown> | null) ?? null,
  };
}

/** The signed-in user as `/api/users/@me/` shows them: the basics, and their projects. */
export async function getMe(prisma: PrismaClient, userId: number, scopedProjects: readonly number[] = []) {
  const user = await prisma.user.findUnique({
    where: { id: userId },
    include: { memberships: { include: { organization: { include: { projects: { orderBy: { id: "asc" } } } } } } },
  });
  if (!user) throw new AppError("not_found", "Not found.");
  // A key limited to some projects must not reveal the others (nor organizations without one of them).
  const visible = (projectId: number) => scopedProjects.length === 0 || scopedProjects.includes(projectId);
  const organizations = user.memberships
    .map((membership) => ({
      id: membership.organization.id,
      name: membership.organization.name,
      membership_level: membership.level,
      projects: membership.organization.projects.filter((project) => visible(project.id)).map((project) => ({ id: project.id, name: project.name })),
    }))
    .filter((organization) => scopedProjects.length === 0 || organization.projects.length > 0);
  const currentProjectId = user.currentProjectId !== null && visible(user.currentProjectId) ? user.currentProjectId : (organizations[0]?.projects[0]?.id ?? null);
  return { ...toUserBasic(user), current_project_id: currentProjectId, organizations };
}
