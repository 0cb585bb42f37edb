import { actorOf } from "@/server/dashboards/permissions";
import { insightRetrieveQuery, insightUpdateBody } from "@/server/insights/contract";
import { getInsight, updateInsight } from "@/server/insights/service";
import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET …/insights/:id/`: the insight with `result`, `last_refresh`, `is_cached`; `?refresh=true` recomputes, `from_dashboard`, `filters_override`. */
export const GET = projectRoute<Params>("insight", async ({ db, project, params, query }) => {
  const options = query(insightRetrieveQuery);
  return getInsight(db, project.id, pathId(params.id), {
    refresh: options.refresh,
    fromDashboard: options.from_dashboard,
    filtersOverride: options.filters_override ?? null,
  });
});

/** `PATCH …/insights/:id/`: update; `deleted: true` soft-deletes, `deleted: false` restores. */
export const PATCH = projectRoute<Params>("insight", async ({ db, principal, project, params, body }) =>
  updateInsight(db, project.id, actorOf(principal.user, project), pathId(params.id), await body(insightUpdateBody)),
);

/** DRF's PUT with no required fields is a PATCH. */
export const PUT = PATCH;

/** PostHog forbids hard deletes: 405 with an empty body, after the usual key and scope checks. */
export const DELETE = projectRoute<Params>("insight", async () => new Response(null, { status: 405 }));

export const POST = methodNotAllowed;
