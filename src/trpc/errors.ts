import { TRPCClientError } from "@trpc/client";
import { z, type ZodType } from "zod";

/** What a form shows after a failed submit: messages by field, and one for the whole form. */
export interface FormErrors<Field extends string = string> {
  fields: Partial<Record<Field, string>>;
  form: string | null;
}

export const NO_ERRORS: FormErrors<never> = { fields: {}, form: null };

interface ErrorData {
  httpStatus?: number;
  attr?: string | null;
  zodError?: { formErrors: string[]; fieldErrors: Record<string, string[] | undefined> } | null;
}

/** The first message of each field in a flattened zod error. */
function firstMessages(fieldErrors: Record<string, string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, messages] of Object.entries(fieldErrors)) if (messages?.[0]) out[field] = messages[0];
  return out;
}

function pick<Field extends string>(all: Record<string, string>, known: readonly Field[]): Partial<Record<Field, string>> {
  const out: Partial<Record<Field, string>> = {};
  for (const field of known) if (all[field]) out[field] = all[field];
  return out;
}

/**
 * Turns a failed tRPC call into form errors: zod issues (`data.zodError`) and a service's
 * `data.attr` go next to the fields of `known`; anything else is a form-level message.
 */
export function formErrorsFrom<Field extends string>(error: unknown, known: readonly Field[]): FormErrors<Field> {
  if (!(error instanceof TRPCClientError)) {
    return { fields: {}, form: error instanceof Error ? error.message : "Something went wrong. Try again." };
  }
  const data = error.data as ErrorData | undefined;
  if (!data) return { fields: {}, form: "Could not reach Burrow. Check your connection and try again." };
  const all = data.zodError ? firstMessages(data.zodError.fieldErrors) : {};
  if (data.attr && !data.zodError) all[data.attr] = error.message;
  const fields = pick(all, known);
  if (Object.keys(fields).length > 0) return { fields, form: data.zodError?.formErrors[0] ?? null };
  const firstIssue = data.zodError ? Object.values(all)[0] ?? data.zodError.formErrors[0] : undefined;
  return { fields: {}, form: firstIssue ?? error.message };
}

/** Checks form values with a contract's schema before sending them; null when they pass. */
export function validate<Field extends string>(schema: ZodType, values: unknown, known: readonly Field[]): FormErrors<Field> | null {
  const result = schema.safeParse(values);
  if (result.success) return null;
  const flat = z.flattenError(result.error);
  const fields = pick(firstMessages(flat.fieldErrors as Record<string, string[] | undefined>), known);
  if (Object.keys(fields).length > 0) return { fields, form: null };
  return { fields: {}, form: flat.formErrors[0] ?? result.error.issues[0]?.message ?? "Check the form and try again." };
}

/** A short, readable message for a failed query. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError && !error.data) return "Could not reach Burrow. Check your connection and try again.";
  return error instanceof Error ? error.message : "Something went wrong.";
}
