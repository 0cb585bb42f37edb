/**
 * The Next-side adapter for reading who is signed in: server components and layouts call
 * these; services never import next/*. Reading the request's headers makes every page
 * that calls them dynamic, so `next build` never opens the database.
 */
import { headers } from "next/headers";
import { cache } from "react";
import { hasAnyUser } from "@/server/accounts/service";
import type { SessionUser } from "@/server/auth/contract";
import { getDb } from "@/server/db";
import { sessionUserFromHeaders } from "@/server/http/rest/principal";

/** The signed-in user of the current request, or null (once per request). */
export const getSessionUser = cache(async (): Promise<SessionUser | null> => {
  const requestHeaders = await headers();
  return sessionUserFromHeaders((await getDb()).prisma, requestHeaders);
});

/** True on a fresh instance: nobody has signed up yet, so `/signup` is open. */
export const needsSetup = cache(async (): Promise<boolean> => {
  // Dynamic even where no session is read: the answer changes at run time.
  await headers();
  return !(await hasAnyUser((await getDb()).prisma));
});
