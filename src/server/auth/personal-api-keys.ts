import { timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "@/server/db/client";
import { hashSecret } from "./tokens";

/** Who a personal API key speaks for, and what it may do. */
export interface ApiKeyPrincipal {
  keyId: string;
  user: { id: number; uuid: string; email: string; currentProjectId: number | null };
  scopes: string[];
  /** Projects the key is limited to; empty: every project the user can access. */
  scopedProjects: number[];
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Looks a presented key up by its hash. Returns null for an unknown key or an inactive user.
 * `last_used_at` is written at most once a minute per key, off the request's path.
 */
export async function authenticatePersonalApiKey(
  prisma: PrismaClient,
  presented: string,
  now: Date = new Date(),
): Promise<ApiKeyPrincipal | null> {
  const secureValue = hashSecret(presented);
  const key = await prisma.personalApiKey.findUnique({
    where: { secureValue },
    include: { user: { select: { id: true, uuid: true, email: true, currentProjectId: true, isActive: true } } },
  });
  // The lookup is by hash; comparing again in constant time costs nothing and keeps a
  // future change of the lookup (prefix index, cache) from leaking timing.
  if (!key || !timingSafeEqual(Buffer.from(key.secureValue), Buffer.from(secureValue)) || !key.user.isActive) {
    return null;
  }
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    void prisma.personalApiKey
      .updateMany({
        where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_RESOLUTION_MS) } }] },
        data: { lastUsedAt: now },
      })
      .catch(() => {});
  }
  const { isActive: _active, ...user } = key.user;
  return { keyId: key.id, user, scopes: key.scopes, scopedProjects: key.scopedProjects };
}
