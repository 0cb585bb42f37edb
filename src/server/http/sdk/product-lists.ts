/**
 * What posthog-js asks for products Burrow does not have yet, answered as PostHog answers a
 * project that has none:
 *
 * - `GET /api/early_access_features/?token=<project key>[&stage=…]` (`getEarlyAccessFeatures`,
 *   which never calls back when the answer is not JSON) → `{"earlyAccessFeatures": []}`;
 * - `GET /api/surveys/?token=<project key>` (`getSurveys`) → `{"surveys": [], "survey_config": null}`.
 *
 * Public SDK endpoints (project key, CORS), on the server's fast path like /decide. A missing
 * key or one of no project is PostHog's 401 (`missing_api_key` / `invalid_api_key`).
 */
import { z } from "zod";
import { CAPTURE_MISSING_PROJECT_KEY as MISSING_KEY, INVALID_PROJECT_KEY as INVALID_KEY } from "@/server/accounts/contract";
import { getDb } from "@/server/db";
import { ingestionServices } from "@/server/ingestion/service";
import { corsError, corsHeaders } from "../cors";
import { asRouteHandler, type RawHandler } from "../raw";


/** PostHog's `get_token` also reads `api_key`; the other parameters (`stage`, `_`) change nothing in an empty list. */
const projectKeyQuery = z.object({
  token: z.string().trim().optional(),
  api_key: z.string().trim().optional(),
});

/** A GET endpoint that checks the project key and answers `emptyAnswer`. */
function emptyProductList(emptyAnswer: Record<string, unknown>): RawHandler {
  const body = JSON.stringify(emptyAnswer);
  return async function handleProductList(request) {
    if (request.method === "OPTIONS") return { status: 200, headers: corsHeaders(request), body: "" };
    if (request.method !== "GET" && request.method !== "HEAD") {
      return corsError(request, 405, "invalid_request", "method_not_allowed", `Method "${request.method}" not allowed.`);
    }
    const url = new URL(request.url, "http://localhost");
    const query = projectKeyQuery.parse({ token: url.searchParams.get("token") ?? undefined, api_key: url.searchParams.get("api_key") ?? undefined });
    const token = query.token || query.api_key;
    if (!token) return corsError(request, 401, "authentication_error", "missing_api_key", MISSING_KEY);
    let known: boolean;
    try {
      known = (await ingestionServices(await getDb()).projects.lookup(token)) !== null;
    } catch (error) {
      console.error("burrow: project key could not be checked", error);
      return corsError(request, 503, "server_error", "transient_error", "Transient error, please retry.");
    }
    if (!known) return corsError(request, 401, "authentication_error", "invalid_api_key", INVALID_KEY);
    return { status: 200, headers: { "content-type": "application/json", ...corsHeaders(request) }, body };
  };
}

export const rawEarlyAccessFeatures = emptyProductList({ earlyAccessFeatures: [] });
export const rawSurveys = emptyProductList({ surveys: [], survey_config: null });

export const handleEarlyAccessFeatures = asRouteHandler(rawEarlyAccessFeatures);
export const handleSurveys = asRouteHandler(rawSurveys);
