import { listEvents } from "@/server/events/api";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/:project_id/events/`: newest first, filtered; JSON pages or CSV (`format=csv`). */
export const GET = projectRoute("query", async ({ request, db, project }) => listEvents(request, db, project.id));

export const POST = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
