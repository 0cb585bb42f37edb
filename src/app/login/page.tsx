import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getSessionUser, needsSetup } from "@/app/session";
import { AuthShell } from "@/components/auth/auth-shell";
import { LoginForm } from "@/components/auth/login-form";
import Link from "next/link";
import { safeReturnPath } from "@/server/auth/contract";
import { emailConfigured } from "@/server/email/service";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await needsSetup()) redirect("/signup");
  const { error, callbackUrl, reset } = await searchParams;
  const returnPath = safeReturnPath(callbackUrl);
  if (await getSessionUser()) redirect(returnPath);
  return (
    <AuthShell
      title="Sign in to Burrow"
      description="Welcome back."
      testId="login-page"
      footer={
        <>
          New here? Ask an admin of your organization for an invite.
          {emailConfigured() && (
            <span className="mt-2 block">
              <Link href="/reset-password" className="font-medium text-brand-700 hover:underline" data-testid="login-forgot-password">
                Forgot your password?
              </Link>
            </span>
          )}
        </>
      }
    >
      <LoginForm
        initialError={typeof error === "string" ? error : null}
        returnPath={returnPath}
        notice={reset === "1" ? "Your password is set. Sign in with it." : undefined}
      />
    </AuthShell>
  );
}
