/**
 * What a flag's conditions point at — the project's cohorts and its other flags — and the
 * rules that follow (PostHog's posthog/api/feature_flag.py): a cohort must be live and
 * evaluable without events, a flag dependency live, active and acyclic; a flag others depend
 * on cannot be deleted or disabled, nor one enabled that depends on a disabled flag. Also the
 * flag editor's cohort picker and, for the cohorts domain, the flags that use a cohort.
 */
import type { Context } from "@/server/context";
import type { DbClient, Tx } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import type { FlagFilters } from "./contract";
import { CohortIndex, flagCohortIds as flagCohortIdsOf, hasBehavioralLeaves } from "./cohorts";
import { storedFilters } from "./present";
import * as store from "./store";
import type { ProjectFlag } from "./store";

interface PropertyAt {
  type: string;
  key: string;
  value: unknown;
  /** `attr` of the property, e.g. filters__groups__0__properties__1 */
  attr: string;
}

function propertiesOf(filters: FlagFilters): PropertyAt[] {
  return filters.groups.flatMap((group, groupIndex) =>
    (group.properties ?? []).map((property, propertyIndex) => ({
      type: property.type,
      key: property.key,
      value: property.value,
      attr: `filters__groups__${groupIndex}__properties__${propertyIndex}`,
    })),
  );
}

/** The ids of the flags a flag's `flag` conditions depend on (PostHog stores the id as the key). */
function dependencyIds(filters: unknown): number[] {
  return propertiesOf(storedFilters(filters))
    .filter((property) => property.type === "flag" && /^\d+$/.test(property.key))
    .map((property) => Number(property.key));
}

function listed(flags: ProjectFlag[], limit: number): string {
  const names = flags.slice(0, limit).map((flag) => `${flag.key} (ID: ${flag.id})`);
  if (flags.length > limit) names.push(`and ${flags.length - limit} more`);
  return names.join(", ");
}

/** The project's live cohorts, compiled (cohorts.ts), for the rules below and the editor's picker. */
async function cohortIndex(client: DbClient, projectId: number) {
  const rows = await store.liveCohorts(client, projectId);
  return { rows, index: new CohortIndex(rows.map((row) => ({ id: row.id, name: row.name, filters: row.filters, is_static: row.isStatic }))) };
}

/** The first cohort `id` reaches (itself included) whose events filters a flag cannot evaluate; static cohorts are lists, never evaluated. */
function behavioralCohort(index: CohortIndex, id: number): { id: number; name: string } | null {
  for (const reached of index.reachable([id])) {
    const row = index.row(reached)!;
    if (!row.is_static && hasBehavioralLeaves(index.tree(reached))) return { id: reached, name: row.name };
  }
  return null;
}

/**
 * Cohort and flag conditions point at other objects: a cohort must be a live cohort of the
 * project whose conditions (and those of the cohorts it names) are person properties, not
 * events (PostHog's `cohort_does_not_exist` and `behavioral_cohort_found`, reported on
 * `filters` as PostHog does); a flag must be a live, active flag of the project, not the flag
 * itself, and not depend back on it.
 */
export async function checkReferences(tx: Tx, projectId: number, self: { id: number | null; key: string }, filters: FlagFilters): Promise<void> {
  const properties = propertiesOf(filters);
  const cohortReferences = properties.filter((property) => property.type === "cohort");
  if (cohortReferences.length > 0) {
    const { index } = await cohortIndex(tx, projectId);
    for (const reference of cohortReferences) {
      const id = Number(reference.value);
      if (!Number.isSafeInteger(id) || !index.row(id)) {
        throw new AppError("invalid_input", `Cohort with id ${String(reference.value)} does not exist`, "filters", { code: "cohort_does_not_exist" });
      }
      const behavioral = behavioralCohort(index, id);
      if (behavioral) {
        throw new AppError("invalid_input", `Cohort '${behavioral.name}' with filters on events cannot be used in feature flags.`, "filters", { code: "behavioral_cohort_found" });
      }
    }
  }
  const references = properties.filter((property) => property.type === "flag");
  if (references.length === 0) return;
  const flags = await store.liveFlags(tx, projectId);
  const byId = new Map(flags.map((flag) => [flag.id, flag]));
  for (const reference of references) {
    const attr = `${reference.attr}__key`;
    if (!/^\d+$/.test(reference.key)) {
      throw new AppError("invalid_input", `Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${reference.key}'`, attr);
    }
    const id = Number(reference.key);
    if (id === self.id) throw new AppError("invalid_input", `Feature flag '${self.key}' cannot depend on itself`, attr);
    const target = byId.get(id);
    if (!target) throw new AppError("invalid_input", `Flag dependency references non-existent flag with ID ${id}`, attr);
    if (!target.active) {
      throw new AppError(
        "invalid_input",
        `Cannot create dependency on disabled flag '${target.key}' (ID: ${id}). Flag dependencies must reference active flags only.`,
        attr,
      );
    }
    if (self.id !== null) {
      const cycle = pathTo(target.id, self.id, byId, [self.key]);
      if (cycle) throw new AppError("invalid_input", `Circular dependency detected: ${[...cycle, self.key].join(" → ")}`, attr);
    }
  }
}

