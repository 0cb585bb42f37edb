import { currentProjectId, projectAccess } from "@/server/accounts/service";
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
  const id = raw === "@current" ? await currentProjectId(prisma, principal.user) : /^\d{1,9}$/.test(raw) ? Number(raw) : null;
  if (id === null) throw new AppError("not_found", "Not found.");
  const project = await projectAccess(prisma, principal.user.id, id);
  if (principal.scopedProjects.length > 0 && !principal.scopedProjects.includes(project.id)) {
    throw new AppError("permission_denied", "API key does not have access to the requested project.");
  }
  return project;
}
