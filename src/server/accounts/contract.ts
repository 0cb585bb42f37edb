import { z } from "zod";
import { recordingSettingsInput, recordingSettingsSchema } from "@/server/recordings/contract";
import { recordId } from "@/server/input/record-id";
import { scopesSchema } from "@/server/auth/contract";
import { propertiesParamSchema } from "@/server/properties/contract";

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

export const requestPasswordResetInput = z.object({ email: emailSchema });
export type RequestPasswordResetInput = z.input<typeof requestPasswordResetInput>;

export const resetPasswordInput = z.object({
  token: z.string().min(1).max(200),
  password: passwordSchema,
});
export type ResetPasswordInput = z.input<typeof resetPasswordInput>;

export const createProjectInput = z.object({ name: nameSchema });

/** The IANA time zones this runtime knows (Intl), and UTC: what a project's `timezone` may be. */
let zones: Set<string> | null = null;
export function isProjectTimezone(zone: string): boolean {
  zones ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);
  return zones.has(zone);
}

/** PATCH of a project's settings (PostHog's team fields Burrow has, session replay's too); unknown fields are refused. */
export const projectSettingsInput = z.strictObject({
  name: nameSchema.optional(),
  /** PostHog's team `timezone`: an IANA name; every query buckets days in it. */
  timezone: z
    .string({ error: "timezone must be a string." })
    .max(64, "Ensure this field has no more than 64 characters.")
    .refine(isProjectTimezone, { error: (issue) => `"${String(issue.input).slice(0, 64)}" is not a valid choice.` })
    .optional(),
  anonymize_ips: z.boolean({ error: "anonymize_ips must be a boolean." }).optional(),
  /** GeoIP and user-agent properties added at ingestion (on by default, as PostHog). */
  enrich_events: z.boolean({ error: "enrich_events must be a boolean." }).optional(),
  /** PostHog's team `test_account_filters`: what `filterTestAccounts: true` filters by (every query kind, experiments' exposure criteria). Kept as sent once checked. */
  test_account_filters: z
    .array(z.unknown(), { error: "test_account_filters must be a list of property filters." })
    .max(50, "At most 50 test account filters.")
    .superRefine((list, ctx) => {
      const parsed = propertiesParamSchema.safeParse(list);
      if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path.map((part) => part as string | number) });
    })
    .optional(),
  ...recordingSettingsInput.shape,
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

// What the management API answers (the OpenAPI document's schemas; present.ts builds them).

/** PostHog's UserBasic: how a user appears inside other objects. */
export const userBasicSchema = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    distinct_id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    is_email_verified: z.boolean(),
    hedgehog_config: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "UserBasic" });
export type UserBasic = z.infer<typeof userBasicSchema>;

/** A project (PostHog's team) with the fields Burrow has. */
export const projectSchema = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    organization: z.string().describe("The organization's id."),
    name: z.string(),
    api_token: z.string().describe("The project API key the SDKs send (public: it only writes events and reads flags)."),
    timezone: z.string(),
    anonymize_ips: z.boolean(),
    enrich_events: z.boolean().describe("GeoIP and user-agent properties added at ingestion (off: events are stored as sent)."),
    test_account_filters: z.array(z.unknown()).describe("Property filters every event must pass where a query (or an experiment's exposure criteria) sets `filterTestAccounts`."),
    ...recordingSettingsSchema.shape,
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Project" });

/** `GET /api/projects/`: the projects the caller can use. */
export const projectListItemSchema = z.object({ id: z.number().int(), name: z.string(), organization: z.string() }).meta({ id: "ProjectListItem" });

/** `GET /api/users/@me/`: the key's (or session's) user, with the organizations and projects it may see. */
export const meSchema = userBasicSchema
  .extend({
    current_project_id: z.number().int().nullable(),
    organizations: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        membership_level: z.number().int().describe("1 member, 8 admin, 15 owner."),
        projects: z.array(z.object({ id: z.number().int(), name: z.string() })),
      }),
    ),
  })
  .meta({ id: "Me" });
