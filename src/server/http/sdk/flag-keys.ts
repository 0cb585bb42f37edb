/**
 * The keys server SDKs present for local evaluation and remote config payloads, beside or
 * instead of a personal API key: the project's public key (`?token=phc_…`) and its secret
 * key (`Authorization: Bearer phs_…`, "feature flags secure API key").
 */
import { timingSafeEqual } from "node:crypto";
import { INVALID_PROJECT_KEY } from "@/server/accounts/contract";
import { hashSecret } from "@/server/auth/service";
import type { Database } from "@/server/db";
import { AppError } from "@/server/errors";
import { projectBySecretKeyHash, projectIdByToken } from "@/server/flags/service";
import { refuseNul } from "@/server/input/nul";

/**
 * The project whose public key (`phc_…`) a server SDK names with `?token=` beside a personal
 * key (local evaluation, remote config payloads), or a 401. A NUL is a 400 before the lookup,
 * which would fail the query (a 500).
 */
export async function projectIdOfToken(db: Database, token: string): Promise<number> {
  refuseNul({ token });
  const projectId = await projectIdByToken(db, token);
  if (projectId === null) throw new AppError("authentication_failed", INVALID_PROJECT_KEY);
  return projectId;
}

/**
 * The project whose secret key (`phs_…`) this is, and whose public key is `token` when one
 * is given. Server SDKs present it for local evaluation and remote config payloads instead
 * of a personal key.
 */
export async function projectOfSecretKey(db: Database, secret: string, token: string | null): Promise<number> {
  const hash = hashSecret(secret);
  const project = await projectBySecretKeyHash(db, hash);
  const same = project?.secretApiTokenHash && timingSafeEqual(Buffer.from(project.secretApiTokenHash), Buffer.from(hash));
  if (!project || !same) throw new AppError("authentication_failed", "Project secret API key is invalid.");
  if (token && token !== project.apiToken) throw new AppError("permission_denied", "The secret API key does not belong to this project.");
  return project.id;
}
