/**
 * Feature-flag management: list, create, retrieve, update and soft delete, with PostHog's
 * rules (posthog/api/feature_flag.py). Every write runs in one transaction with its
 * activity-log row, bumps `version` when something changed, and then drops the project's
 * cached flag definitions so /decide and /flags serve the change at once. These take the
 * request's Context; the SDK paths' rules at the end (remote config payloads, the keys
 * server SDKs present, survey flags) take the database, as no user acts there.
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { inTransaction, type DbClient, type Tx } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { setTags, tagNames } from "@/server/tags/service";
import { DUPLICATE_FLAG_KEY_MESSAGE, flagFiltersSchema, flagReference, REACH_SAMPLE, type CreateFlag, type FlagFilters, type FlagListQuery, type TestFlagInput, type UpdateFlag } from "./contract";
import { CohortIndex, flagCohortIds as flagCohortIdsOf, hasBehavioralLeaves } from "./cohorts";
import { evaluateFlagsForDistinctId } from "./decide";
import { invalidateFlagDefinitions, loadFlagDefinitions } from "./definitions";
import { flagHash } from "./evaluation";
import { estimateReach, type FlagReach } from "./reach";
import { storedFilters, toFlagResource, type FlagResource, type FlagRow } from "./present";
import * as store from "./store";
import type { ProjectFlag } from "./store";

const ACTIVITY_SCOPE = "FeatureFlag";

function notFound(): AppError {
  return new AppError("not_found", "Not found.");
}

function duplicateKey(): AppError {
  return new AppError("conflict", DUPLICATE_FLAG_KEY_MESSAGE, "key");
}

/** The live-key unique index (`feature_flags_project_id_key_live_key`) caught a concurrent create. */
function isDuplicateKeyViolation(error: unknown): boolean {
  const text = error instanceof Error ? `${(error as { code?: string }).code ?? ""} ${error.message}` : "";
  return text.includes("P2002") || text.includes("feature_flags_project_id_key_live_key");
}

/** `filters` checked by the shared schema; its issue paths are reported under `filters`. */
function parseFilters(input: unknown): FlagFilters {
  const result = flagFiltersSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new AppError("invalid_input", issue.message, ["filters", ...issue.path.map(String)].join("__"));
}

