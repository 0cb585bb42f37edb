import { removeCollaborator } from "@/server/collaborators/service";
import { actorOf } from "@/server/dashboards/permissions";
import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string; user_uuid: string };

/** `DELETE …/collaborators/:user_uuid/`: 204. */
export const DELETE = projectRoute<Params>(
  "dashboard",
  async ({ db, principal, project, params }) => {
    await removeCollaborator(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id), params.user_uuid);
    return null;
  },
  { status: 204 },
);

export const GET = methodNotAllowed;
export const POST = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
