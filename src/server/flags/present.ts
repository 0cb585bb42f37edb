/**
 * A stored flag as PostHog's API shows it (FeatureFlagSerializer): the fields Burrow has,
 * with PostHog's derived ones (`is_simple_flag`, `rollout_percentage`) and the relations
 * Burrow does not have yet (experiments, surveys, early-access features) as empty lists.
 */
import type { z } from "zod";
import { toUserBasic } from "@/server/accounts/present";
import { tagNames } from "@/server/tags/service";
import type { FlagFilters } from "./contract";
import type { flagResourceSchema } from "./resource";

/** The answer's type, with the filters as Burrow's own type (the schema describes them more loosely). */
export type FlagResource = Omit<z.infer<typeof flagResourceSchema>, "filters"> & { filters: FlagFilters };

type UserRow = Parameters<typeof toUserBasic>[0];

export interface FlagRow {
  id: number;
  key: string;
  name: string;
  filters: unknown;
  active: boolean;
  deleted: boolean;
  ensureExperienceContinuity: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: UserRow | null;
  taggedItems: { tag: { name: string } }[];
}

/**
 * Stored filters read defensively (rows may predate validation or come from another
 * writer): missing parts take PostHog's defaults.
 */
export function storedFilters(value: unknown): FlagFilters {
  const filters = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as Partial<FlagFilters>;
  return {
    ...filters,
    groups: Array.isArray(filters.groups) ? filters.groups : [],
    multivariate: filters.multivariate ?? null,
    aggregation_group_type_index: filters.aggregation_group_type_index ?? null,
    payloads: filters.payloads ?? {},
  };
}

export function isSimpleFlag(filters: FlagFilters): boolean {
  return (
    filters.groups.length === 1 &&
    filters.groups.every((group) => (group.properties ?? []).length === 0) &&
    filters.aggregation_group_type_index === null
  );
}

export function toFlagResource(row: FlagRow, lastModifiedBy: UserRow | null): FlagResource {
  const filters = storedFilters(row.filters);
  const simple = isSimpleFlag(filters);
  return {
    id: row.id,
    name: row.name,
    key: row.key,
    filters,
    deleted: row.deleted,
    active: row.active,
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    version: row.version,
    last_modified_by: lastModifiedBy ? toUserBasic(lastModifiedBy) : null,
    ensure_experience_continuity: row.ensureExperienceContinuity,
    is_simple_flag: simple,
    rollout_percentage: simple ? (filters.groups[0]!.rollout_percentage ?? null) : null,
    tags: tagNames(row.taggedItems),
    experiment_set: [],
    surveys: [],
    features: [],
    can_edit: true,
  };
}
