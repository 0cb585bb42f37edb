import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";
import { activityQuery } from "@/server/transformations/contract";
import { configActivity } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET …/:id/activity/?limit=10&page=1`: the config's change history and its run statistics. */
export const GET = projectRoute<Params>("plugin", async ({ request, db, project, params, query }) =>
  configActivity(db, project.id, pathId(params.id), query(activityQuery), new URL(request.url)),
);

export const POST = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
