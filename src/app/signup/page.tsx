import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { needsSetup } from "@/app/session";
import { AuthShell } from "@/components/auth/auth-shell";
import { SignupForm } from "@/components/auth/signup-form";

export const metadata: Metadata = { title: "Set up Burrow" };

/** First run only: once anyone has an account, new people join by invite. */
export default async function SignupPage() {
  if (!(await needsSetup())) redirect("/login");
  return (
    <AuthShell
      title="Set up Burrow"
      description="Create the first account. You'll own the organization and can invite your team later."
      testId="signup-page"
    >
      <SignupForm />
    </AuthShell>
  );
}
