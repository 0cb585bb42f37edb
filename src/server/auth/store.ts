/** All of auth's database access: credentials, sessions' user rows, personal API keys. */
import type { DbClient } from "@/server/db/transaction";

/** A user by (normalised) e-mail, with the password hash: for checking a sign-in. */
export function findUserByEmail(db: DbClient, email: string) {
  return db.user.findUnique({ where: { email } });
}

export function recordLogin(db: DbClient, userId: number, at: Date) {
  return db.user.update({ where: { id: userId }, data: { lastLoginAt: at } });
}

/** What a session check reads of its user on every request. */
export function findSessionUser(db: DbClient, userId: number) {
  return db.user.findUnique({
    where: { id: userId },
    select: { id: true, uuid: true, email: true, firstName: true, currentProjectId: true, isActive: true, sessionVersion: true },
  });
}

/** Bumps the user's session version if it is still `current`; the number of rows changed (0 or 1). */
export async function bumpSessionVersion(db: DbClient, userId: number, current: number): Promise<number> {
  const { count } = await db.user.updateMany({
    where: { id: userId, sessionVersion: current },
    data: { sessionVersion: { increment: 1 } },
  });
  return count;
}

export function findPersonalApiKey(db: DbClient, secureValue: string) {
  return db.personalApiKey.findUnique({
    where: { secureValue },
    include: { user: { select: { id: true, uuid: true, email: true, currentProjectId: true, isActive: true } } },
  });
}

/** Sets `last_used_at` unless another request set it less than `resolutionMs` ago. */
export function touchPersonalApiKey(db: DbClient, keyId: string, now: Date, resolutionMs: number) {
  return db.personalApiKey.updateMany({
    where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - resolutionMs) } }] },
    data: { lastUsedAt: now },
  });
}
