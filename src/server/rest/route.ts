import type { ApiKeyPrincipal } from "@/server/auth/personal-api-keys";
import { getDb, type Database } from "@/server/db";
import { requireApiKey } from "./auth";
import { json, toErrorResponse } from "./respond";

export interface ApiContext<Params> {
  request: Request;
  params: Params;
  db: Database;
  principal: ApiKeyPrincipal;
}

type RouteContext<Params> = { params: Promise<Params> };

/**
 * A management route handler: authenticates the personal API key, then runs `handler`.
 * A returned value is sent as JSON 200; a Response is sent as is; thrown errors become
 * the documented error body.
 */
export function withApiKey<Params = Record<string, never>>(
  handler: (context: ApiContext<Params>) => Promise<Response | object>,
) {
  return async (request: Request, route: RouteContext<Params>): Promise<Response> => {
    try {
      const db = await getDb();
      const principal = await requireApiKey(db.prisma, request);
      const result = await handler({ request, params: await route.params, db, principal });
      return result instanceof Response ? result : json(result);
    } catch (error) {
      return toErrorResponse(error);
    }
  };
}
