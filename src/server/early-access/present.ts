/** An early-access feature as PostHog's API shows it, and as posthog-js's public list does. */
import type { EafResource, EarlyAccessStage, PublicEarlyAccessFeature } from "./contract";
import type { EafRow } from "./store";

export type { EafResource } from "./contract";

const objectOf = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

export function presentFeature(row: EafRow): EafResource {
  const flag = row.featureFlag;
  return {
    id: row.id,
    feature_flag: {
      id: flag.id,
      team_id: flag.projectId,
      name: flag.name,
      key: flag.key,
      filters: objectOf(flag.filters),
      deleted: flag.deleted,
      active: flag.active,
      ensure_experience_continuity: flag.ensureExperienceContinuity,
    },
    name: row.name,
    description: row.description,
    stage: row.stage as EarlyAccessStage,
    documentation_url: row.documentationUrl,
    payload: objectOf(row.payload),
    created_at: row.createdAt.toISOString(),
  };
}

export function presentPublicFeature(row: EafRow): PublicEarlyAccessFeature {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    stage: row.stage as EarlyAccessStage,
    documentationUrl: row.documentationUrl,
    flagKey: row.featureFlag.key,
    payload: objectOf(row.payload),
  };
}
