import { listProjectsForUser } from "@/server/accounts/service";
import { pageQuery, pageWindow } from "@/server/input/page";
import { paginate } from "@/server/http/rest/pagination";
import { methodNotAllowed, requireScope, userRoute } from "@/server/http/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/projects/`: the projects the caller can use (scope `project:read`; a key's project limit applies). */
export const GET = userRoute(async (context) => {
  requireScope(context, "project");
  const { request, ctx, principal, query } = context;
  const page = query(pageQuery);
  const projects = (await listProjectsForUser(ctx))
    .flatMap(({ organization, projects }) => projects.map((p) => ({ id: p.id, name: p.name, organization: organization.id })))
    .filter((p) => principal.scopedProjects.length === 0 || principal.scopedProjects.includes(p.id));
  const { take, skip } = pageWindow(page);
  return paginate(request, page, projects.length, projects.slice(skip, skip + take));
});

export const POST = methodNotAllowed;
