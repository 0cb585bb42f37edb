/**
 * Request and answer shapes of the actions API (`/api/projects/:id/actions/`), shared by REST,
 * tRPC and the action form. Field names are PostHog's (posthog/api/action.py,
 * ActionSerializer and ActionStepJSON). Browser-safe (the form imports it).
 *
 * Steps are ORed; the conditions of one step are ANDed. matching.ts turns them into the one
 * filter tree every event store compiles.
 */
import { z } from "zod";
import { userBasicSchema } from "@/server/accounts/contract";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { PROPERTY_LIMITS, propertiesParamSchema } from "@/server/properties/contract";
import { regexSyntaxError } from "@/server/properties/regex";

export const ACTION_LIMITS = {
  maxName: 400,
  maxDescription: 2000,
  maxSteps: 20,
  maxText: 2000,
  maxTags: 50,
} as const;

export const STRING_MATCHING = ["contains", "regex", "exact"] as const;
export type StringMatching = (typeof STRING_MATCHING)[number];

const text = (field: string) =>
  z
    .string({ error: `${field} must be a string.` })
    .max(ACTION_LIMITS.maxText, `${field} must be at most ${ACTION_LIMITS.maxText} characters.`)
    .nullish()
    .transform((value) => (value === undefined || value === null || value === "" ? null : value));

const matching = (field: string) =>
  z
    .enum(STRING_MATCHING, { error: `${field} must be one of ${STRING_MATCHING.join(", ")}.` })
    .nullish()
    .transform((value) => value ?? null);

/** One step as stored and shown (PostHog's ActionStepJSON). */
export interface ActionStep {
  event: string | null;
  properties: unknown[] | null;
  selector: string | null;
  tag_name: string | null;
  text: string | null;
  text_matching: StringMatching | null;
  href: string | null;
  href_matching: StringMatching | null;
  url: string | null;
  url_matching: StringMatching | null;
}

const regexField = (value: string | null, kind: StringMatching | null) => value === null || kind !== "regex" || regexSyntaxError(value) === null;

export const actionStepSchema = z
  .object({
    event: text("event"),
    properties: z
      .unknown()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined || value === null) return null;
        const list = Array.isArray(value) ? value : [value];
        const parsed = propertiesParamSchema.safeParse(list);
        if (!parsed.success) {
          for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path.map((part) => part as string | number) });
          return z.NEVER;
        }
        return list as unknown[];
      }),
    selector: text("selector"),
    tag_name: text("tag_name"),
    text: text("text"),
    text_matching: matching("text_matching"),
    href: text("href"),
    href_matching: matching("href_matching"),
    url: text("url"),
    url_matching: matching("url_matching"),
  })
  .transform((step): ActionStep => ({ ...step, properties: step.properties && step.properties.length > 0 ? step.properties : null }))
  .superRefine((step, ctx) => {
    for (const [field, kind] of [["url", step.url_matching ?? "contains"], ["text", step.text_matching], ["href", step.href_matching]] as const) {
      const value = step[field];
      if (value !== null && value.length > PROPERTY_LIMITS.maxRegexLength && kind === "regex") {
        ctx.addIssue({ code: "custom", message: `The regular expression is longer than ${PROPERTY_LIMITS.maxRegexLength} characters.`, path: [field] });
      } else if (!regexField(value, kind)) {
        ctx.addIssue({ code: "custom", message: `Invalid regular expression: ${regexSyntaxError(value!)}`, path: [field] });
      }
    }
  });

const name = z
  .string({ error: "This field is required." })
  .trim()
  .min(1, "This field may not be blank.")
  .max(ACTION_LIMITS.maxName, `Ensure this field has no more than ${ACTION_LIMITS.maxName} characters.`);
const description = z
  .string({ error: "Not a valid string." })
  .max(ACTION_LIMITS.maxDescription, `Ensure this field has no more than ${ACTION_LIMITS.maxDescription} characters.`)
  .nullish()
  .transform((value) => value ?? "");
const tags = z
  .array(z.string().trim().min(1).max(100), { error: "tags must be a list of strings." })
  .max(ACTION_LIMITS.maxTags)
  .nullish()
  .transform((value) => (value ? [...new Set(value)] : []));
const steps = z
  .array(actionStepSchema, { error: "steps must be a list of steps." })
  .max(ACTION_LIMITS.maxSteps, `An action has at most ${ACTION_LIMITS.maxSteps} steps.`);

/** `POST …/actions/`. Unknown and read-only fields are ignored, as DRF does. */
export const actionCreateBody = z.object({
  name,
  description,
  tags,
  post_to_slack: drfBoolean.optional().transform((value) => value ?? false),
  slack_message_format: z.string().max(ACTION_LIMITS.maxText).nullish().transform((value) => value ?? ""),
  steps: steps.nullish().transform((value) => value ?? []),
  pinned_at: z.iso.datetime({ offset: true, error: "pinned_at must be an ISO 8601 date." }).nullish(),
  creation_context: z.string().max(100).nullish(),
});
export type ActionCreateBody = z.output<typeof actionCreateBody>;
export type ActionCreateInput = z.input<typeof actionCreateBody>;

/** `PATCH …/actions/:id/`: the given fields change; `deleted: true` is the soft delete (DELETE is 405). */
export const actionUpdateBody = z.object({
  name: name.optional(),
  description: description.optional(),
  tags: tags.optional(),
  post_to_slack: drfBoolean.optional(),
  slack_message_format: z.string().max(ACTION_LIMITS.maxText).nullish(),
  steps: steps.optional(),
  pinned_at: z.iso.datetime({ offset: true, error: "pinned_at must be an ISO 8601 date." }).nullish(),
  deleted: drfBoolean.optional(),
});
export type ActionUpdateBody = z.output<typeof actionUpdateBody>;
export type ActionUpdateInput = z.input<typeof actionUpdateBody>;

export const actionListQuery = pageQuery.extend({
  search: z.string().max(400, "search must be at most 400 characters.").optional(),
});
export type ActionListQuery = z.output<typeof actionListQuery>;

const stepOut = z.object({
  event: z.string().nullable(),
  properties: z.array(z.unknown()).nullable(),
  selector: z.string().nullable(),
  selector_regex: z.string().nullable(),
  tag_name: z.string().nullable(),
  text: z.string().nullable(),
  text_matching: z.enum(STRING_MATCHING).nullable(),
  href: z.string().nullable(),
  href_matching: z.enum(STRING_MATCHING).nullable(),
  url: z.string().nullable(),
  url_matching: z.enum(STRING_MATCHING).nullable(),
});

/** An action as PostHog's API shows it (ActionSerializer); present.ts builds it. */
export const actionSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    post_to_slack: z.boolean(),
    slack_message_format: z.string(),
    steps: z.array(stepOut),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
    deleted: z.boolean(),
    is_calculating: z.literal(false),
    last_calculated_at: z.iso.datetime(),
    team_id: z.number().int(),
    is_action: z.literal(true),
    bytecode_error: z.null(),
    pinned_at: z.iso.datetime().nullable(),
    creation_context: z.string().nullable(),
    user_access_level: z.literal("editor"),
  })
  .meta({ id: "Action" });
export type ActionResource = z.infer<typeof actionSchema>;
