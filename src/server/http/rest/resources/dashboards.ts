import { dashboardCreateBody, dashboardListQuery, dashboardUpdateBody } from "@/server/dashboards/contract";
import { createDashboard, getDashboard, listDashboards, updateDashboard } from "@/server/dashboards/service";
import { paginate } from "@/server/http/rest/pagination";
import { pathId, projectRoute, type RestResource } from "@/server/http/rest/route";

type Params = { project_id: string; id: string };

/** `dashboards/:id/`: PATCH, and PUT as DRF's PUT with no required fields is a PATCH. */
const updateDashboardRoute = projectRoute<Params>("dashboard", async ({ ctx, params, body }) => updateDashboard(ctx, pathId(params.id), await body(dashboardUpdateBody)));

export const dashboardRoutes: RestResource[] = [
  {
    path: "dashboards",
    methods: {
      /** Pinned first, then by name; `search`, `tags`, `deleted=true`. */
      GET: projectRoute("dashboard", async ({ request, ctx, query }) => {
        const params = query(dashboardListQuery);
        const { count, results } = await listDashboards(ctx, params);
        return paginate(request, params, count, results);
      }),
      /** 201 with the full dashboard. */
      POST: projectRoute("dashboard", async ({ ctx, body }) => createDashboard(ctx, await body(dashboardCreateBody)), { status: 201 }),
    },
  },
  {
    path: "dashboards/:id",
    methods: {
      /** The dashboard with its tiles (404 once deleted). */
      GET: projectRoute<Params>("dashboard", async ({ ctx, params }) => getDashboard(ctx, pathId(params.id))),
      /** `deleted: true` soft-deletes, `deleted: false` restores. */
      PATCH: updateDashboardRoute,
      PUT: updateDashboardRoute,
      /** PostHog forbids hard deletes: 405 with an empty body, after the usual key and scope checks. */
      DELETE: projectRoute<Params>("dashboard", async () => new Response(null, { status: 405 })),
    },
  },
];
