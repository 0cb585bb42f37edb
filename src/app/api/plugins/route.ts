import { hasScope } from "@/server/auth/service";
import { AppError } from "@/server/errors";
import { methodNotAllowed, userRoute } from "@/server/http/rest/route";
import { listPlugins } from "@/server/transformations/service";

export const dynamic = "force-dynamic";

/** `GET /api/plugins/` (scope plugin:read): the built-in transformation plugins, with their config forms. */
export const GET = userRoute(async ({ ctx, principal }) => {
  if (!hasScope(principal.scopes, "plugin:read")) throw new AppError("permission_denied", "API key missing required scope 'plugin:read'");
  const results = await listPlugins(ctx);
  return { count: results.length, next: null, previous: null, results };
});

export const POST = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const PUT = methodNotAllowed;
export const DELETE = methodNotAllowed;
