import type { PrismaClient } from "@/server/db/client";
import type { ProjectAccess } from "@/server/context";
import { AppError } from "@/server/errors";
import type { Principal } from "./principal";


/**
 * `project_id` of a management path: a project id, or `@current` (the user's current
 * project). Unknown projects are 404; projects of another organization, or outside a
 * key's project limit, are 403.
 */
export async function resolveProject(prisma: PrismaClient, principal: Principal, raw: string): Promise<ProjectAccess> {
  let id: number | null;
  if (raw === "@current") {
    id = principal.user.currentProjectId;
    if (id === null) {
      const first = await prisma.project.findFirst({
        where: { organization: { memberships: { some: { userId: principal.user.id } } } },
        orderBy: { id: "asc" },
        select: { id: true },
      });
      id = first?.id ?? null;
    }
  } else {
    id = /^\d{1,9}$/.test(raw) ? Number(raw) : null;
  }
  if (id === null) throw new AppError("not_found", "Not found.");
  const project = await prisma.project.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      organizationId: true,
      organization: { select: { memberships: { where: { userId: principal.user.id }, select: { level: true } } } },
    },
  });
  if (!project) throw new AppError("not_found", "Not found.");
  const membership = project.organization.memberships[0];
  if (!membership) throw new AppError("permission_denied", "You don't have access to the project.");
  if (principal.scopedProjects.length > 0 && !principal.scopedProjects.includes(project.id)) {
    throw new AppError("permission_denied", "API key does not have access to the requested project.");
  }
  return { id: project.id, name: project.name, organizationId: project.organizationId, membershipLevel: membership.level };
}
