/**
 * Flag definitions for server-side SDKs' local evaluation:
 *
 * - `GET /flags/definitions?token=<project key>&send_cohorts` (posthog-node 5.x; fast path),
 * - `GET /api/feature_flag/local_evaluation/?token=…` (older SDKs; also `project_id=`, or the
 *   caller's current project).
 *
 * Both take `Authorization: Bearer` with the project's secret key (`phs_…`) or a personal API
 * key with `feature_flag:read` on that project; the older one also a browser session.
 * The body is the cached definitions' JSON with a strong ETag: `If-None-Match` with it
 * answers 304. `/flags/definitions` always sends `cohorts` (as PostHog's flags service);
 * the older route only with `send_cohorts`, and otherwise rewrites a flag that reaches one
 * simple person-property cohort into person conditions (PostHog's local_evaluation).
 */
import { authenticatePersonalApiKey, requireScopeOf } from "@/server/auth/service";
import { getDb, type Database } from "@/server/db";
import { AppError, APP_ERRORS } from "@/server/errors";
import { loadFlagDefinitions } from "@/server/flags/definitions";
import type { RawRequest, RawResponse } from "../raw";
import { sessionPrincipal, sessionUserFromHeaders, type Principal } from "../rest/principal";
import { resolveProject } from "../rest/project";
import { checkApiRateLimit } from "../rest/rate-limit";
import { projectIdOfToken, projectOfSecretKey } from "./flag-keys";

function bearerOf(authorization: string | null): string | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new AppError("authentication_failed", "Authorization header must be 'Bearer <personal API key or project secret key>'.");
  return match[1]!;
}

/** Which project a personal key or session asks about: `token`, else `project_id`, else the current one. */
async function projectForPrincipal(db: Database, principal: Principal, token: string | null, projectId: string | null): Promise<number> {
  requireScopeOf(principal.scopes, "feature_flag:read");
  let raw = projectId ?? "@current";
  if (token) raw = String(await projectIdOfToken(db, token));
  return (await resolveProject(db.prisma, principal, raw)).id;
}

async function personalKeyPrincipal(db: Database, key: string): Promise<Principal> {
  const found = await authenticatePersonalApiKey(db.prisma, key);
  if (!found) throw new AppError("authentication_failed", "Personal API key found in request Authorization header is invalid.");
  return { user: found.user, via: "personal_api_key", scopes: found.scopes, scopedProjects: found.scopedProjects, rateKey: `key:${found.keyId}` };
}

/**
 * The definitions response for a project already authorised: 304 when `If-None-Match`
 * names the current ETag.
 */
export async function definitionsResponse(db: Database, projectId: number, ifNoneMatch: string | null, withCohorts = true): Promise<RawResponse> {
  const definitions = await loadFlagDefinitions(db, projectId);
  const { json, etag } = withCohorts ? definitions : definitions.legacy;
  const headers = { etag, "cache-control": "private, no-cache" };
  const presented = ifNoneMatch?.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (presented?.includes(etag)) return { status: 304, headers, body: null };
  return { status: 200, headers: { "content-type": "application/json", ...headers }, body: json };
}

function errorOf(error: unknown): RawResponse {
  if (error instanceof AppError) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (error.details.retryAfter) headers["retry-after"] = String(error.details.retryAfter);
    return { status: error.status, headers, body: JSON.stringify({ type: APP_ERRORS[error.code].type, code: error.code, detail: error.message, attr: error.attr }) };
  }
  console.error("burrow: flag definitions failed", error);
  return { status: 503, headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "server_error", code: "transient_error", detail: "Transient error, please retry.", attr: null }) };
}

/**
 * The definitions for a request authorised by a secret key, a personal key, or (when
 * `session` resolves one) a browser session.
 */
export async function serveDefinitions(
  request: { header(name: string): string | null; url: string },
  session?: (db: Database) => Promise<Principal | null>,
  cohorts: "always" | "when_asked" = "always",
): Promise<RawResponse> {
  try {
    const url = new URL(request.url, "http://localhost");
    const token = url.searchParams.get("token")?.trim() || null;
    const db = await getDb();
    const bearer = bearerOf(request.header("authorization"));
    let projectId: number;
    if (bearer?.startsWith("phs_")) {
      projectId = await projectOfSecretKey(db, bearer, token);
    } else {
      const principal = bearer ? await personalKeyPrincipal(db, bearer) : await session?.(db);
      if (!principal) throw new AppError("not_authenticated", "Authentication credentials were not provided.");
      checkApiRateLimit(principal);
      projectId = await projectForPrincipal(db, principal, token, url.searchParams.get("project_id"));
    }
    const withCohorts = cohorts === "always" || url.searchParams.has("send_cohorts");
    return await definitionsResponse(db, projectId, request.header("if-none-match"), withCohorts);
  } catch (error) {
    return errorOf(error);
  }
}

/** `GET /flags/definitions` on the fast path (keys only: no session there). */
export async function rawFlagDefinitions(request: RawRequest): Promise<RawResponse> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorOf(new AppError("method_not_allowed", `Method "${request.method}" not allowed.`));
  }
  const url = new URL(request.url, "http://localhost");
  if (!url.searchParams.get("token")) {
    return errorOf(new AppError("authentication_failed", "No project API key provided: pass ?token=<project API key>."));
  }
  return serveDefinitions(request);
}

/** `GET /api/feature_flag/local_evaluation/` as a Next route: keys as above, or the browser session. */
export async function handleLocalEvaluation(request: Request): Promise<Response> {
  const raw = await serveDefinitions({ url: request.url, header: (name) => request.headers.get(name) }, async (db) => {
    const user = await sessionUserFromHeaders(db.prisma, request.headers);
    return user ? sessionPrincipal(user) : null;
  }, "when_asked");
  return new Response(raw.body, { status: raw.status, headers: raw.headers });
}
