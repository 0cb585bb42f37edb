import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { SESSION_VERSION_CLAIM } from "./contract";
import { authSecret, endSessions, signInThrottle, tokenSessionVersion, verifyCredentials } from "./service";

const credentials = z.object({ email: z.string().trim().min(1).max(254), password: z.string().min(1).max(256) });

/** next-auth's configuration: e-mail and password, sessions as signed JWT cookies. */
export function authOptions(): NextAuthOptions {
  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: 14 * 24 * 60 * 60 },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        name: "E-mail and password",
        credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(input) {
          const parsed = credentials.safeParse(input);
          if (!parsed.success) return null;
          const { prisma } = await getDb();
          try {
            const user = await verifyCredentials(prisma, signInThrottle(), parsed.data);
            return user
              ? { id: String(user.id), email: user.email, name: user.firstName || user.email, sessionVersion: user.sessionVersion }
              : null;
          } catch (error) {
            // next-auth reports a thrown error's message as the `error` of the sign-in.
            if (error instanceof AppError && error.code === "throttled") throw new Error("throttled");
            throw error;
          }
        },
      }),
    ],
    callbacks: {
      // At sign-in `user` is what authorize returned: stamp the token with its session version.
      jwt({ token, user }) {
        if (user && "sessionVersion" in user) token[SESSION_VERSION_CLAIM] = user.sessionVersion;
        return token;
      },
    },
    events: {
      // Clearing the cookie is not enough: a copy of it would stay valid for 14 days.
      async signOut({ token }) {
        const userId = Number(token?.sub);
        if (!Number.isInteger(userId) || userId <= 0) return;
        await endSessions((await getDb()).prisma, userId, tokenSessionVersion(token));
      },
    },
  };
}
