import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";
import { sharingConfigurationSchema, sharingUpdateBody } from "@/server/sharing/contract";
import { getDashboardSharing, refreshDashboardSharing, updateDashboardSharing } from "@/server/sharing/service";

type Params = { project_id: string; id: string };

export const sharingRoutes: RestResource[] = [
  {
    path: "dashboards/:id/sharing",
    methods: {
      GET: projectRoute<Params>("sharing_configuration", async ({ ctx, params }) => getDashboardSharing(ctx, pathId(params.id)), {
        doc: { summary: "Retrieve a dashboard's sharing", description: "The configuration in force, created disabled on first read.", response: sharingConfigurationSchema },
      }),
      PATCH: projectRoute<Params>(
        "sharing_configuration",
        async ({ ctx, params, body }) => {
          const dashboardId = pathId(params.id);
          return updateDashboardSharing(ctx, dashboardId, await body(sharingUpdateBody));
        },
        {
          doc: {
            summary: "Turn a dashboard's public link on or off",
            description: "`{\"enabled\": true}` makes the dashboard readable by anyone with `/shared/<access_token>`; `false` closes the link.",
            body: sharingUpdateBody,
            response: sharingConfigurationSchema,
          },
        },
      ),
    },
  },
  {
    path: "dashboards/:id/sharing/refresh",
    methods: {
      POST: projectRoute<Params>("sharing_configuration", async ({ ctx, params }) => refreshDashboardSharing(ctx, pathId(params.id)), {
        doc: { summary: "Issue a new access token", description: "The old link stops working at once (rotation is how an owner revokes a leaked link).", response: sharingConfigurationSchema },
      }),
    },
  },
];
