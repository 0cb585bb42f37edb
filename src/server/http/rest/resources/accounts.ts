import { projectSettingsInput } from "@/server/accounts/contract";
import { getProjectResource, updateProjectResource } from "@/server/accounts/service";
import { methodNotAllowed, projectRoute, type RestResource } from "@/server/http/rest/route";

export const projectRoutes: RestResource[] = [
  {
    path: "",
    methods: {
      /** `GET /api/projects/:project_id/` (also `@current`). */
      GET: projectRoute("project", async ({ ctx }) => getProjectResource(ctx)),
      /** Settings (name, anonymize_ips, enrich_events); PostHog's PATCH of a project. */
      PATCH: projectRoute("project", async ({ ctx, body }) => updateProjectResource(ctx, await body(projectSettingsInput))),
      PUT: methodNotAllowed,
      DELETE: methodNotAllowed,
    },
    // Served so far with no POST handler at all, which Next answers with an empty 405.
    undefinedMethods: ["POST"],
  },
];
