import { actorOf } from "@/server/dashboards/permissions";
import { insightCreateBody, insightListQuery } from "@/server/insights/contract";
import { createInsight, listInsights } from "@/server/insights/service";
import { paginate } from "@/server/rest/pagination";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/:project_id/insights/`: newest change first; `short_id`, `saved`, `favorited`, `search`. Results only from the cache. */
export const GET = projectRoute("insight", async ({ request, db, project, query }) => {
  const params = query(insightListQuery);
  const { count, results } = await listInsights(db, project.id, params);
  return paginate(request, params, count, results);
});

/** `POST …/insights/`: 201 with the insight and its result. */
export const POST = projectRoute(
  "insight",
  async ({ db, principal, project, body }) => createInsight(db, project.id, actorOf(principal.user, project), await body(insightCreateBody)),
  { status: 201 },
);

export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
