// `npm start` answers /_health on its fast path; this route serves it under `next dev`.
import { handleHealth } from "@/server/http/health";
import { asRouteHandler } from "@/server/http/raw";

export const GET = asRouteHandler(handleHealth);
export const dynamic = "force-dynamic";