/** The keys on a dependency path from `from` to `to`, if one exists (depth-first). */
function pathTo(from: number, to: number, byId: Map<number, ProjectFlag>, path: string[], seen = new Set<number>()): string[] | null {
  const flag = byId.get(from);
  if (!flag || seen.has(from)) return null;
  seen.add(from);
  const here = [...path, flag.key];
  for (const next of dependencyIds(flag.filters)) {
    if (next === to) return here;
    const found = pathTo(next, to, byId, here, seen);
    if (found) return found;
  }
  return null;
}

/** Active flags whose conditions depend on flag `id`. */
async function dependentsOf(tx: Tx, projectId: number, id: number): Promise<ProjectFlag[]> {
  const flags = await store.liveFlags(tx, projectId);
  return flags.filter((flag) => flag.id !== id && flag.active && dependencyIds(flag.filters).includes(id)).sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * A flag being deleted or disabled must have no active dependents; one left active whose
 * conditions changed, or being enabled, must depend on no disabled flag.
 */
export async function checkDependencyStates(
  tx: Tx,
  projectId: number,
  id: number,
  change: { deleting: boolean; disabling: boolean; activeWith: FlagFilters | null },
): Promise<void> {
  if (change.deleting || change.disabling) {
    const dependents = await dependentsOf(tx, projectId, id);
    if (dependents.length > 0) {
      const verb = change.deleting ? "delete" : "disable";
      throw new AppError(
        "invalid_input",
        `Cannot ${verb} this feature flag because other flags depend on it: ${listed(dependents, 5)}. Please update or ${verb} the dependent flags first.`,
        change.deleting ? "deleted" : "active",
      );
    }
  }
  if (change.activeWith) {
    const dependencies = dependencyIds(change.activeWith);
    const flags = await store.liveFlags(tx, projectId);
    const disabled = flags.filter((flag) => !flag.active && dependencies.includes(flag.id)).sort((a, b) => a.key.localeCompare(b.key));
    if (disabled.length > 0) {
      throw new AppError(
        "invalid_input",
        `Cannot enable this feature flag because it depends on disabled flags: ${listed(disabled, 5)}. Please enable the dependency flags first.`,
        "active",
      );
    }
  }
}

/** A cohort the flag editor offers; `disabledReason` says why a flag cannot use it. */
export interface CohortOption {
  id: number;
  name: string;
  is_static: boolean;
  count: number | null;
  disabledReason: string | null;
}

/** The project's live cohorts for the flag editor's cohort picker, by name. */
export async function cohortOptions(ctx: Context): Promise<CohortOption[]> {
  const { rows, index } = await cohortIndex(ctx.db.prisma, ctx.project.id);
  return rows.map((row) => {
    const behavioral = behavioralCohort(index, row.id);
    const disabledReason = !behavioral
      ? null
      : behavioral.id === row.id
        ? "Has filters on events, which feature flags cannot use."
        : `Uses cohort '${behavioral.name}', which has filters on events, which feature flags cannot use.`;
    return { id: row.id, name: row.name, is_static: row.isStatic, count: row.count, disabledReason };
  });
}

/** The ids of the project's live, active flags whose conditions reach cohort `cohortId` (PostHog refuses deleting such a cohort). */
export async function activeFlagsUsingCohort(client: DbClient, projectId: number, cohortId: number): Promise<{ id: number; key: string }[]> {
  const [flags, { index }] = await Promise.all([store.liveFlags(client, projectId), cohortIndex(client, projectId)]);
  return flags
    .filter((flag) => flag.active && index.reachable(flagCohortIdsOf(storedFilters(flag.filters))).includes(cohortId))
    .map((flag) => ({ id: flag.id, key: flag.key }))
    .sort((a, b) => a.key.localeCompare(b.key));
}
