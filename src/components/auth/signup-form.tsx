"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { NewPasswordField } from "@/components/auth/new-password-field";
import { Button, FormAlert, TextField } from "@/components/ui";
import { signUpInput } from "@/server/accounts/contract";
import { formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const FIELDS = ["firstName", "email", "password", "organization", "project"] as const;
type Field = (typeof FIELDS)[number];

/** First run: the first user creates the organization and its first project, then is signed in. */
export function SignupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  const [signingIn, setSigningIn] = useState(false);
  const signUp = useMutation(trpc.auth.signUp.mutationOptions());

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = Object.fromEntries(FIELDS.map((field) => [field, String(form.get(field) ?? "")])) as Record<Field, string>;
    const invalid = validate(signUpInput, values, FIELDS);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    try {
      await signUp.mutateAsync(values);
    } catch (error) {
      return setErrors(formErrorsFrom(error, FIELDS));
    }
    setSigningIn(true);
    const result = await signIn("credentials", { email: values.email, password: values.password, redirect: false });
    if (!result?.ok) {
      // The account exists; let the user sign in by hand.
      router.replace("/login");
      return;
    }
    queryClient.clear();
    router.replace("/");
    router.refresh();
  }

  const busy = signUp.isPending || signingIn;
  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="flex flex-col gap-5" data-testid="signup-form">
      {errors.form && <FormAlert testId="signup-error">{errors.form}</FormAlert>}
      <TextField label="First name" name="firstName" autoComplete="given-name" required error={errors.fields.firstName} testId="signup-first-name" />
      <TextField label="E-mail" name="email" type="email" autoComplete="email" required error={errors.fields.email} testId="signup-email" />
      <NewPasswordField error={errors.fields.password} testId="signup-password" />
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField label="Organization name" name="organization" autoComplete="organization" required error={errors.fields.organization} testId="signup-organization" />
        <TextField label="Project name" name="project" defaultValue="Default project" required error={errors.fields.project} testId="signup-project" />
      </div>
      <Button type="submit" size="lg" loading={busy} data-testid="signup-submit" className="mt-1 w-full">
        {signingIn ? "Signing in…" : "Create account"}
      </Button>
    </form>
  );
}
