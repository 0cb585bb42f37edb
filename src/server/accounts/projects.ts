import type { PrismaClient } from "@/server/db/client";
import { newProjectApiKey } from "@/server/auth/tokens";
import { AppError } from "@/server/errors";
import { createProjectInput, MembershipLevel } from "./contract";

/** The projects a user can open, grouped by organization, oldest first. */
export async function listProjectsForUser(prisma: PrismaClient, userId: number) {
  const memberships = await prisma.organizationMembership.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    include: { organization: { include: { projects: { orderBy: { id: "asc" }, select: { id: true, name: true } } } } },
  });
  return memberships.map((m) => ({
    organization: { id: m.organization.id, name: m.organization.name },
    level: m.level,
    projects: m.organization.projects,
  }));
}

/** A project the user is a member of, or 404 (existence is not revealed to outsiders). */
export async function getProjectForUser(prisma: PrismaClient, userId: number, projectId: number) {
  const project = await prisma.project.findFirst({
    where: { id: projectId, organization: { memberships: { some: { userId } } } },
    include: { organization: { select: { id: true, name: true, memberships: { where: { userId }, select: { level: true } } } } },
  });
  if (!project) throw new AppError("not_found", "Not found.");
  return {
    id: project.id,
    uuid: project.uuid,
    name: project.name,
    apiToken: project.apiToken,
    timezone: project.timezone,
    createdAt: project.createdAt,
    organization: { id: project.organization.id, name: project.organization.name },
    membershipLevel: project.organization.memberships[0]!.level,
  };
}

/** The user's current project: the one set, else their first; null if they have none. */
export async function currentProjectId(prisma: PrismaClient, user: { id: number; currentProjectId: number | null }) {
  if (user.currentProjectId !== null) return user.currentProjectId;
  const first = await prisma.project.findFirst({
    where: { organization: { memberships: { some: { userId: user.id } } } },
    orderBy: { id: "asc" },
    select: { id: true },
  });
  return first?.id ?? null;
}

export async function switchProject(prisma: PrismaClient, userId: number, projectId: number) {
  await getProjectForUser(prisma, userId, projectId);
  await prisma.user.update({ where: { id: userId }, data: { currentProjectId: projectId } });
}

/** An organization admin adds a project; it gets its own project API key. */
export async function createProject(prisma: PrismaClient, userId: number, organizationId: string, input: { name: string }) {
  const { name } = createProjectInput.parse(input);
  const membership = await prisma.organizationMembership.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (!membership) throw new AppError("not_found", "Not found.");
  if (membership.level < MembershipLevel.admin) throw new AppError("permission_denied", "Only organization admins can create projects.");
  return prisma.project.create({ data: { organizationId, name, apiToken: newProjectApiKey() }, select: { id: true, name: true } });
}
