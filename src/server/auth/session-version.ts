import type { PrismaClient } from "@/server/db/client";

/**
 * Sessions are next-auth JWT cookies, valid for 14 days by their signature alone. To end
 * them early, each user has a session version: the JWT carries the version at sign-in
 * (claim `sv`), the session check compares it with the user's row (read on every request
 * anyway, for `isActive`), and sign-out or a password change bumps it. Bumping ends every
 * session of that user on every node at once, since the check reads the database.
 */
export const SESSION_VERSION_CLAIM = "sv";

/** The version a decoded session token was issued at; tokens from before versions count as 0. */
export function tokenSessionVersion(payload: Record<string, unknown> | null | undefined): number {
  const value = payload?.[SESSION_VERSION_CLAIM];
  return typeof value === "number" && Number.isInteger(value) ? value : 0;
}

/**
 * Ends the user's sessions issued at `issuedAt` and before. Only if that version is still
 * current: a cookie that is already dead must not sign the user out elsewhere. Returns
 * whether sessions were ended.
 */
export async function endSessions(prisma: PrismaClient, userId: number, issuedAt: number): Promise<boolean> {
  const { count } = await prisma.user.updateMany({
    where: { id: userId, sessionVersion: issuedAt },
    data: { sessionVersion: { increment: 1 } },
  });
  return count === 1;
}
