import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";
import { updateConfigInput } from "@/server/transformations/contract";
import { deleteConfig, getConfig, updateConfig } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET …/pipeline_transformation_configs/:id/`. */
export const GET = projectRoute<Params>("plugin", async ({ db, project, params }) => getConfig(db, project.id, pathId(params.id)));

/** `PATCH …/:id/`: any writable field; `config` merges into the stored one. */
export const PATCH = projectRoute<Params>("plugin", async ({ db, project, principal, params, body }) =>
  updateConfig(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id), await body(updateConfigInput)),
);

/** `DELETE …/:id/`: 204; the config is disabled, marked deleted and leaves lists and the chain. */
export const DELETE = projectRoute<Params>(
  "plugin",
  async ({ db, project, principal, params }) => {
    await deleteConfig(db, { projectId: project.id, userId: principal.user.id }, pathId(params.id));
    return null;
  },
  { status: 204 },
);

export const POST = methodNotAllowed;
export const PUT = methodNotAllowed;
