"use client";

import { useQueryClient } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, FormAlert, TextField } from "@/components/ui";
import { safeReturnPath } from "@/server/auth/contract";

export const WRONG_CREDENTIALS = "Wrong e-mail or password.";
export const THROTTLED = "Too many failed attempts. Try again in a few minutes.";

/** The message for next-auth's `error` (from the sign-in answer or the `?error=` of the URL). */
export function signInErrorMessage(error: string | null | undefined, status?: number): string | null {
  if (!error && status !== 429) return null;
  if (error === "throttled" || status === 429) return THROTTLED;
  if (error === "CredentialsSignin") return WRONG_CREDENTIALS;
  if (error === "SessionRequired") return "Sign in to continue.";
  return "Signing in failed. Try again.";
}

/** `returnPath`: where to go once signed in (the page that sent the visitor here), checked again here. */
export function LoginForm({ initialError, returnPath = "/", notice }: { initialError: string | null; returnPath?: string; notice?: string }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(signInErrorMessage(initialError));
  const [pending, setPending] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<{ email?: string; password?: string }>({});

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    const missing = {
      email: email ? undefined : "Enter your e-mail address.",
      password: password ? undefined : "Enter your password.",
    };
    setFieldErrors(missing);
    if (missing.email || missing.password) return;
    setPending(true);
    setError(null);
    try {
      const result = await signIn("credentials", { email, password, redirect: false });
      if (result?.ok && !result.error) {
        queryClient.clear();
        router.replace(safeReturnPath(returnPath));
        router.refresh();
        return;
      }
      setError(signInErrorMessage(result?.error ?? "CredentialsSignin", result?.status));
    } catch {
      setError("Could not reach Burrow. Check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-5" data-testid="login-form">
      {error && <FormAlert testId="login-error">{error}</FormAlert>}
      {notice && !error && (
        <div role="status" data-testid="login-notice" className="rounded-control bg-green-50 px-3.5 py-3 text-sm text-green-800 ring-1 ring-green-200 ring-inset">
          {notice}
        </div>
      )}
      <TextField label="E-mail" name="email" type="email" autoComplete="username" required error={fieldErrors.email} testId="login-email" />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        error={fieldErrors.password}
        testId="login-password"
      />
      <Button type="submit" size="lg" loading={pending} data-testid="login-submit" className="mt-1 w-full">
        Sign in
      </Button>
    </form>
  );
}
