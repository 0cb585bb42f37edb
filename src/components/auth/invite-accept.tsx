"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { AuthShell } from "@/components/auth/auth-shell";
import { NewPasswordField } from "@/components/auth/new-password-field";
import { Button, buttonClasses, ErrorState, FormAlert, Spinner, TextField } from "@/components/ui";
import { acceptInviteInput } from "@/server/accounts/contract";
import { errorMessage, formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const FIELDS = ["firstName", "password"] as const;
type Field = (typeof FIELDS)[number];

function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "NOT_FOUND";
}

/** An invitee opens their link: sees the organization, sets a name and password, is signed in. */
export function InviteAccept({ token }: { token: string }) {
  const trpc = useTRPC();
  const invite = useQuery(trpc.auth.invite.queryOptions({ token }));

  if (invite.isPending) {
    return (
      <AuthShell title="Join Burrow" testId="invite-page">
        <div className="flex items-center justify-center gap-3 py-6 text-sm text-gray-600" data-testid="invite-loading">
          <Spinner label={null} className="text-brand-600" />
          <span role="status">Checking your invite…</span>
        </div>
      </AuthShell>
    );
  }

  if (invite.isError) {
    const notFound = isNotFound(invite.error);
    return (
      <AuthShell
        title={notFound ? "This invite can't be used" : "Join Burrow"}
        testId="invite-page"
        footer={
          <Link href="/login" className="font-medium text-brand-700 hover:underline">
            Go to sign in
          </Link>
        }
      >
        <div data-testid="invite-invalid">
          {notFound ? (
            <div className="text-center">
              <p className="text-sm text-gray-700">
                The link is invalid, has expired or was already used. Ask an admin of your organization for a new invite.
              </p>
              <Link href="/login" className={buttonClasses({ variant: "secondary", className: "mt-5" })}>
                I already have an account
              </Link>
            </div>
          ) : (
            <ErrorState
              title="Could not check the invite"
              message={errorMessage(invite.error)}
              onRetry={() => void invite.refetch()}
              retrying={invite.isFetching}
            />
          )}
        </div>
      </AuthShell>
    );
  }

  return (
    <AuthShell
      title={`Join ${invite.data.organization}`}
      description="You've been invited to Burrow. Choose a password to create your account."
      testId="invite-page"
      footer={
        <>
          Already have an account?{" "}
          <Link href="/login" className="font-medium text-brand-700 hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      <AcceptForm token={token} email={invite.data.email} organization={invite.data.organization} />
    </AuthShell>
  );
}

function AcceptForm({ token, email, organization }: { token: string; email: string; organization: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  const [signingIn, setSigningIn] = useState(false);
  const accept = useMutation(trpc.auth.acceptInvite.mutationOptions());

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = { token, firstName: String(form.get("firstName") ?? ""), password: String(form.get("password") ?? "") };
    const invalid = validate(acceptInviteInput, values, FIELDS);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    try {
      await accept.mutateAsync(values);
    } catch (error) {
      return setErrors(formErrorsFrom(error, FIELDS));
    }
    setSigningIn(true);
    const result = await signIn("credentials", { email, password: values.password, redirect: false });
    if (!result?.ok) {
      router.replace("/login");
      return;
    }
    queryClient.clear();
    router.replace("/");
    router.refresh();
  }

  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-5" data-testid="invite-form">
      <dl className="flex flex-col gap-3 rounded-control bg-gray-50 px-4 py-3 text-sm ring-1 ring-gray-200 ring-inset">
        <div className="min-w-0">
          <dt className="text-gray-500">Organization</dt>
          <dd className="font-medium break-words text-gray-900" data-testid="invite-organization">
            {organization}
          </dd>
        </div>
        <div className="min-w-0">
          <dt className="text-gray-500">E-mail</dt>
          <dd className="font-medium break-words text-gray-900" data-testid="invite-email">
            {email}
          </dd>
        </div>
      </dl>
      {errors.form && <FormAlert testId="invite-error">{errors.form}</FormAlert>}
      {/* Lets password managers store the e-mail with the new password. */}
      <input type="email" name="email" value={email} autoComplete="username" readOnly hidden />
      <TextField label="First name" name="firstName" autoComplete="given-name" required error={errors.fields.firstName} testId="invite-first-name" />
      <NewPasswordField error={errors.fields.password} testId="invite-password" />
      <Button type="submit" size="lg" loading={accept.isPending || signingIn} data-testid="invite-submit" className="mt-1 w-full">
        {signingIn ? "Signing in…" : "Create account and join"}
      </Button>
    </form>
  );
}
