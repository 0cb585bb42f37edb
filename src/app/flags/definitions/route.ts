// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { asRouteHandler } from "@/server/http/raw";
import { rawFlagDefinitions } from "@/server/http/sdk/local-evaluation";

export const dynamic = "force-dynamic";
export const GET = asRouteHandler(rawFlagDefinitions);
