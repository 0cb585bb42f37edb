import { SESSION_COOKIES, type SessionUser } from "@/server/auth/contract";
import { authenticatePersonalApiKey, sessionUserOfToken } from "@/server/auth/service";
import { checkCsrf } from "@/server/http/csrf";
import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";

/** Who is calling a management route, and what they may do. */
export interface Principal {
  user: { id: number; uuid: string; email: string; currentProjectId: number | null };
  via: "personal_api_key" | "session";
  /** A session acts as the user with every scope; a key only with its own. */
  scopes: readonly string[];
  /** Projects a key is limited to; empty: all of the user's. */
  scopedProjects: readonly number[];
  /** What rate limits count against. */
  rateKey: string;
}

function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/**
 * The signed-in user of a request, from next-auth's session cookie, or null (auth's
 * `sessionUserOfToken` checks the token and reads the user afresh).
 */
export async function sessionUserFromHeaders(prisma: PrismaClient, headers: Headers): Promise<SessionUser | null> {
  const cookieHeader = headers.get("cookie");
  for (const name of SESSION_COOKIES) {
    const token = readCookie(cookieHeader, name);
    if (!token) continue;
    return sessionUserOfToken(prisma, token);
  }
  return null;
}

/**
 * `Authorization: Bearer <personal API key>`, else the browser session cookie (with a CSRF
 * check on writes). Throws 401 when neither identifies an active user.
 */
export async function authenticate(prisma: PrismaClient, request: Request): Promise<Principal> {
  const header = request.headers.get("authorization");
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AppError("authentication_failed", "Authorization header must be 'Bearer <personal API key>'.");
    const key = await authenticatePersonalApiKey(prisma, match[1]!);
    if (!key) throw new AppError("authentication_failed", "Personal API key found in request Authorization header is invalid.");
    return { user: key.user, via: "personal_api_key", scopes: key.scopes, scopedProjects: key.scopedProjects, rateKey: `key:${key.keyId}` };
  }
  const user = await sessionUserFromHeaders(prisma, request.headers);
  if (!user) throw new AppError("not_authenticated", "Authentication credentials were not provided.");
  checkCsrf(request);
  return sessionPrincipal(user);
}

/** A signed-in browser user acts with every scope on every project of theirs. */
export function sessionPrincipal(user: SessionUser): Principal {
  return {
    user: { id: user.id, uuid: user.uuid, email: user.email, currentProjectId: user.currentProjectId },
    via: "session",
    scopes: ["*"],
    scopedProjects: [],
    rateKey: `user:${user.id}`,
  };
}
