import { getMe } from "@/server/accounts/service";
import { AppError } from "@/server/errors";
import { requireScope, userRoute } from "@/server/http/rest/route";

export const dynamic = "force-dynamic";

/**
 * `GET /api/users/@me/`: whom the presented key belongs to (scope `user:read`, as PostHog's
 * UserViewSet). A key limited to projects sees only those, and their organizations.
 */
export const GET = userRoute<{ user_id: string }>(async (context) => {
  requireScope(context, "user");
  const { params, ctx, principal } = context;
  if (params.user_id !== "@me") throw new AppError("not_found", "Not found.");
  return getMe(ctx, principal.scopedProjects);
});
