import { actorOf } from "@/server/access/service";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import { sharingUpdateBody } from "@/server/sharing/contract";
import { getDashboardSharing, refreshDashboardSharing, updateDashboardSharing } from "@/server/sharing/service";

type Params = { project_id: string; id: string };

export const sharingRoutes: RestResource[] = [
  {
    path: "dashboards/:id/sharing",
    methods: {
      /** The configuration in force, created disabled on first read. */
      GET: projectRoute<Params>("sharing_configuration", async ({ db, principal, project, params }) =>
        getDashboardSharing(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id)),
      ),
      /** `{enabled}`: turns the public link on or off. */
      PATCH: projectRoute<Params>("sharing_configuration", async ({ db, principal, project, params, body }) => {
        const dashboardId = pathId(params.id);
        return updateDashboardSharing(db.prisma, project.id, actorOf(principal.user, project), dashboardId, await body(sharingUpdateBody));
      }),
    },
  },
  {
    path: "dashboards/:id/sharing/refresh",
    methods: {
      /** A new access token; the old link stops working at once. */
      POST: projectRoute<Params>("sharing_configuration", async ({ db, principal, project, params }) =>
        refreshDashboardSharing(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id)),
      ),
    },
  },
];
