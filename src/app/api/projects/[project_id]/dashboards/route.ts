import { dashboardCreateBody } from "@/server/dashboards/contract";
import { dashboardListQuery } from "@/server/dashboards/list-query";
import { actorOf } from "@/server/dashboards/permissions";
import { createDashboard, listDashboards } from "@/server/dashboards/service";
import { paginate } from "@/server/rest/pagination";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/:project_id/dashboards/`: pinned first, then by name; `search`, `tags`, `deleted=true`. */
export const GET = projectRoute("dashboard", async ({ request, db, principal, project, query }) => {
  const params = query(dashboardListQuery);
  const { count, results } = await listDashboards(db.prisma, project.id, actorOf(principal.user, project), params);
  return paginate(request, params, count, results);
});

/** `POST …/dashboards/`: 201 with the full dashboard. */
export const POST = projectRoute(
  "dashboard",
  async ({ db, principal, project, body }) => createDashboard(db.prisma, project.id, actorOf(principal.user, project), await body(dashboardCreateBody)),
  { status: 201 },
);

export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
