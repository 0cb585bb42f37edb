import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";
import { frontendScript } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET …/:id/frontend/`: the config's frontend app as JavaScript (built-ins have none: PostHog's stub). */
export const GET = projectRoute<Params>("plugin", async ({ db, project, params }) => {
  const script = await frontendScript(db, project.id, pathId(params.id));
  return new Response(script, { status: 200, headers: { "content-type": "application/javascript" } });
});

export const POST = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
