import { paginate, pageQuery, pageWindow } from "@/server/rest/pagination";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";
import { createConfigInput } from "@/server/transformations/contract";
import { createConfig, listConfigs } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

/** `GET /api/environments/:project_id/pipeline_transformation_configs/`: the project's configs by `order`, paginated. */
export const GET = projectRoute("plugin", async ({ request, db, project, query }) => {
  const page = query(pageQuery);
  const { count, results } = await listConfigs(db, project.id, pageWindow(page));
  return paginate(request, page, count, results);
});

/** `POST …/pipeline_transformation_configs/`: a new config of a built-in plugin (201). */
export const POST = projectRoute(
  "plugin",
  async ({ db, project, principal, body }) => createConfig(db, { projectId: project.id, userId: principal.user.id }, await body(createConfigInput)),
  { status: 201 },
);

export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
