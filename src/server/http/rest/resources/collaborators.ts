import { addCollaboratorBody } from "@/server/collaborators/contract";
import { addCollaborator, listCollaborators, removeCollaborator } from "@/server/collaborators/service";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

export const collaboratorRoutes: RestResource[] = [
  {
    path: "dashboards/:id/collaborators",
    methods: {
      /** A bare JSON array, as PostHog answers. */
      GET: projectRoute<Params>("dashboard", async ({ ctx, params }) => listCollaborators(ctx, pathId(params.id))),
      /** `{user_uuid, level: 37}`: 201 with the collaborator. */
      POST: projectRoute<Params>(
        "dashboard",
        async ({ ctx, params, body }) => {
          const dashboardId = pathId(params.id);
          return addCollaborator(ctx, dashboardId, await body(addCollaboratorBody));
        },
        { status: 201 },
      ),
    },
  },
  {
    path: "dashboards/:id/collaborators/:user_uuid",
    methods: {
      /** 204. */
      DELETE: projectRoute<Params & { user_uuid: string }>(
        "dashboard",
        async ({ ctx, params }) => {
          await removeCollaborator(ctx, pathId(params.id), params.user_uuid);
          return null;
        },
        { status: 204 },
      ),
    },
  },
];
