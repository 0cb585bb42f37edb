import { z } from "zod";
import { addCollaboratorBody, collaboratorSchema } from "@/server/collaborators/contract";
import { addCollaborator, listCollaborators, removeCollaborator } from "@/server/collaborators/service";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

export const collaboratorRoutes: RestResource[] = [
  {
    path: "dashboards/:id/collaborators",
    methods: {
      GET: projectRoute<Params>("dashboard", async ({ ctx, params }) => listCollaborators(ctx, pathId(params.id)), {
        doc: {
          summary: "List a dashboard's collaborators",
          description: "A bare JSON array, as PostHog answers (not a page).",
          response: z.array(collaboratorSchema).meta({ id: "DashboardCollaboratorList" }),
        },
      }),
      POST: projectRoute<Params>(
        "dashboard",
        async ({ ctx, params, body }) => {
          const dashboardId = pathId(params.id);
          return addCollaborator(ctx, dashboardId, await body(addCollaboratorBody));
        },
        {
          status: 201,
          doc: {
            summary: "Add a collaborator",
            description: "`{user_uuid, level: 37}` (37: can edit, the only level accepted) for a member of the organization, on a dashboard only collaborators may edit; 201 with the collaborator.",
            body: addCollaboratorBody,
            response: collaboratorSchema,
          },
        },
      ),
    },
  },
  {
    path: "dashboards/:id/collaborators/:user_uuid",
    methods: {
      DELETE: projectRoute<Params & { user_uuid: string }>(
        "dashboard",
        async ({ ctx, params }) => {
          await removeCollaborator(ctx, pathId(params.id), params.user_uuid);
          return null;
        },
        { status: 204, doc: { summary: "Remove a collaborator", description: "204 with no body." } },
      ),
    },
  },
];
