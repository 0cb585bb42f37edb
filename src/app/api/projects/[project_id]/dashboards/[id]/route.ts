import { dashboardUpdateBody } from "@/server/dashboards/contract";
import { actorOf } from "@/server/dashboards/permissions";
import { getDashboard, updateDashboard } from "@/server/dashboards/service";
import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET …/dashboards/:id/`: the dashboard with its tiles (404 once deleted). */
export const GET = projectRoute<Params>("dashboard", async ({ db, principal, project, params }) =>
  getDashboard(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id)),
);

/** `PATCH …/dashboards/:id/`: update; `deleted: true` soft-deletes, `deleted: false` restores. */
export const PATCH = projectRoute<Params>("dashboard", async ({ db, principal, project, params, body }) =>
  updateDashboard(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id), await body(dashboardUpdateBody)),
);

/** DRF's PUT with no required fields is a PATCH. */
export const PUT = PATCH;

/** PostHog forbids hard deletes: 405 with an empty body, after the usual key and scope checks. */
export const DELETE = projectRoute<Params>("dashboard", async () => new Response(null, { status: 405 }));

export const POST = methodNotAllowed;
