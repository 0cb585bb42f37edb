import { projectResource } from "@/server/accounts/project-api";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/:project_id/` (also `@current`). */
export const GET = projectRoute("project", async ({ db, project }) => projectResource(db.prisma, project.id));

export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
