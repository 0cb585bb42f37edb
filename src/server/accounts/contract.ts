import { z } from "zod";
import { recordId } from "@/server/input/record-id";
import { scopesSchema } from "@/server/auth/contract";

/** PostHog's organization membership levels. */
export const MembershipLevel = { member: 1, admin: 8, owner: 15 } as const;
export type MembershipLevelName = keyof typeof MembershipLevel;

export const emailSchema = z.email("Enter a valid e-mail address.").trim().toLowerCase().max(254);
export const PASSWORD_MIN_CHARACTERS = 8;

/**
 * The one password rule (sign-up, invites, the admin CLI, password changes): 8 to 256
 * characters, at least 8 of them not whitespace, so eight spaces or "a b c d" are refused.
 * PostHog asks for 8 characters and a zxcvbn score; zxcvbn is not a dependency here.
 */
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_CHARACTERS, `Passwords have at least ${PASSWORD_MIN_CHARACTERS} characters.`)
  .max(256, "Passwords have at most 256 characters.")
  // Only once the length is fine, so a short password gets one message, not two.
  .refine((password) => password.length < PASSWORD_MIN_CHARACTERS || password.replace(/\s/gu, "").length >= PASSWORD_MIN_CHARACTERS, {
    message: `Passwords have at least ${PASSWORD_MIN_CHARACTERS} characters that are not spaces.`,
  });
const nameSchema = z.string().trim().min(1, "Enter a name.").max(200, "Names have at most 200 characters.");

export const bootstrapInput = z.object({
  email: emailSchema,
  password: passwordSchema,
  organization: nameSchema.default("Default organization"),
  project: nameSchema.default("Default project"),
});
export type BootstrapInput = z.input<typeof bootstrapInput>;

export const createUserInput = z.object({
  email: emailSchema,
  password: passwordSchema,
  organizationId: z.uuid("Organization ids are UUIDs."),
  level: z.enum(["member", "admin"]).default("member"),
  firstName: z.string().trim().max(150).default(""),
});
export type CreateUserInput = z.input<typeof createUserInput>;

export const createPersonalApiKeyInput = z.object({
  label: z.string().trim().max(40, "Labels have at most 40 characters.").default(""),
  scopes: scopesSchema,
  /** Limit the key to this one project; unset: every project the user can access. */
  projectId: recordId().optional(),
});
export type CreatePersonalApiKeyInput = z.input<typeof createPersonalApiKeyInput>;

export const signUpInput = z.object({
  email: emailSchema,
  password: passwordSchema,
  firstName: z.string().trim().min(1, "Tell us your name.").max(150),
  organization: nameSchema,
  project: nameSchema.default("Default project"),
});
export type SignUpInput = z.input<typeof signUpInput>;

export const createInviteInput = z.object({
  email: emailSchema,
  level: z.enum(["member", "admin"]).default("member"),
});
export type CreateInviteInput = z.input<typeof createInviteInput>;

export const acceptInviteInput = z.object({
  token: z.string().min(1).max(200),
  password: passwordSchema,
  firstName: z.string().trim().min(1, "Tell us your name.").max(150),
});
export type AcceptInviteInput = z.input<typeof acceptInviteInput>;

export const createProjectInput = z.object({ name: nameSchema });

/** PATCH of a project's settings (PostHog's team fields Burrow has); unknown fields are refused. */
export const projectSettingsInput = z.strictObject({
  name: nameSchema.optional(),
  anonymize_ips: z.boolean({ error: "anonymize_ips must be a boolean." }).optional(),
  /** GeoIP and user-agent properties added at ingestion (on by default, as PostHog). */
  enrich_events: z.boolean({ error: "enrich_events must be a boolean." }).optional(),
});
export type ProjectSettingsInput = z.infer<typeof projectSettingsInput>;

export const changePasswordInput = z.object({
  currentPassword: z.string().min(1, "Enter your current password.").max(256),
  newPassword: passwordSchema,
});
export type ChangePasswordInput = z.input<typeof changePasswordInput>;

/**
 * What the SDK endpoints (capture, /decide, /flags, local evaluation, remote config payloads, surveys and early access) say about a missing or
 * wrong project API key: PostHog's sentences, pointing at Burrow's settings instead of
 * PostHog's. One place, so the endpoints cannot drift apart again.
 */
const WHERE_IS_THE_PROJECT_KEY = "You can find your project API key in Burrow's project settings.";

export const INVALID_PROJECT_KEY = `Project API key invalid. ${WHERE_IS_THE_PROJECT_KEY}`;
/** Capture's wording (PostHog's `capture` service). */
export const CAPTURE_MISSING_PROJECT_KEY = `API key not provided. ${WHERE_IS_THE_PROJECT_KEY}`;
/** /decide's and /flags' wording (PostHog's `decide` view). */
export const FLAGS_MISSING_PROJECT_KEY = `No project API key provided. ${WHERE_IS_THE_PROJECT_KEY}`;
