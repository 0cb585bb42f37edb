import { eventValues } from "@/server/events/api";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/:project_id/events/values/?key=…`: a property's values, most frequent first. */
export const GET = projectRoute("query", async ({ request, db, project }) => eventValues(request, db, project.id));

export const POST = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
