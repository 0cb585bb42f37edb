import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import { sharingUpdateBody } from "@/server/sharing/contract";
import { getDashboardSharing, refreshDashboardSharing, updateDashboardSharing } from "@/server/sharing/service";

type Params = { project_id: string; id: string };

export const sharingRoutes: RestResource[] = [
  {
    path: "dashboards/:id/sharing",
    methods: {
      /** The configuration in force, created disabled on first read. */
      GET: projectRoute<Params>("sharing_configuration", async ({ ctx, params }) => getDashboardSharing(ctx, pathId(params.id))),
      /** `{enabled}`: turns the public link on or off. */
      PATCH: projectRoute<Params>("sharing_configuration", async ({ ctx, params, body }) => {
        const dashboardId = pathId(params.id);
        return updateDashboardSharing(ctx, dashboardId, await body(sharingUpdateBody));
      }),
    },
  },
  {
    path: "dashboards/:id/sharing/refresh",
    methods: {
      /** A new access token; the old link stops working at once. */
      POST: projectRoute<Params>("sharing_configuration", async ({ ctx, params }) => refreshDashboardSharing(ctx, pathId(params.id))),
    },
  },
];
