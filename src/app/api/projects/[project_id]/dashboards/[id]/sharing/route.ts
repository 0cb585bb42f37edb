import { actorOf } from "@/server/dashboards/permissions";
import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";
import { sharingUpdateBody } from "@/server/sharing/contract";
import { getDashboardSharing, updateDashboardSharing } from "@/server/sharing/service";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET …/dashboards/:id/sharing/`: the configuration in force, created disabled on first read. */
export const GET = projectRoute<Params>("sharing_configuration", async ({ db, principal, project, params }) =>
  getDashboardSharing(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id)),
);

/** `PATCH …/sharing/` `{enabled}`: turns the public link on or off. */
export const PATCH = projectRoute<Params>("sharing_configuration", async ({ db, principal, project, params, body }) => {
  const dashboardId = pathId(params.id);
  return updateDashboardSharing(db.prisma, project.id, actorOf(principal.user, project), dashboardId, await body(sharingUpdateBody));
});

export const POST = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
