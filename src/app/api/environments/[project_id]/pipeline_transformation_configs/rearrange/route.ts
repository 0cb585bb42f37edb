import { methodNotAllowed, projectRoute } from "@/server/rest/route";
import { rearrangeInput } from "@/server/transformations/contract";
import { rearrangeConfigs } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

/** `PATCH …/pipeline_transformation_configs/rearrange/` with `{"orders": {"<id>": <order>}}`: all or nothing. */
export const PATCH = projectRoute("plugin", async ({ db, project, principal, body }) =>
  rearrangeConfigs(db, { projectId: project.id, userId: principal.user.id }, await body(rearrangeInput)),
);

export const GET = methodNotAllowed;
export const POST = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
