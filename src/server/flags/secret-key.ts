import { timingSafeEqual } from "node:crypto";
import { hashSecret } from "@/server/auth/service";
import type { Database } from "@/server/db";
import { AppError } from "@/server/errors";

/**
 * The project whose secret key (`phs_…`, "feature flags secure API key") this is, and whose
 * public key is `token` when one is given. Server SDKs present it for local evaluation and
 * remote config payloads instead of a personal key.
 */
export async function projectOfSecretKey(db: Database, secret: string, token: string | null): Promise<number> {
  const hash = hashSecret(secret);
  const project = await db.prisma.project.findUnique({ where: { secretApiTokenHash: hash }, select: { id: true, apiToken: true, secretApiTokenHash: true } });
  const same = project?.secretApiTokenHash && timingSafeEqual(Buffer.from(project.secretApiTokenHash), Buffer.from(hash));
  if (!project || !same) throw new AppError("authentication_failed", "Project secret API key is invalid.");
  if (token && token !== project.apiToken) throw new AppError("permission_denied", "The secret API key does not belong to this project.");
  return project.id;
}
