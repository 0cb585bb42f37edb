/**
 * A flag as the management API answers it (PostHog's FeatureFlagSerializer): the schema the
 * OpenAPI document publishes and present.ts builds. Apart from contract.ts, which holds what
 * comes in and is long enough.
 */
import { z } from "zod";
import { userBasicSchema } from "@/server/accounts/contract";

const conditionProperty = z.looseObject({
  key: z.string(),
  value: z.unknown().optional(),
  operator: z.string().nullish(),
  type: z.string(),
});

/** Stored filters, normalised: payloads as JSON text by variant (`"true"` for a boolean flag), `multivariate` null for boolean flags. */
export const flagFiltersResourceSchema = z
  .looseObject({
    groups: z.array(
      z.looseObject({
        properties: z.array(conditionProperty).optional(),
        rollout_percentage: z.number().nullable().optional(),
        variant: z.string().nullish(),
        description: z.string().nullish(),
      }),
    ),
    multivariate: z.object({ variants: z.array(z.looseObject({ key: z.string(), name: z.string().nullish(), rollout_percentage: z.number() })) }).nullable(),
    aggregation_group_type_index: z.number().int().nullable(),
    payloads: z.record(z.string(), z.string()),
  })
  .meta({ id: "FeatureFlagFilters" });

export const flagResourceSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    key: z.string(),
    filters: flagFiltersResourceSchema,
    deleted: z.boolean(),
    active: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    version: z.number().int(),
    last_modified_by: userBasicSchema.nullable(),
    ensure_experience_continuity: z.boolean(),
    /** One condition set without properties on a person flag: SDKs can decide it alone. */
    is_simple_flag: z.boolean(),
    /** The rollout of a simple flag (null: everyone); null for other flags. */
    rollout_percentage: z.number().nullable(),
    tags: z.array(z.string()),
    /** What uses the flag: its experiments' ids, its linked surveys (as SDKs see them) and its early-access features (as the public endpoint shows them). */
    experiment_set: z.array(z.number().int()),
    surveys: z.array(z.unknown()),
    features: z.array(z.unknown()),
    can_edit: z.boolean(),
  })
  .meta({ id: "FeatureFlag" });
