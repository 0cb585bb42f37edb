/**
 * What posthog-js asks for surveys and early-access features (public SDK endpoints: project
 * key, CORS, on the server's fast path like /decide):
 *
 * - `GET /api/early_access_features/?token=<project key>[&stage=…]` (`getEarlyAccessFeatures`)
 *   → `{"earlyAccessFeatures": [{id, name, description, stage, documentationUrl, flagKey, payload}]}`,
 *   the features of the stages asked for (`beta` when none is);
 * - `GET /api/surveys/?token=<project key>` (`getSurveys`) → `{"surveys": [...], "survey_config": null}`,
 *   every survey not archived (drafts and stopped ones too: posthog-js checks the dates).
 *
 * A missing key or one of no project is PostHog's 401 (`missing_api_key` / `invalid_api_key`);
 * an unknown stage is a 400.
 */
import { z } from "zod";
import { CAPTURE_MISSING_PROJECT_KEY as MISSING_KEY, INVALID_PROJECT_KEY as INVALID_KEY } from "@/server/accounts/contract";
import { getDb, type Database } from "@/server/db";
import { publicStagesSchema } from "@/server/early-access/contract";
import { publicFeatures } from "@/server/early-access/service";
import { ingestionServices } from "@/server/ingestion/service";
import { publicSurveys } from "@/server/surveys/service";
import { corsError, corsHeaders } from "../cors";
import { asRouteHandler, type RawHandler, type RawRequest, type RawResponse } from "../raw";

/** PostHog's `get_token` also reads `api_key`. */
const projectKeyQuery = z.object({
  token: z.string().trim().optional(),
  api_key: z.string().trim().optional(),
});

type ListAnswer = (db: Database, projectId: number, url: URL, request: RawRequest) => Promise<Record<string, unknown> | RawResponse>;

/** A GET endpoint that checks the project key and answers what `answer` builds for the project. */
function productList(answer: ListAnswer): RawHandler {
  return async function handleProductList(request) {
    if (request.method === "OPTIONS") return { status: 200, headers: corsHeaders(request), body: "" };
    if (request.method !== "GET" && request.method !== "HEAD") {
      return corsError(request, 405, "invalid_request", "method_not_allowed", `Method "${request.method}" not allowed.`);
    }
    const url = new URL(request.url, "http://localhost");
    const query = projectKeyQuery.parse({ token: url.searchParams.get("token") ?? undefined, api_key: url.searchParams.get("api_key") ?? undefined });
    const token = query.token || query.api_key;
    if (!token) return corsError(request, 401, "authentication_error", "missing_api_key", MISSING_KEY);
    let body: Record<string, unknown> | RawResponse;
    try {
      const db = await getDb();
      const project = await ingestionServices(db).projects.lookup(token);
      if (!project) return corsError(request, 401, "authentication_error", "invalid_api_key", INVALID_KEY);
      body = await answer(db, project.id, url, request);
    } catch (error) {
      console.error("burrow: a product list could not be read", error);
      return corsError(request, 503, "server_error", "transient_error", "Transient error, please retry.");
    }
    if ("status" in body && "headers" in body) return body as RawResponse;
    return { status: 200, headers: { "content-type": "application/json", ...corsHeaders(request) }, body: JSON.stringify(body) };
  };
}

export const rawEarlyAccessFeatures = productList(async (db, projectId, url, request) => {
  const stages = publicStagesSchema.safeParse(url.searchParams.getAll("stage"));
  if (!stages.success) return corsError(request, 400, "validation_error", "invalid_input", stages.error.issues[0]!.message);
  return { earlyAccessFeatures: await publicFeatures(db, projectId, stages.data) };
});
export const rawSurveys = productList(async (db, projectId) => ({ surveys: await publicSurveys(db, projectId), survey_config: null }));

export const handleEarlyAccessFeatures = asRouteHandler(rawEarlyAccessFeatures);
export const handleSurveys = asRouteHandler(rawSurveys);
