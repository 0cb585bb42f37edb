/**
 * `GET /api/(projects|environments)/:project_id/feature_flags/:id_or_key/remote_config?token=`:
 * a flag's payload for server SDKs (posthog-node's and posthog-python's
 * `getRemoteConfigPayload(key)`), as PostHog's `remote_config` action answers it: the payload
 * of the `"true"` value, JSON-encoded once more (the stored JSON text as a JSON string, which
 * the SDKs parse again), or `null` when there is none — so a multivariate flag, whose payloads
 * are per variant, answers `null`, as in PostHog.
 *
 * Differences from PostHog, where Burrow has less: there is no "remote configuration" flag
 * type, so every live flag answers (inactive ones too: PostHog does not look at `active`
 * either); deleted flags are 404.
 *
 * Credentials: the project's secret key (`phs_…`), or a personal API key (or the browser
 * session) with `feature_flag:read` on the project. posthog-node always asks for `@current`
 * and names the project with `token`, so for `@current` the token's project is the one (the
 * key's project rules apply to it); a numeric project id must be the token's.
 */
import { z } from "zod";
import { requireScopeOf } from "@/server/auth/service";
import { getDb, type Database } from "@/server/db";
import { AppError } from "@/server/errors";
import { remoteConfigPayload } from "@/server/flags/service";
import { refuseNul } from "@/server/input/nul";
import { authenticate, type Principal } from "../rest/principal";
import { resolveProject } from "../rest/project";
import { checkApiRateLimit } from "../rest/rate-limit";
import { json, toErrorResponse } from "../rest/respond";
import { projectIdOfToken, projectOfSecretKey } from "./flag-keys";

/** `token`: the project API key naming the project (posthog-node asks for `@current`). */
export const remoteConfigQuery = z.object({ token: z.string().trim().max(200).optional() });

/** The project a personal key or session asks about (see the module comment), with its scope checked. */
async function projectForPrincipal(db: Database, principal: Principal, pathProject: string, token: string | undefined): Promise<number> {
  requireScopeOf(principal.scopes, "feature_flag:read");
  let wanted = pathProject;
  if (token) {
    const projectId = await projectIdOfToken(db, token);
    if (pathProject !== "@current" && pathProject !== String(projectId)) {
      throw new AppError("invalid_input", `The project API key is not project ${pathProject}'s.`, "token");
    }
    wanted = String(projectId);
  }
  return (await resolveProject(db.prisma, principal, wanted)).id;
}

/** The project a secret key opens: its own, which the path must name (or `@current`). */
async function projectForSecretKey(db: Database, secret: string, pathProject: string, token: string | undefined): Promise<number> {
  const projectId = await projectOfSecretKey(db, secret, token ?? null);
  if (pathProject !== "@current" && pathProject !== String(projectId)) {
    throw new AppError("permission_denied", "The secret API key does not belong to this project.");
  }
  return projectId;
}

type Params = { project_id: string; id: string };

/** The route handler (GET) for both path prefixes. */
export async function handleRemoteConfigPayload(request: Request, context: { params: Promise<Params> }): Promise<Response> {
  try {
    const params = await context.params;
    const url = new URL(request.url);
    const { token } = remoteConfigQuery.parse({ token: url.searchParams.get("token") ?? undefined });
    // Before either kind of key looks at it: a NUL is a 400 on both paths.
    refuseNul({ token });
    const db = await getDb();
    const secret = /^Bearer\s+(phs_\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    let projectId: number;
    if (secret) {
      projectId = await projectForSecretKey(db, secret, params.project_id, token || undefined);
    } else {
      const principal = await authenticate(db.prisma, request);
      checkApiRateLimit(principal);
      projectId = await projectForPrincipal(db, principal, params.project_id, token || undefined);
    }
    return json(await remoteConfigPayload(db, projectId, params.id));
  } catch (error) {
    return toErrorResponse(error);
  }
}
