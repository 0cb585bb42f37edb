// Every resource under /api/environments/:project_id/ is declared once in src/server/http/rest/routes.ts.
import { restRouteHandlers } from "@/server/http/rest/next-routes";

export const dynamic = "force-dynamic";

const handlers = restRouteHandlers("environments");
export const GET = handlers.GET;
export const POST = handlers.POST;
export const PATCH = handlers.PATCH;
export const PUT = handlers.PUT;
export const DELETE = handlers.DELETE;
export const OPTIONS = handlers.OPTIONS;
