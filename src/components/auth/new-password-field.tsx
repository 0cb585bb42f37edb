import { TextField } from "@/components/ui";
import { PASSWORD_MIN_CHARACTERS } from "@/server/accounts/contract";

/** The field where someone chooses a password (sign-up, an invite, a reset link): the one rule's length, and a hint for password managers. */
export function NewPasswordField({ label = "Password", error, testId }: { label?: string; error?: string; testId: string }) {
  return (
    <TextField
      label={label}
      name="password"
      type="password"
      autoComplete="new-password"
      required
      minLength={PASSWORD_MIN_CHARACTERS}
      hint={`At least ${PASSWORD_MIN_CHARACTERS} characters.`}
      error={error}
      testId={testId}
    />
  );
}
