import { updateFlagInput } from "@/server/flags/schemas";
import { getFlag, updateFlag } from "@/server/flags/service";
import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET /api/projects/:project_id/feature_flags/:id/`: one flag (deleted ones too, with `deleted: true`). */
export const GET = projectRoute<Params>("feature_flag", async ({ db, project, params }) => getFlag(db, project.id, pathId(params.id)));

/** `PATCH …/:id/`: change fields; `{"deleted": true}` is the soft delete. PUT takes the same body. */
export const PATCH = projectRoute<Params>("feature_flag", async ({ db, project, principal, params, body }) =>
  updateFlag(db, project.id, { userId: principal.user.id }, pathId(params.id), await body(updateFlagInput)),
);
export const PUT = PATCH;

/** PostHog forbids hard deletes of flags (ForbidDestroyModel): 405 with no body, after the usual checks. */
export const DELETE = projectRoute<Params>("feature_flag", async ({ db, project, params }) => {
  await getFlag(db, project.id, pathId(params.id));
  return new Response(null, { status: 405 });
});

export const POST = methodNotAllowed;
