"use client";

import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Card, CardBody, CardHeader, FormAlert, TextField } from "@/components/ui";
import { changePasswordInput } from "@/server/accounts/contract";
import { formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const FIELDS = ["currentPassword", "newPassword"] as const;
type Field = (typeof FIELDS)[number];

/**
 * Sets a new password. The server ends every session of the user, this one too, so the form
 * signs in again with the new password to stay signed in here.
 */
export function ChangePassword() {
  const trpc = useTRPC();
  const router = useRouter();
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  const [done, setDone] = useState(false);
  const [signingIn, setSigningIn] = useState(false);
  const change = useMutation(trpc.account.changePassword.mutationOptions());

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const values = { currentPassword: String(form.get("currentPassword") ?? ""), newPassword: String(form.get("newPassword") ?? "") };
    setDone(false);
    const invalid = validate(changePasswordInput, values, FIELDS);
    if (invalid) return setErrors(invalid);
    setErrors(NO_ERRORS);
    let email: string;
    try {
      ({ email } = await change.mutateAsync(values));
    } catch (error) {
      return setErrors(formErrorsFrom(error, FIELDS));
    }
    setSigningIn(true);
    const result = await signIn("credentials", { email, password: values.newPassword, redirect: false });
    setSigningIn(false);
    if (!result?.ok) {
      router.replace("/login");
      return;
    }
    formElement.reset();
    setDone(true);
  }

  return (
    <Card data-testid="change-password">
      <CardHeader title="Password" description="Changing your password signs you out everywhere else." />
      <CardBody>
        <form noValidate onSubmit={(event) => void submit(event)} className="flex max-w-md flex-col gap-5" data-testid="change-password-form">
          {errors.form && <FormAlert testId="change-password-error">{errors.form}</FormAlert>}
          {done && (
            <p role="status" className="text-sm text-green-700" data-testid="change-password-done">
              Your password was changed.
            </p>
          )}
          <TextField
            label="Current password"
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            required
            error={errors.fields.currentPassword}
            testId="current-password"
          />
          <TextField
            label="New password"
            name="newPassword"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            hint="At least 8 characters that are not spaces."
            error={errors.fields.newPassword}
            testId="new-password"
          />
          <Button type="submit" loading={change.isPending || signingIn} data-testid="change-password-submit" className="self-start">
            Change password
          </Button>
        </form>
      </CardBody>
    </Card>
  );
}
