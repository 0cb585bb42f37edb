import { actorOf } from "@/server/dashboards/permissions";
import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";
import { refreshDashboardSharing } from "@/server/sharing/service";

export const dynamic = "force-dynamic";

/** `POST …/dashboards/:id/sharing/refresh/`: a new access token; the old link stops working at once. */
export const POST = projectRoute<{ project_id: string; id: string }>("sharing_configuration", async ({ db, principal, project, params }) =>
  refreshDashboardSharing(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id)),
);

export const GET = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
