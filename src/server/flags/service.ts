/**
 * Feature-flag management: list, create, retrieve, update and soft delete, with PostHog's
 * rules (posthog/api/feature_flag.py). Every write runs in one transaction with its
 * activity-log row, bumps `version` when something changed, and then drops the project's
 * cached flag definitions so /decide and /flags serve the change at once. These take the
 * request's Context; the SDK paths' rules at the end (remote config payloads, the keys
 * server SDKs present, survey flags) take the database, as no user acts there. What a
 * flag's conditions may point at (cohorts, other flags) is checked in references.ts.
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import { requireScopeOf } from "@/server/auth/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { inTransaction, isUniqueViolation, type DbClient, type Tx } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { setTags, tagNames } from "@/server/tags/service";
import { DUPLICATE_FLAG_KEY_MESSAGE, flagFiltersSchema, flagReference, REACH_SAMPLE, type CreateFlag, type FlagFilters, type FlagListQuery, type TestFlagInput, type UpdateFlag } from "./contract";
import { evaluateFlagsForDistinctId } from "./decide";
import { invalidateFlagDefinitions, loadFlagDefinitions } from "./definitions";
import { explainEvaluation } from "./explain";
import { estimateReach, type FlagReach } from "./reach";
import { storedFilters, toFlagResource, type FlagResource, type FlagRow } from "./present";
import { checkDependencyStates, checkReferences } from "./references";
import * as store from "./store";

export { activeFlagsUsingCohort, cohortOptions, type CohortOption } from "./references";

const ACTIVITY_SCOPE = "FeatureFlag";

function notFound(): AppError {
  return new AppError("not_found", "Not found.");
}

function duplicateKey(): AppError {
  return new AppError("conflict", DUPLICATE_FLAG_KEY_MESSAGE, "key");
}

/** The live-key unique index caught a concurrent create. */
function isDuplicateKeyViolation(error: unknown): boolean {
  return isUniqueViolation(error, "feature_flags_project_id_key_live_key");
}

/** `filters` checked by the shared schema; its issue paths are reported under `filters`. */
function parseFilters(input: unknown): FlagFilters {
  const result = flagFiltersSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new AppError("invalid_input", issue.message, ["filters", ...issue.path.map(String)].join("__"));
}

async function assertKeyFree(tx: Tx, projectId: number, key: string, exceptId: number | null): Promise<void> {
  if (await store.liveKeyTaken(tx, projectId, key, exceptId)) throw duplicateKey();
}

// ---------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------

/**
 * For the cohorts domain: a cohort changed (its conditions, static members, deletion), so
 * the project's flag definitions are rebuilt now rather than within the second the cache
 * otherwise takes.
 */
