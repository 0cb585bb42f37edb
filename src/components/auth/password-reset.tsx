"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { AuthShell } from "@/components/auth/auth-shell";
import { NewPasswordField } from "@/components/auth/new-password-field";
import { Button, buttonClasses, ErrorState, FormAlert, Spinner, TextField } from "@/components/ui";
import { requestPasswordResetInput, resetPasswordInput } from "@/server/accounts/contract";
import { errorMessage, formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const backToSignIn = (
  <Link href="/login" className="font-medium text-brand-700 hover:underline">
    Back to sign in
  </Link>
);

/** "Forgot password?": the visitor gives their address; the same answer whether or not it has an account. */
export function ForgotPassword() {
  const trpc = useTRPC();
  const request = useMutation(trpc.auth.requestPasswordReset.mutationOptions());
  const [errors, setErrors] = useState<FormErrors<"email">>(NO_ERRORS);
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = { email: String(new FormData(event.currentTarget).get("email") ?? "") };
    const invalid = validate(requestPasswordResetInput, values, ["email"]);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    try {
      await request.mutateAsync(values);
      setSentTo(values.email.trim());
    } catch (error) {
      setErrors(formErrorsFrom(error, ["email"]));
    }
  }

  return (
    <AuthShell title="Reset your password" description="We'll e-mail you a link to set a new one." testId="forgot-password-page" footer={backToSignIn}>
      {sentTo ? (
        <div role="status" className="text-sm text-gray-700" data-testid="forgot-password-sent">
          If <strong className="font-semibold break-words">{sentTo}</strong> has a Burrow account, a link to reset its password is on its way.
          It works once, within the hour.
        </div>
      ) : (
        <form noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-5" data-testid="forgot-password-form">
          {errors.form && <FormAlert testId="forgot-password-error">{errors.form}</FormAlert>}
          <TextField label="E-mail" name="email" type="email" autoComplete="username" required error={errors.fields.email} testId="forgot-password-email" />
          <Button type="submit" size="lg" loading={request.isPending} data-testid="forgot-password-submit" className="mt-1 w-full">
            Send the link
          </Button>
        </form>
      )}
    </AuthShell>
  );
}

function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "NOT_FOUND";
}

/** The e-mailed link: a new password for the account it names; then sign in with it. */
export function ResetPassword({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const reset = useQuery(trpc.auth.passwordReset.queryOptions({ token }, { retry: false }));
  const save = useMutation(trpc.auth.resetPassword.mutationOptions());
  const [errors, setErrors] = useState<FormErrors<"password">>(NO_ERRORS);

  if (reset.isPending) {
    return (
      <AuthShell title="Set a new password" testId="reset-password-page">
        <div className="flex items-center justify-center gap-3 py-6 text-sm text-gray-600">
          <Spinner label={null} className="text-brand-600" />
          <span role="status">Checking your link…</span>
        </div>
      </AuthShell>
    );
  }
  if (reset.isError) {
    return (
      <AuthShell title="This link can't be used" testId="reset-password-page" footer={backToSignIn}>
        <div data-testid="reset-password-invalid">
          {isNotFound(reset.error) ? (
            <div className="text-center">
              <p className="text-sm text-gray-700">The link is invalid, has expired or was already used.</p>
              <Link href="/reset-password" className={buttonClasses({ variant: "secondary", className: "mt-5" })}>
                Ask for a new link
              </Link>
            </div>
          ) : (
            <ErrorState title="Could not check the link" message={errorMessage(reset.error)} onRetry={() => void reset.refetch()} retrying={reset.isFetching} />
          )}
        </div>
      </AuthShell>
    );
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = { token, password: String(new FormData(event.currentTarget).get("password") ?? "") };
    const invalid = validate(resetPasswordInput, values, ["password"]);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    try {
      await save.mutateAsync(values);
    } catch (error) {
      return setErrors(formErrorsFrom(error, ["password"]));
    }
    router.replace("/login?reset=1");
  }

  return (
    <AuthShell title="Set a new password" description={`For ${reset.data.email}. Every device signed in to it is signed out.`} testId="reset-password-page" footer={backToSignIn}>
      <form noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-5" data-testid="reset-password-form">
        {errors.form && <FormAlert testId="reset-password-error">{errors.form}</FormAlert>}
        <input type="email" name="email" value={reset.data.email} autoComplete="username" readOnly hidden />
        <NewPasswordField label="New password" error={errors.fields.password} testId="reset-password-password" />
        <Button type="submit" size="lg" loading={save.isPending} data-testid="reset-password-submit" className="mt-1 w-full">
          Set password
        </Button>
      </form>
    </AuthShell>
  );
}
