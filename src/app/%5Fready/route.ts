// `npm start` answers /_ready on its fast path; this route serves it under `next dev`.
import { handleReady } from "@/server/http/health";
import { asRouteHandler } from "@/server/http/raw";

export const GET = asRouteHandler(handleReady);
export const dynamic = "force-dynamic";
