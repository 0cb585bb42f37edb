/**
 * Auth's rules: passwords and sign-in, sessions and their versions, personal API keys, and
 * scopes. Other domains (accounts) and the edge (principal.ts, tRPC, next-auth) use auth
 * through this file and contract.ts only.
 */
import { timingSafeEqual } from "node:crypto";
import { decode } from "next-auth/jwt";
import type { DbClient } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { SESSION_VERSION_CLAIM, type ApiKeyPrincipal, type ScopeObject, type SessionUser } from "./contract";
import { verifyPassword } from "./passwords";
import { authSecret } from "./secret";
import * as store from "./store";
import type { SignInThrottle } from "./throttle";
import { hashSecret } from "./tokens";

export { hashPassword } from "./passwords";
export { authSecret } from "./secret";
export { SignInThrottle, signInThrottle, throttledError, type AttemptSlot } from "./throttle";
export { hashSecret, maskSecret, newPersonalApiKey, newProjectApiKey, newProjectSecretKey } from "./tokens";

/** Whether a key's scopes allow `needed`; write implies read. */
export function hasScope(scopes: readonly string[], needed: `${ScopeObject}:${"read" | "write"}`): boolean {
  if (scopes.includes("*") || scopes.includes(needed)) return true;
  const [object, access] = needed.split(":");
  return access === "read" && scopes.includes(`${object}:write`);
}

/** PostHog's 403 unless a key's scopes allow `needed`. */
export function requireScopeOf(scopes: readonly string[], needed: `${ScopeObject}:${"read" | "write"}`): void {
  if (!hasScope(scopes, needed)) throw new AppError("permission_denied", `API key missing required scope '${needed}'`);
}

/**
 * Checks an e-mail and password through the throttle. Returns the active user, or null
 * for a wrong pair (counted as a failure); throws a `throttled` AppError while the address
 * is locked out or has five attempts pending.
 */
export async function checkPassword(
  prisma: DbClient,
  throttle: SignInThrottle,
  credentials: { email: string; password: string },
) {
  const email = credentials.email.trim().toLowerCase();
  const slot = throttle.reserve(email);
  let outcome: boolean | null = null;
  try {
    const found = await store.findUserByEmail(prisma, email);
    // Verify against a real hash even for unknown addresses, so timing does not tell
    // which addresses have accounts.
    const ok = await verifyPassword(found?.passwordHash ?? DUMMY_HASH, credentials.password);
    const user = found && ok && found.isActive ? found : null;
    outcome = user !== null;
    return user;
  } finally {
    // The slot comes back whatever happened; a database error is no wrong password.
    slot.settle(outcome);
  }
}

/** Signing in: checkPassword, and the login is recorded. */
export async function verifyCredentials(
  prisma: DbClient,
  throttle: SignInThrottle,
  credentials: { email: string; password: string },
) {
  const user = await checkPassword(prisma, throttle, credentials);
  if (user) await store.recordLogin(prisma, user.id, new Date());
  return user;
}

// argon2id hash of a random string nobody knows.
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$JGqrz4NskWOOk2ziiJOFOw$AhPZxO/4KGoiFDb25XHDWL6BSwNY9innS+Emr62RXmQ";

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
export async function endSessions(prisma: DbClient, userId: number, issuedAt: number): Promise<boolean> {
  return (await store.bumpSessionVersion(prisma, userId, issuedAt)) === 1;
}

/**
 * The user of a next-auth session token (a JWT signed with the auth secret), or null. Reads
 * the user afresh so a deactivated user, or a session ended by sign-out or a password
 * change (SESSION_VERSION_CLAIM), loses access at once. The edge finds the token in the
 * request's cookies (http/rest/principal.ts).
 */
export async function sessionUserOfToken(prisma: DbClient, token: string): Promise<SessionUser | null> {
  const payload = await decode({ token, secret: authSecret() }).catch(() => null);
  const userId = Number(payload?.sub);
  if (!Number.isInteger(userId) || userId <= 0) return null;
  const user = await store.findSessionUser(prisma, userId);
  if (!user?.isActive || user.sessionVersion !== tokenSessionVersion(payload)) return null;
  const { isActive: _active, sessionVersion: _version, ...rest } = user;
  return rest;
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Looks a presented key up by its hash. Returns null for an unknown key or an inactive user.
 * `last_used_at` is written at most once a minute per key, off the request's path.
 */
export async function authenticatePersonalApiKey(
  prisma: DbClient,
  presented: string,
  now: Date = new Date(),
): Promise<ApiKeyPrincipal | null> {
  const secureValue = hashSecret(presented);
  const key = await store.findPersonalApiKey(prisma, secureValue);
  // The lookup is by hash; comparing again in constant time costs nothing and keeps a
  // future change of the lookup (prefix index, cache) from leaking timing.
  if (!key || !timingSafeEqual(Buffer.from(key.secureValue), Buffer.from(secureValue)) || !key.user.isActive) {
    return null;
  }
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    void store.touchPersonalApiKey(prisma, key.id, now, LAST_USED_RESOLUTION_MS).catch(() => {});
  }
  const { isActive: _active, ...user } = key.user;
  return { keyId: key.id, user, scopes: key.scopes, scopedProjects: key.scopedProjects };
}
