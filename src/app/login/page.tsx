import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getSessionUser, needsSetup } from "@/app/session";
import { AuthShell } from "@/components/auth/auth-shell";
import { LoginForm } from "@/components/auth/login-form";
import { safeReturnPath } from "@/server/auth/contract";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await needsSetup()) redirect("/signup");
  const { error, callbackUrl } = await searchParams;
  const returnPath = safeReturnPath(callbackUrl);
  if (await getSessionUser()) redirect(returnPath);
  return (
    <AuthShell
      title="Sign in to Burrow"
      description="Welcome back."
      testId="login-page"
      footer="New here? Ask an admin of your organization for an invite."
    >
      <LoginForm initialError={typeof error === "string" ? error : null} returnPath={returnPath} />
    </AuthShell>
  );
}
