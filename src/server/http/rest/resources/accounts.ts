import { meSchema, projectListItemSchema, projectSchema, projectSettingsInput } from "@/server/accounts/contract";
import { getMe, getProjectResource, listProjectsForUser, updateProjectResource } from "@/server/accounts/service";
import { AppError } from "@/server/errors";
import { pageQuery, pageWindow } from "@/server/input/page";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { methodNotAllowed, projectRoute, userRoute, type RouteHandler, type RestResource } from "@/server/http/rest/route";
import { pluginSchema } from "@/server/transformations/contract";
import { listPlugins } from "@/server/transformations/service";

export const projectRoutes: RestResource[] = [
  {
    path: "",
    methods: {
      GET: projectRoute("project", async ({ ctx }) => getProjectResource(ctx), {
        doc: { summary: "Retrieve a project", description: "`:project_id` may be `@current` (the key's or user's current project).", response: projectSchema },
      }),
      PATCH: projectRoute("project", async ({ ctx, body }) => updateProjectResource(ctx, await body(projectSettingsInput)), {
        doc: {
          summary: "Change a project's settings",
          description: "`name`, `timezone` (an IANA name such as `Europe/Berlin`: every query, `/web` and dashboard buckets days in it), `anonymize_ips`, `enrich_events` and the session replay fields (`session_recording_opt_in`, `session_recording_sample_rate`, `session_recording_minimum_duration_milliseconds`, `session_recording_linked_flag`, `session_recording_url_trigger_config`, `session_recording_url_blocklist_config`, `capture_console_log_opt_in`, `session_recording_masking_config`, `session_recording_retention_period`, `session_recording_storage_budget_bytes`; other fields are a 400); organization admins and owners only (403 otherwise). Ingestion reads the new settings within 10 s.",
          body: projectSettingsInput,
          response: projectSchema,
        },
      }),
      PUT: methodNotAllowed,
      DELETE: methodNotAllowed,
    },
    // Served so far with no POST handler at all, which Next answers with an empty 405.
    undefinedMethods: ["POST"],
  },
];

/**
 * The management routes outside any project, each a Next route file under src/app/api/
 * (`path` as there) that serves these handlers.
 */
export const accountRoutes = {
  projects: {
    path: "/api/projects/",
    methods: {
      GET: userRoute(
        async ({ request, ctx, principal, query }) => {
          const page = query(pageQuery);
          const projects = (await listProjectsForUser(ctx))
            .flatMap(({ organization, projects }) => projects.map((p) => ({ id: p.id, name: p.name, organization: organization.id })))
            .filter((p) => principal.scopedProjects.length === 0 || principal.scopedProjects.includes(p.id));
          const { take, skip } = pageWindow(page);
          return paginate(request, page, projects.length, projects.slice(skip, skip + take));
        },
        {
          scope: "project",
          doc: {
            summary: "List projects",
            description: "The projects the caller can use; a key limited to projects sees only those.",
            query: pageQuery,
            response: pageOf(projectListItemSchema, "Project"),
          },
        },
      ),
      POST: methodNotAllowed,
    },
  },
  user: {
    path: "/api/users/{user_id}/",
    methods: {
      GET: userRoute<{ user_id: string }>(
        async ({ params, ctx, principal }) => {
          if (params.user_id !== "@me") throw new AppError("not_found", "Not found.");
          return getMe(ctx, principal.scopedProjects);
        },
        {
          scope: "user",
          doc: {
            summary: "Who the key belongs to",
            description: "`{user_id}` is `@me` (anything else is 404): the key's user, with the organizations and projects it may see (a key limited to projects sees only those, and their organizations).",
            response: meSchema,
          },
        },
      ),
    },
  },
  plugins: {
    path: "/api/plugins/",
    methods: {
      GET: userRoute(async ({ ctx }) => {
        const results = await listPlugins(ctx);
        return { count: results.length, next: null, previous: null, results };
      }, { scope: "plugin", doc: { summary: "List transformation plugins", description: "The built-in plugins, with their config forms (one page).", response: pageOf(pluginSchema, "Plugin") } }),
      POST: methodNotAllowed,
      PATCH: methodNotAllowed,
      PUT: methodNotAllowed,
      DELETE: methodNotAllowed,
    },
  },
} satisfies Record<string, { path: string; methods: Record<string, RouteHandler> }>;