// ---------------------------------------------------------------------------
// Rules that need the project's other flags
// ---------------------------------------------------------------------------

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
async function checkReferences(tx: Tx, projectId: number, self: { id: number | null; key: string }, filters: FlagFilters): Promise<void> {
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

async function assertKeyFree(tx: Tx, projectId: number, key: string, exceptId: number | null): Promise<void> {
  if (await store.liveKeyTaken(tx, projectId, key, exceptId)) throw duplicateKey();
}

// ---------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------

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

/**
 * For the cohorts domain: a cohort changed (its conditions, static members, deletion), so
 * the project's flag definitions are rebuilt now rather than within the second the cache
 * otherwise takes.
 */
export function cohortsChanged(db: Database, projectId: number): Promise<void> {
  return invalidateFlagDefinitions(db, projectId);
}

/** The ids of the project's live, active flags whose conditions reach cohort `cohortId` (PostHog refuses deleting such a cohort). */
export async function activeFlagsUsingCohort(client: DbClient, projectId: number, cohortId: number): Promise<{ id: number; key: string }[]> {
  const [flags, { index }] = await Promise.all([store.liveFlags(client, projectId), cohortIndex(client, projectId)]);
  return flags
    .filter((flag) => flag.active && index.reachable(flagCohortIdsOf(storedFilters(flag.filters))).includes(cohortId))
    .map((flag) => ({ id: flag.id, key: flag.key }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

async function present(client: DbClient, projectId: number, rows: FlagRow[]): Promise<FlagResource[]> {
  const modifiers = await store.lastModifiers(
    client,
    projectId,
    ACTIVITY_SCOPE,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toFlagResource(row, modifiers.get(String(row.id)) ?? null));
}

async function flagOf(db: Database, projectId: number, id: number): Promise<FlagResource> {
  const row = await store.findFlag(db.prisma, projectId, id);
  if (!row) throw notFound();
  return (await present(db.prisma, projectId, [row]))[0]!;
}

/** One flag of the project, deleted ones included (PostHog retrieves them, with `deleted: true`). */
export function getFlag(ctx: Context, id: number): Promise<FlagResource> {
  return flagOf(ctx.db, ctx.project.id, id);
}

/**
 * The project's live flags, newest first unless `order` says otherwise, with PostHog's list
 * filters: `search` (key or name, case-insensitive), `active`, `type` (boolean or
 * multivariant; Burrow has no experiments or remote-config flags yet), `created_by_id`,
 * `tags` (any of) and `excluded_properties` (keys to leave out).
 */
export async function listFlags(ctx: Context, query: FlagListQuery): Promise<{ count: number; results: FlagResource[] }> {
  const { count, rows } = await store.listFlagRows(ctx.db, ctx.project.id, query, pageWindow(query));
  return { count, results: await present(ctx.db.prisma, ctx.project.id, rows) };
}

// ---------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------

/** A flag created without `filters` is on for everyone, as PostHog's legacy default. */
const DEFAULT_FILTERS: FlagFilters = {
  groups: [{ properties: [], rollout_percentage: null, variant: null }],
  multivariate: null,
  aggregation_group_type_index: null,
  payloads: {},
};

/** The fields the activity log compares. */
function tracked(flag: { key: string; name: string; filters: unknown; active: boolean; deleted: boolean; ensureExperienceContinuity: boolean }, tags: string[]) {
  return {
    key: flag.key,
    name: flag.name,
    filters: flag.filters,
    active: flag.active,
    deleted: flag.deleted,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    tags,
  };
}

async function writeTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await inTransaction(db, fn);
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isDuplicateKeyViolation(error)) throw duplicateKey();
    throw error;
  }
}

export async function createFlag(ctx: Context, input: CreateFlag): Promise<FlagResource> {
  const { db, actor } = ctx;
  const projectId = ctx.project.id;
  const filters = input.filters ?? DEFAULT_FILTERS;
  const id = await writeTransaction(db, async (tx) => {
    if (!input.deleted) await assertKeyFree(tx, projectId, input.key, null);
    await checkReferences(tx, projectId, { id: null, key: input.key }, filters);
    const flag = await store.insertFlag(tx, projectId, actor.id, {
      key: input.key,
      name: input.name,
      filters,
      active: input.active,
      deleted: input.deleted,
      ensureExperienceContinuity: input.ensure_experience_continuity,
    });
    if (input.tags.length > 0) await setTags(tx, projectId, { featureFlagId: flag.id }, input.tags);
    await logActivity(tx, {
      projectId,
      userId: actor.id,
      scope: ACTIVITY_SCOPE,
      itemId: flag.id,
      activity: "created",
      name: flag.key,
    });
    return flag.id;
  });
  await invalidateFlagDefinitions(db, projectId);
  return flagOf(db, projectId, id);
}

/**
 * PATCH: the given fields change; `deleted: true` is PostHog's soft delete and
 * `deleted: false` restores (if the key is still free). `filters` without `groups` is
 * merged into the current filters. Nothing changed: nothing is written, `version` stays.
 */
export async function updateFlag(ctx: Context, id: number, input: UpdateFlag): Promise<FlagResource> {
  const { db, actor } = ctx;
  const projectId = ctx.project.id;
  const changed = await writeTransaction(db, async (tx) => {
    const current = await store.findFlag(tx, projectId, id);
    if (!current) throw notFound();
    const currentFilters = storedFilters(current.filters);
    const filters = input.filters === undefined ? currentFilters : parseFilters("groups" in input.filters ? input.filters : { ...currentFilters, ...input.filters });
    const next = {
      key: input.key ?? current.key,
      name: input.name ?? current.name,
      filters,
      active: input.active ?? current.active,
      deleted: input.deleted ?? current.deleted,
      ensureExperienceContinuity: input.ensure_experience_continuity ?? current.ensureExperienceContinuity,
    };
    const currentTags = tagNames(current.taggedItems);
    const nextTags = input.tags ? [...input.tags].sort() : currentTags;
    const changes = changesBetween(tracked({ ...current, filters: currentFilters }, currentTags), tracked(next, nextTags));
    if (changes.length === 0) return false;

    if (!next.deleted && (next.key !== current.key || current.deleted)) await assertKeyFree(tx, projectId, next.key, id);
    if (input.filters !== undefined) await checkReferences(tx, projectId, { id, key: next.key }, filters);
    const deleting = next.deleted && !current.deleted;
    const disabling = !next.active && current.active && !next.deleted;
    if (deleting || disabling) {
      const dependents = await dependentsOf(tx, projectId, id);
      if (dependents.length > 0) {
        const verb = deleting ? "delete" : "disable";
        throw new AppError(
          "invalid_input",
          `Cannot ${verb} this feature flag because other flags depend on it: ${listed(dependents, 5)}. Please update or ${verb} the dependent flags first.`,
          deleting ? "deleted" : "active",
        );
      }
    }
    if (next.active && !next.deleted && (!current.active || input.filters !== undefined)) {
      const flags = await store.liveFlags(tx, projectId);
      const disabled = flags.filter((flag) => !flag.active && dependencyIds(filters).includes(flag.id)).sort((a, b) => a.key.localeCompare(b.key));
      if (disabled.length > 0) {
        throw new AppError(
          "invalid_input",
          `Cannot enable this feature flag because it depends on disabled flags: ${listed(disabled, 5)}. Please enable the dependency flags first.`,
          "active",
        );
      }
    }

    await store.updateFlagRow(tx, id, { ...next, version: current.version + 1 });
    if (input.tags) await setTags(tx, projectId, { featureFlagId: id }, input.tags);
    await logActivity(tx, {
      projectId,
      userId: actor.id,
      scope: ACTIVITY_SCOPE,
      itemId: id,
      activity: deleting ? "deleted" : current.deleted && !next.deleted ? "restored" : "updated",
      name: next.key,
      changes,
    });
    return true;
  });
  if (changed) await invalidateFlagDefinitions(db, projectId);
  return flagOf(db, projectId, id);
}

/** Soft delete (PostHog: PATCH `{"deleted": true}`). */
export function deleteFlag(ctx: Context, id: number): Promise<FlagResource> {
  return updateFlag(ctx, id, { deleted: true });
}

/** The activity log of one flag, newest first. */
export async function flagActivity(ctx: Context, id: number, limit = 20) {
  await getFlag(ctx, id);
  const entries = await store.flagActivityEntries(ctx.db.prisma, ctx.project.id, ACTIVITY_SCOPE, id, limit);
  return entries.map((entry) => ({
    id: entry.id,
    activity: entry.activity,
    detail: entry.detail,
    created_at: entry.createdAt.toISOString(),
    user: entry.user ? { email: entry.user.email, first_name: entry.user.firstName } : null,
  }));
}

// ---------------------------------------------------------------------------
// SDK paths (no actor: a project key or a secret key names the project)
// ---------------------------------------------------------------------------

/**
 * The stored JSON text of a live flag's `"true"` payload, or null; 404 when the project has
 * no live flag with that id or key. Digits are tried as an id first, then as a key (PostHog
 * takes digits only as an id, which hides flags whose key is a number).
 */
export async function remoteConfigPayload(db: Database, projectId: number, idOrKey: string): Promise<string | null> {
  const reference = flagReference.safeParse(idOrKey);
  if (!reference.success) throw notFound();
  const byId = /^\d{1,9}$/.test(idOrKey) ? Number(idOrKey) : null;
  const flags = await store.liveFlagsByIdOrKey(db.prisma, projectId, byId, idOrKey);
  const flag = (byId !== null && flags.find((candidate) => candidate.id === byId)) || flags.find((candidate) => candidate.key === idOrKey);
  if (!flag) throw notFound();
  const stored = (flag.filters as { payloads?: Record<string, unknown> } | null)?.payloads?.["true"];
  if (stored === undefined || stored === null || stored === "") return null;
  return typeof stored === "string" ? stored : JSON.stringify(stored);
}

/** The id of the project whose public key (`phc_…`) this is, or null. */
export function projectIdByToken(db: Database, token: string): Promise<number | null> {
  return store.projectIdByApiToken(db.prisma, token);
}

/** The project whose secret key (`phs_…`) hashes to `hash`, with its public key, or null. */
export function projectBySecretKeyHash(db: Database, hash: string): Promise<{ id: number; apiToken: string; secretApiTokenHash: string | null } | null> {
  return store.projectBySecretKeyHash(db.prisma, hash);
}

/** posthog-js asks with only_evaluate_survey_feature_flags for the flags surveys target. */
const SURVEY_FLAG_PREFIX = "survey-targeting-";

/** The project's survey-targeting flags, among `flagKeys` when given. */
export async function surveyFlagKeys(db: Database, projectId: number, flagKeys: readonly string[] | undefined): Promise<string[]> {
  const definitions = await loadFlagDefinitions(db, projectId);
  return definitions.flags.map((flag) => flag.key).filter((key) => key.startsWith(SURVEY_FLAG_PREFIX) && (!flagKeys || flagKeys.includes(key)));
}

/** Whether any of the project's flags is active (posthog-js's remote config `hasFeatureFlags`). */
export async function hasActiveFlags(db: Database, projectId: number): Promise<boolean> {
  const definitions = await loadFlagDefinitions(db, projectId);
  return definitions.flags.some((flag) => flag.active);
}

/**
 * The reach of condition sets over the project's persons ("Will match about X% of users"),
 * estimated as flags/reach.ts says. Person flags only: a group flag's reach is over groups.
 */
export async function flagReach(ctx: Context, filters: FlagFilters): Promise<FlagReach> {
  if (filters.aggregation_group_type_index !== null) throw new AppError("invalid_input", "The reach is estimated for flags on persons only.", "filters");
  const sample = await store.reachSample(ctx.db.sql, ctx.project.id, REACH_SAMPLE);
  const persons = sample.persons.map((person) => ({
    properties: (typeof person.properties === "string" ? JSON.parse(person.properties) : (person.properties ?? {})) as Record<string, unknown>,
    cohorts: new Set(person.cohorts ?? []),
  }));
  return estimateReach(filters.groups, { total: sample.total, persons });
}

/** Which condition set decided a test, and where the person's bucket fell against its rollout. */
export interface FlagTestWhy {
  conditionIndex: number;
  /** The set's own description, when it has one. */
  description: string | null;
  /** The set's filters, to name it by when it has no description. */
  properties: FlagFilters["groups"][number]["properties"];
  /** The rollout hash of the distinct id, 0–1 (null when the flag buckets by a group). */
  bucket: number | null;
  /** The set's rollout, 0–100. */
  rollout: number;
}

/**
 * "Test for a user": the saved flag's value for one distinct id, as /decide answers it, and
 * why — the condition set that decided and the person's bucket against its rollout.
 */
export async function testFlagForUser(ctx: Context, id: number, input: TestFlagInput) {
  const flag = await getFlag(ctx, id);
  const evaluation = await evaluateFlagsForDistinctId(ctx.db, ctx.project.id, {
    distinctId: input.distinctId!,
    personProperties: input.personProperties,
    groups: input.groups,
    groupProperties: input.groupProperties,
    flagKeys: [flag.key],
  });
  const result = evaluation.flags[flag.key] ?? null;
  let why: FlagTestWhy | null = null;
  const index = result?.reason.condition_index ?? null;
  const group = index === null ? undefined : flag.filters.groups[index];
  if (result && group && (result.reason.code === "condition_match" || result.reason.code === "out_of_rollout_bound")) {
    const byPerson = flag.filters.aggregation_group_type_index === null && (group as { aggregation_group_type_index?: number | null }).aggregation_group_type_index == null;
    // With experience continuity a person may be bucketed by an earlier id: the distinct id typed here is what is hashed otherwise.
    why = { conditionIndex: index!, description: group.description ?? null, properties: group.properties, bucket: byPerson ? flagHash(flag.key, input.distinctId!.trim()) : null, rollout: group.rollout_percentage ?? 100 };
  }
  return { flag: { id: flag.id, key: flag.key, deleted: flag.deleted }, result, why, errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags };
}
