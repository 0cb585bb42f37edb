import { createFlagInput } from "@/server/flags/schemas";
import { createFlag, flagListQuery, listFlags } from "@/server/flags/service";
import { paginate } from "@/server/rest/pagination";
import { methodNotAllowed, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/:project_id/feature_flags/`: the project's live flags, paginated and filtered. */
export const GET = projectRoute("feature_flag", async ({ request, db, project, query }) => {
  const parsed = query(flagListQuery);
  const page = await listFlags(db, project.id, parsed);
  return paginate(request, parsed, page.count, page.results);
});

/** `POST /api/projects/:project_id/feature_flags/`: a new flag (201). */
export const POST = projectRoute(
  "feature_flag",
  async ({ db, project, principal, body }) => createFlag(db, project.id, { userId: principal.user.id }, await body(createFlagInput)),
  { status: 201 },
);

export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
