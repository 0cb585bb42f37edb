import { dashboardCreateBody, dashboardListItemSchema, dashboardListQuery, dashboardSchema, dashboardUpdateBody } from "@/server/dashboards/contract";
import { createDashboard, getDashboard, listDashboards, updateDashboard } from "@/server/dashboards/service";
import { pageOf } from "@/server/http/openapi/shapes";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** `dashboards/:id/`: PATCH, and PUT as DRF's PUT with no required fields is a PATCH. */
const updateDashboardRoute = (method: "PATCH" | "PUT") =>
  projectRoute<Params>("dashboard", async ({ ctx, params, body }) => updateDashboard(ctx, pathId(params.id), await body(dashboardUpdateBody)), {
    doc: {
      summary: method === "PATCH" ? "Update a dashboard" : "Update a dashboard (PUT: same partial update)",
      description: "Any writable field; `deleted: true` soft-deletes (the dashboard leaves lists and retrieves as 404), `deleted: false` restores. `tiles` adds, moves or removes tiles.",
      body: dashboardUpdateBody,
      response: dashboardSchema,
    },
  });

export const dashboardRoutes: RestResource[] = [
  {
    path: "dashboards",
    methods: {
      GET: projectRoute(
        "dashboard",
        async ({ request, ctx, query }) => {
          const params = query(dashboardListQuery);
          const { count, results } = await listDashboards(ctx, params);
          return paginate(request, params, count, results);
        },
        {
          doc: {
            summary: "List dashboards",
            description: "Pinned first, then by name. `search` matches the name or description (any case), `tags` (repeatable) keeps dashboards with all of them, `deleted=true` lists the soft-deleted ones.",
            query: dashboardListQuery,
            response: pageOf(dashboardListItemSchema, "DashboardBasic"),
          },
        },
      ),
      POST: projectRoute("dashboard", async ({ ctx, body }) => createDashboard(ctx, await body(dashboardCreateBody)), {
        status: 201,
        doc: {
          summary: "Create a dashboard",
          description: "201 with the full dashboard. `use_template` seeds it from a template, `use_dashboard` duplicates another dashboard of the project.",
          body: dashboardCreateBody,
          response: dashboardSchema,
        },
      }),
    },
  },
  {
    path: "dashboards/:id",
    methods: {
      GET: projectRoute<Params>("dashboard", async ({ ctx, params }) => getDashboard(ctx, pathId(params.id)), {
        doc: { summary: "Retrieve a dashboard", description: "The dashboard with its tiles in display order (404 once deleted).", response: dashboardSchema },
      }),
      PATCH: updateDashboardRoute("PATCH"),
      PUT: updateDashboardRoute("PUT"),
      /** PostHog forbids hard deletes: 405 with an empty body, after the usual key and scope checks. */
      DELETE: projectRoute<Params>("dashboard", async () => new Response(null, { status: 405 }), {
        status: 405,
        doc: { summary: "Delete a dashboard (not allowed)", description: "PostHog forbids hard deletes: 405 with an empty body, after the key and scope checks. Soft-delete with `PATCH {\"deleted\": true}`." },
      }),
    },
  },
];
