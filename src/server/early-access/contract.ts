/**
 * Request and answer shapes of early-access features (`/api/projects/:id/early_access_features/`
 * and the public `/api/early_access_features/?token=`), with PostHog's fields
 * (products/early_access_features/backend/api.py). Browser-safe: the page imports it.
 */
import { z } from "zod";
import { pageQuery } from "@/server/input/page";

export const EAF_STAGES = ["draft", "concept", "alpha", "beta", "general-availability", "archived"] as const;
export type EarlyAccessStage = (typeof EAF_STAGES)[number];

/** The stages a person can opt into: their flag carries the enrolment super condition. */
export const RELEASE_STAGES: readonly EarlyAccessStage[] = ["concept", "alpha", "beta", "general-availability"];
export const isReleaseStage = (stage: string) => (RELEASE_STAGES as readonly string[]).includes(stage);

/** The person property posthog-js `$set`s on opt-in or out (`updateEarlyAccessFeatureEnrollment`). */
export const enrollmentProperty = (flagKey: string) => `$feature_enrollment/${flagKey}`;

export const EAF_LIMITS = { maxName: 200, maxDescription: 10_000, maxUrl: 800, maxPayloadBytes: 64_000 } as const;

const stage = z.enum(EAF_STAGES, { error: (issue) => `"${String(issue.input)}" is not a valid choice.` });
const name = z
  .string({ error: "This field is required." })
  .trim()
  .min(1, "This field may not be blank.")
  .max(EAF_LIMITS.maxName, `Ensure this field has no more than ${EAF_LIMITS.maxName} characters.`);
const description = z.string({ error: "Not a valid string." }).max(EAF_LIMITS.maxDescription).nullish().transform((value) => value ?? "");
const documentationUrl = z
  .string({ error: "Not a valid string." })
  .max(EAF_LIMITS.maxUrl, `Ensure this field has no more than ${EAF_LIMITS.maxUrl} characters.`)
  .refine((value) => value === "" || /^https?:\/\/[^\s]+$/i.test(value), "Enter a valid URL.")
  .nullish()
  .transform((value) => value ?? "");
const payload = z
  .record(z.string(), z.unknown(), { error: "payload must be a JSON object." })
  .refine((value) => JSON.stringify(value).length <= EAF_LIMITS.maxPayloadBytes, `payload is at most ${EAF_LIMITS.maxPayloadBytes} bytes of JSON.`)
  .nullish()
  .transform((value) => value ?? {});

/** `POST …/early_access_features/`. Without `feature_flag_id` a flag is created with it. */
export const eafCreateBody = z.object({
  name,
  description,
  stage,
  documentation_url: documentationUrl,
  payload,
  feature_flag_id: z.number({ error: "feature_flag_id must be an integer." }).int().min(1).max(2_147_483_647).nullish(),
});
export type EafCreateBody = z.output<typeof eafCreateBody>;
export type EafCreateInput = z.input<typeof eafCreateBody>;

/** `PATCH …/early_access_features/:id/`: the given fields change; a stage change moves the enrolment condition. */
export const eafUpdateBody = z.object({
  name: name.optional(),
  description: description.optional(),
  stage: stage.optional(),
  documentation_url: documentationUrl.optional(),
  payload: payload.optional(),
});
export type EafUpdateBody = z.output<typeof eafUpdateBody>;
export type EafUpdateInput = z.input<typeof eafUpdateBody>;

export const eafListQuery = pageQuery.extend({ stage: stage.optional() });
export type EafListQuery = z.output<typeof eafListQuery>;

/** The public list's stages: `stage=` repeated; PostHog's default is `beta`. */
export const publicStagesSchema = z.array(stage).max(EAF_STAGES.length * 4).transform((stages) => (stages.length > 0 ? [...new Set(stages)] : (["beta"] as EarlyAccessStage[])));

const minimalFlag = z.object({
  id: z.number().int(),
  team_id: z.number().int(),
  name: z.string(),
  key: z.string(),
  filters: z.record(z.string(), z.unknown()),
  deleted: z.boolean(),
  active: z.boolean(),
  ensure_experience_continuity: z.boolean(),
});

/** An early-access feature as PostHog's API shows it (EarlyAccessFeatureSerializer). */
export const eafSchema = z
  .object({
    id: z.uuid(),
    feature_flag: minimalFlag,
    name: z.string(),
    description: z.string(),
    stage: z.enum(EAF_STAGES),
    documentation_url: z.string(),
    payload: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "EarlyAccessFeature" });
export type EafResource = z.infer<typeof eafSchema>;

/** One feature in the public list posthog-js reads (`getEarlyAccessFeatures`). */
export interface PublicEarlyAccessFeature {
  id: string;
  name: string;
  description: string;
  stage: EarlyAccessStage;
  documentationUrl: string;
  flagKey: string;
  payload: Record<string, unknown>;
}

/** A person who opted in, for the feature's page. */
export interface EnrolledPerson {
  uuid: string;
  distinct_id: string;
  name: string;
}
