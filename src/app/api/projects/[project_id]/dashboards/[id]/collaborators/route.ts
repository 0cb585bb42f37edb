import { addCollaboratorBody } from "@/server/collaborators/contract";
import { addCollaborator, listCollaborators } from "@/server/collaborators/service";
import { actorOf } from "@/server/dashboards/permissions";
import { methodNotAllowed, pathId, projectRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

type Params = { project_id: string; id: string };

/** `GET …/dashboards/:id/collaborators/`: a bare JSON array, as PostHog answers. */
export const GET = projectRoute<Params>("dashboard", async ({ db, principal, project, params }) =>
  listCollaborators(db.prisma, project.id, actorOf(principal.user, project), pathId(params.id)),
);

/** `POST …/collaborators/` `{user_uuid, level: 37}`: 201 with the collaborator. */
export const POST = projectRoute<Params>(
  "dashboard",
  async ({ db, principal, project, params, body }) => {
    const dashboardId = pathId(params.id);
    return addCollaborator(db.prisma, project.id, actorOf(principal.user, project), dashboardId, await body(addCollaboratorBody));
  },
  { status: 201 },
);

export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
