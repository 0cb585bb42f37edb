import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";
import { jobInput } from "@/server/transformations/contract";
import { runJob } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `POST …/:id/job/` with `{"job": {"type": "dry_run", "payload": {…}}}`: runs the job and answers its result. */
export const POST = projectRoute<Params>("plugin", async ({ db, project, principal, params, body }) =>
  runJob(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id), await body(jobInput)),
);

export const GET = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
