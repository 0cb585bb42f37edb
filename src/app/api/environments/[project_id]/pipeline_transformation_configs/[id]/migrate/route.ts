import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";
import { migrateConfig } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `POST …/:id/migrate/`: brings the stored config up to its plugin's current schema. */
export const POST = projectRoute<Params>("plugin", async ({ db, project, principal, params }) =>
  migrateConfig(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id)),
);

export const GET = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
