import type { ReactNode } from "react";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getSessionUser, needsSetup } from "@/app/session";
import { loginPathFor, RETURN_PATH_HEADER } from "@/server/auth/contract";
import { PageHydration } from "@/trpc/hydration";
import { AppShell } from "@/components/app-shell/app-shell";
import { prefetchSignedInShell } from "@/trpc/server";

/**
 * Every signed-in page. A fresh instance sends visitors to first-run sign-up; otherwise
 * signed-out visitors go to the sign-in page, which brings them back here after (the path
 * comes from src/proxy.ts). Reading the session makes these pages
 * dynamic, so `next build` never opens the database. The user and their project come with
 * the page (src/trpc/server.ts), so a page's own queries start as soon as it hydrates.
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const user = await getSessionUser();
  if (!user) redirect((await needsSetup()) ? "/signup" : loginPathFor((await headers()).get(RETURN_PATH_HEADER)));
  return (
    <PageHydration state={await prefetchSignedInShell()}>
      <AppShell user={{ email: user.email, firstName: user.firstName }}>{children}</AppShell>
    </PageHydration>
  );
}
