import { decode } from "next-auth/jwt";
import type { PrismaClient } from "@/server/db/client";
import { authSecret } from "./secret";
import { tokenSessionVersion } from "./session-version";

/** next-auth's session cookie: `__Secure-` prefixed when the site is served over https. */
export const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"] as const;

function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

export interface SessionUser {
  id: number;
  uuid: string;
  email: string;
  firstName: string;
  currentProjectId: number | null;
}

/**
 * The signed-in user of a request, from next-auth's session cookie (a JWT signed with the
 * auth secret), or null. Reads the user afresh so a deactivated user, or a session ended by
 * sign-out or a password change (session-version.ts), loses access at once.
 */
export async function sessionUserFromHeaders(prisma: PrismaClient, headers: Headers): Promise<SessionUser | null> {
  const cookieHeader = headers.get("cookie");
  for (const name of SESSION_COOKIES) {
    const token = readCookie(cookieHeader, name);
    if (!token) continue;
    const payload = await decode({ token, secret: authSecret() }).catch(() => null);
    const userId = Number(payload?.sub);
    if (!Number.isInteger(userId) || userId <= 0) return null;
    const user = await prisma.user.findUnique({
      where: { id: userId },
      select: { id: true, uuid: true, email: true, firstName: true, currentProjectId: true, isActive: true, sessionVersion: true },
    });
    if (!user?.isActive || user.sessionVersion !== tokenSessionVersion(payload)) return null;
    const { isActive: _active, sessionVersion: _version, ...rest } = user;
    return rest;
  }
  return null;
}
