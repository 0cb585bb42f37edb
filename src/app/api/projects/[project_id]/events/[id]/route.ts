import { retrieveEvent } from "@/server/events/api";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/:project_id/events/:id/`: one event by uuid. */
export const GET = projectRoute<{ project_id: string; id: string }>("query", async ({ request, db, project, params }) =>
  retrieveEvent(request, db, project.id, params.id),
);

export const POST = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