export function cohortsChanged(db: Database, projectId: number): Promise<void> {
  return invalidateFlagDefinitions(db, projectId);
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

/**
 * Surveys, early-access features and experiments change the flags they create as part of
 * their own writes; a flag someone else made (named by id or key) is changed only by a
 * caller who may write flags, so a key scoped to surveys cannot reshape any flag of the project.
 */
export function requireFlagWrite(ctx: Context): void {
  requireScopeOf(ctx.scopes, "feature_flag:write");
}

/** One flag of the project, deleted ones included (PostHog retrieves them, with `deleted: true`). */
export function getFlag(ctx: Context, id: number): Promise<FlagResource> {
  return flagOf(ctx.db, ctx.project.id, id);
}

/** The project's live flag with this key, or null (experiments adopt an existing flag by key). */
export async function liveFlagByKey(ctx: Context, key: string): Promise<FlagResource | null> {
  const [row] = await store.liveFlagsByIdOrKey(ctx.db.prisma, ctx.project.id, null, key);
  return row ? flagOf(ctx.db, ctx.project.id, row.id) : null;
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

/** Who writes a flag: a person (their request's context), or Burrow itself on a schedule (no user, as PostHog's system writes). */
interface FlagWriter {
  db: Database;
  projectId: number;
  /** The activity log's user; null for Burrow itself. */
  userId: number | null;
  /** The new flag's `created_by`. */
  createdById: number | null;
}
const writerOf = (ctx: Context): FlagWriter => ({ db: ctx.db, projectId: ctx.project.id, userId: ctx.actor.id, createdById: ctx.actor.id });

export function createFlag(ctx: Context, input: CreateFlag): Promise<FlagResource> {
  return createFlagBy(writerOf(ctx), input);
}

/** A write Burrow makes itself (a survey's iteration schedule): the activity log names no user. */
export function createFlagAsSystem(db: Database, projectId: number, createdById: number | null, input: CreateFlag): Promise<FlagResource> {
  return createFlagBy({ db, projectId, userId: null, createdById }, input);
}

async function createFlagBy({ db, projectId, userId, createdById }: FlagWriter, input: CreateFlag): Promise<FlagResource> {
  const filters = input.filters ?? DEFAULT_FILTERS;
  const id = await writeTransaction(db, async (tx) => {
    if (!input.deleted) await assertKeyFree(tx, projectId, input.key, null);
    await checkReferences(tx, projectId, { id: null, key: input.key }, filters);
    const flag = await store.insertFlag(tx, projectId, createdById, {
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
      userId,
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
export function updateFlag(ctx: Context, id: number, input: UpdateFlag): Promise<FlagResource> {
  return updateFlagBy(writerOf(ctx), id, input);
}

/** A change Burrow makes itself (a survey's next iteration, a survey ended by its schedule): the activity log names no user. */
export function updateFlagAsSystem(db: Database, projectId: number, id: number, input: UpdateFlag): Promise<FlagResource> {
  return updateFlagBy({ db, projectId, userId: null, createdById: null }, id, input);
}

async function updateFlagBy({ db, projectId, userId }: FlagWriter, id: number, input: UpdateFlag): Promise<FlagResource> {
  const changed = await writeTransaction(db, async (tx) => {
    const current = await store.findFlag(tx, projectId, id);
    if (!current) throw notFound();
    const currentFilters = storedFilters(current.filters);
    const filters = input.filters === undefined ? currentFilters : parseFilters("groups" in input.filters ? input.filters : { ...currentFilters, ...input.filters });
    // An early-access feature's enrolment condition survives edits that do not name it.
    if (input.filters !== undefined && !("super_groups" in input.filters) && currentFilters.super_groups) {
      filters.super_groups = currentFilters.super_groups;
      if (currentFilters.feature_enrollment) filters.feature_enrollment = true;
    }
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
    const activeWith = next.active && !next.deleted && (!current.active || input.filters !== undefined) ? filters : null;
    await checkDependencyStates(tx, projectId, id, { deleting, disabling, activeWith });

    await store.updateFlagRow(tx, id, { ...next, version: current.version + 1 });
    if (input.tags) await setTags(tx, projectId, { featureFlagId: id }, input.tags);
    await logActivity(tx, {
      projectId,
      userId,
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

/** Evaluations run while warming up, at most, and for at most this long in all (see warmFlags). */
const WARM_EVALUATIONS = 2_000;
const WARM_EVALUATIONS_MS = 250;
const WARM_CONCURRENCY = 50;

/**
 * Before the server says ready: every project's flag definitions loaded, their cohorts
 * compiled and evaluations run through, so the first /decide requests pay for none of it.
 * Evaluations of visitors never seen, a bounded number: run once, the evaluation is still
 * V8's interpreted code, several times slower, and a fresh server at 1,000 /decide a second
 * spent its first second behind (issue 31: event-loop stalls of 100–270 ms there, none with these).
 */
export async function warmFlags(db: Database): Promise<void> {
  const projects = await store.projectsWithFlags(db.prisma);
  for (const projectId of projects) {
    const definitions = await loadFlagDefinitions(db, projectId);
    for (const id of definitions.cohorts.ids()) definitions.cohorts.test(id);
    await evaluateFlagsForDistinctId(db, projectId, { distinctId: "$burrow_warm_up" });
  }
  if (projects.length === 0) return;
  const started = performance.now();
  for (let done = 0; done < WARM_EVALUATIONS && performance.now() - started < WARM_EVALUATIONS_MS; done += WARM_CONCURRENCY) {
    const projectId = projects[(done / WARM_CONCURRENCY) % projects.length]!;
    await Promise.all(Array.from({ length: WARM_CONCURRENCY }, (_, i) => evaluateFlagsForDistinctId(db, projectId, { distinctId: `$burrow_warm_up_${done + i}` })));
  }
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

/**
 * The group types the test box asks a key of: those the flag, or one of its condition sets,
 * aggregates by, with their names (null: no group of that type has been sent yet).
 */
export async function flagTestGroupTypes(ctx: Context, id: number): Promise<{ index: number; name: string | null }[]> {
  const flag = await getFlag(ctx, id);
  const { groupTypeMapping } = await loadFlagDefinitions(ctx.db, ctx.project.id);
  const flagLevel = flag.filters.aggregation_group_type_index;
  const indexes = new Set<number>();
  if (flagLevel !== null) indexes.add(flagLevel);
  for (const group of flag.filters.groups) {
    const own = (group as { aggregation_group_type_index?: number | null }).aggregation_group_type_index;
    if (typeof own === "number") indexes.add(own);
  }
  return [...indexes].sort((a, b) => a - b).map((index) => ({ index, name: groupTypeMapping[String(index)] ?? null }));
}

/** Which condition set decided a test, and where its subject's bucket fell against its rollout. */
export interface FlagTestWhy {
  conditionIndex: number;
  /** The set's own description, when it has one. */
  description: string | null;
  /** The set's filters, to name it by when it has no description. */
  properties: FlagFilters["groups"][number]["properties"];
  /** The rollout hash of the id the set buckets by (the person's, or its group's key), 0–1. */
  bucket: number;
  /** The set's rollout, 0–100. */
  rollout: number;
}

/**
 * "Test for a user": the saved flag's value for one distinct id (and the groups given), as
 * /decide answers it, and why — the condition set that decided, and where the hashes of the id
 * evaluation bucketed by fell against its rollout, variants and holdout.
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
  // The definition evaluated, as evaluated (the project's loaded definitions)
  const definition = evaluation.context?.flagsByKey?.get(flag.key);
  const explained = result && definition && evaluation.context ? explainEvaluation(definition, evaluation.context, result) : null;
  const index = result?.reason.condition_index ?? null;
  const group = index === null ? undefined : flag.filters.groups[index];
  const why: FlagTestWhy | null =
    group && explained?.rollout ? { conditionIndex: index!, description: group.description ?? null, properties: group.properties, bucket: explained.rollout.hash, rollout: explained.rollout.rollout } : null;
  const { bucketedBy = null, variant = null, holdout = null } = explained ?? {};
  return { flag: { id: flag.id, key: flag.key, deleted: flag.deleted }, result, why, bucketedBy, variant, holdout, errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags };
}
