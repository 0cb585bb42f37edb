import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { getSessionUser, needsSetup } from "@/app/session";
import { AppShell } from "@/components/app-shell/app-shell";

/**
 * Every signed-in page. A fresh instance sends visitors to first-run sign-up; otherwise
 * signed-out visitors go to the sign-in page. Reading the session makes these pages
 * dynamic, so `next build` never opens the database.
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const user = await getSessionUser();
  if (!user) redirect((await needsSetup()) ? "/signup" : "/login");
  return <AppShell user={{ email: user.email, firstName: user.firstName }}>{children}</AppShell>;
}
