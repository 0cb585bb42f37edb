/**
 * A cohort as PostHog's API shows it (`CohortSerializer`), from its stored row.
 */
import { toUserBasic } from "@/server/accounts/present";
import { hasBehavioralFilters, type CohortResource, type CohortType } from "./contract";

export type { CohortResource, CohortType } from "./contract";
import type { CohortRow } from "./store";
import { storedTree } from "./stored-filters";

/** PostHog's `cohort_type`: static, or by what the definition reads. */
export function cohortTypeOf(row: Pick<CohortRow, "isStatic" | "filters">): CohortType {
  if (row.isStatic) return "static";
  const tree = storedTree(row.filters);
  return tree && hasBehavioralFilters(tree) ? "behavioral" : "person_property";
}

export function presentCohort(row: CohortRow): CohortResource {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    groups: [],
    deleted: row.deleted,
    filters: (row.filters ?? {}) as Record<string, unknown>,
    query: null,
    is_calculating: row.isCalculating,
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    created_at: row.createdAt.toISOString(),
    last_calculation: row.lastCalculation?.toISOString() ?? null,
    errors_calculating: row.errorsCalculating,
    last_error: row.lastError,
    count: row.count,
    is_static: row.isStatic,
    cohort_type: cohortTypeOf(row),
    experiment_set: [],
  };
}
