/**
 * Cohorts: PostHog's cohort rules (posthog/api/cohort.py) over the store. A dynamic cohort's
 * members are computed in the background by `worker.ts`, which a write here kicks.
 *
 * The rows of `cohort_people` ARE a cohort's members, static or dynamic: other domains read
 * them directly.
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { activeFlagsUsingCohort, cohortsChanged } from "@/server/flags/service";
import { pageWindow } from "@/server/input/page";
import { presentPersonListItem, type PersonListItem } from "@/server/persons/present";
import type { PropertyGroup } from "@/server/properties/contract";
import {
  COHORT_CYCLE_MESSAGE,
  COHORT_LIMITS,
  hasBehavioralFilters,
  referencedCohortIds,
  type AddPersonsBody,
  type CohortCreateBody,
  type CohortListQuery,
  type CohortPersonsQuery,
  type CohortUpdateBody,
  type RemovePersonBody,
} from "./contract";
import { csvIds } from "./csv";
import { presentCohort, type CohortResource } from "./present";
import * as store from "./store";
import { EMPTY_TREE, storedTree } from "./stored-filters";
import { enqueueComputation } from "./worker";

const ACTIVITY_SCOPE = "Cohort";
const notFound = () => new AppError("not_found", "Not found.");

async function cohortOf(db: Database, projectId: number, id: number): Promise<CohortResource> {
  const row = await store.findCohort(db.prisma, projectId, id);
  if (!row) throw notFound();
  return presentCohort(row);
}

/** One cohort, deleted ones included (PostHog retrieves them). */
export function getCohort(ctx: Context, id: number): Promise<CohortResource> {
  return cohortOf(ctx.db, ctx.project.id, id);
}

/** The project's cohorts, newest first, with PostHog's list filters. */
export async function listCohorts(ctx: Context, query: CohortListQuery): Promise<{ count: number; results: CohortResource[] }> {
  let rows = await store.listCohortRows(ctx.db.prisma, ctx.project.id, query);
  if (query.hide_behavioral_cohorts) {
    // Behavioral cohorts, and those that nest one (at any depth), are left out.
    const behavioral = new Set(rows.filter((row) => hasBehavioralFilters(storedTree(row.filters) ?? EMPTY_TREE)).map((row) => row.id));
    const refs = new Map(rows.map((row) => [row.id, referencedCohortIds(storedTree(row.filters) ?? EMPTY_TREE)]));
    let grew = true;
    while (grew) {
      grew = false;
      for (const [id, named] of refs) {
        if (!behavioral.has(id) && named.some((other) => behavioral.has(other))) {
          behavioral.add(id);
          grew = true;
        }
      }
    }
    rows = rows.filter((row) => !behavioral.has(row.id));
  }
  const { take, skip } = pageWindow(query);
  return { count: rows.length, results: rows.slice(skip, skip + take).map(presentCohort) };
}

// ---------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------

/**
 * The cohorts `tree` names must exist in the project (not deleted), and following them must
 * never lead back to `selfId` nor nest deeper than COHORT_LIMITS.maxNesting.
 */
async function checkReferences(db: Database, projectId: number, selfId: number | null, tree: PropertyGroup): Promise<void> {
  let frontier = referencedCohortIds(tree);
  if (selfId !== null && frontier.includes(selfId)) throw new AppError("invalid_input", COHORT_CYCLE_MESSAGE, "filters");
  const seen = new Set<number>();
  for (let depth = 0; frontier.length > 0; depth++) {
    if (depth >= COHORT_LIMITS.maxNesting) throw new AppError("invalid_input", `Cohorts nest at most ${COHORT_LIMITS.maxNesting} deep.`, "filters");
    const definitions = await store.cohortDefinitions(db.prisma, projectId, frontier);
    if (depth === 0) {
      const missing = frontier.find((id) => !definitions.some((definition) => definition.id === id && !definition.deleted));
      if (missing !== undefined) throw new AppError("invalid_input", `Cohort with id ${missing} does not exist.`, "filters");
    }
    frontier.forEach((id) => seen.add(id));
    const next = new Set<number>();
    for (const definition of definitions) {
      if (definition.isStatic) continue;
      for (const id of referencedCohortIds(storedTree(definition.filters) ?? EMPTY_TREE)) {
        if (id === selfId) throw new AppError("invalid_input", COHORT_CYCLE_MESSAGE, "filters");
        if (!seen.has(id)) next.add(id);
      }
    }
    frontier = [...next];
  }
}

/** What the activity log compares. */
function tracked(cohort: { name: string; description: string; isStatic: boolean; filters: unknown; deleted: boolean }) {
  return { name: cohort.name, description: cohort.description, is_static: cohort.isStatic, filters: cohort.filters, deleted: cohort.deleted };
}

/** Ids from a CSV file, read before anything is written (a bad file must not leave a cohort behind). */
async function idsOfCsv(csv: Uint8Array | null | undefined, isStatic: boolean) {
  if (!csv) return null;
  if (!isStatic) throw new AppError("invalid_input", "A CSV file can only be uploaded to a static cohort (is_static: true).", "csv");
  return csvIds(csv);
}

/**
 * A new cohort (PostHog's create): a dynamic one is marked calculating and computed in the
 * background; a static one takes its members from `_create_static_person_ids` and/or an
 * uploaded CSV at once.
 */
export async function createCohort(ctx: Context, body: CohortCreateBody, csv?: Uint8Array | null): Promise<CohortResource> {
  const { db, actor } = ctx;
  const projectId = ctx.project.id;
  const fromCsv = await idsOfCsv(csv, body.is_static);
  const filters = body.is_static ? {} : (body.filters ?? { properties: EMPTY_TREE });
  if (!body.is_static) await checkReferences(db, projectId, null, (filters as { properties: PropertyGroup }).properties);
  const id = await inTransaction(db, async (tx) => {
    const id = await store.insertCohort(tx, projectId, actor.id, {
      name: body.name,
      description: body.description,
      isStatic: body.is_static,
      filters,
      deleted: false,
      isCalculating: !body.is_static,
    });
    if (body.is_static) await store.updateCohortRow(tx, id, { count: 0, computedVersion: 1 });
    await logActivity(tx, { projectId, userId: actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
    return id;
  });
  if (body.is_static) {
    if (body._create_static_person_ids?.length) await store.addStaticMembers(db, projectId, id, "person_id", body._create_static_person_ids);
    if (fromCsv) await store.addStaticMembers(db, projectId, id, fromCsv.kind, fromCsv.ids);
  } else {
    enqueueComputation(id);
  }
  return cohortOf(db, projectId, id);
}

/**
 * PATCH: the given fields change. A change of the definition (filters, static or not) bumps
 * `version` and, for a dynamic cohort, marks it calculating and queues a computation.
 * `deleted: true` is the soft delete, refused while an active flag uses the cohort;
 * `deleted: false` restores. A CSV adds its persons to a static cohort.
 */
export async function updateCohort(ctx: Context, id: number, body: CohortUpdateBody, csv?: Uint8Array | null): Promise<CohortResource> {
  const { db, actor } = ctx;
  const projectId = ctx.project.id;
  const current = await store.findCohort(db.prisma, projectId, id);
  if (!current) throw notFound();
  const isStatic = body.is_static ?? current.isStatic;
  const fromCsv = await idsOfCsv(csv, isStatic);
  const next = {
    name: body.name ?? current.name,
    description: body.description ?? current.description,
    isStatic,
    filters: isStatic ? current.filters : (body.filters ?? current.filters),
    deleted: body.deleted ?? current.deleted,
  };
  const deleting = next.deleted && !current.deleted;
  const restoring = !next.deleted && current.deleted;
  if (deleting) {
    const flags = await activeFlagsUsingCohort(db.prisma, projectId, id);
    if (flags.length > 0) {
      throw new AppError(
        "invalid_input",
        `This cohort is used in ${flags.length} active feature flag(s): ${flags.map((flag) => flag.key).join(", ")}. Remove it from them (or disable them) before deleting it.`,
        "deleted",
      );
    }
  }
  const definitionChanged = next.isStatic !== current.isStatic || JSON.stringify(next.filters) !== JSON.stringify(current.filters);
  if (definitionChanged && !next.isStatic) {
    const tree = storedTree(next.filters);
    if (!tree) throw new AppError("invalid_input", "filters must be an object: {properties: {type, values}}.", "filters");
    await checkReferences(db, projectId, id, tree);
    // Flags evaluate cohorts on person properties alone: one they use may not gain event conditions.
    if (hasBehavioralFilters(tree)) {
      const flags = await activeFlagsUsingCohort(db.prisma, projectId, id);
      if (flags.length > 0) {
        throw new AppError("invalid_input", `Cohort '${next.name}' with filters on events cannot be used in feature flags: it is used by ${flags.map((flag) => flag.key).join(", ")}.`, "filters", {
          code: "behavioral_cohort_found",
        });
      }
    }
  }
  const changes = changesBetween(tracked(current), tracked(next));
  const recompute = !next.isStatic && !next.deleted && (definitionChanged || restoring);
  if (changes.length > 0) {
    await inTransaction(db, async (tx) => {
      await store.updateCohortRow(tx, id, {
        ...next,
        ...(definitionChanged ? { version: current.version + 1 } : {}),
        ...(recompute ? { isCalculating: true } : {}),
        // Dynamic → static keeps the members computed last as the static list.
        ...(next.isStatic && definitionChanged ? { isCalculating: false, computedVersion: current.version + 1 } : {}),
      });
      await logActivity(tx, {
        projectId,
        userId: actor.id,
        scope: ACTIVITY_SCOPE,
        itemId: id,
        activity: deleting ? "deleted" : restoring ? "restored" : "updated",
        name: next.name,
        changes,
      });
    });
  }
  if (fromCsv) await store.addStaticMembers(db, projectId, id, fromCsv.kind, fromCsv.ids);
  if (recompute) enqueueComputation(id);
  // Flags read cohort definitions from their cached definitions: rebuild them now.
  if (changes.length > 0) await cohortsChanged(db, projectId);
  return cohortOf(db, projectId, id);
}

async function staticCohort(ctx: Context, id: number) {
  const row = await store.findCohort(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  if (!row.isStatic) throw new AppError("invalid_input", "Can only add or remove persons on a static cohort.", null);
  return row;
}

/** PATCH `add_persons_to_static_cohort`: persons by uuid; unknown ones are ignored, but not all of them. */
export async function addPersonsToStaticCohort(ctx: Context, id: number, body: AddPersonsBody): Promise<{ success: true }> {
  await staticCohort(ctx, id);
  const found = await store.addStaticMembers(ctx.db, ctx.project.id, id, "person_id", body.person_ids);
  if (found === 0) throw new AppError("invalid_input", "None of the given person ids are persons of this project.", "person_ids");
  return { success: true };
}

/** PATCH `remove_person_from_static_cohort`: 404 when the person is not a member. */
export async function removePersonFromStaticCohort(ctx: Context, id: number, body: RemovePersonBody): Promise<{ success: true }> {
  await staticCohort(ctx, id);
  if (!(await store.removeStaticMember(ctx.db, ctx.project.id, id, body.person_id))) throw new AppError("not_found", "This person is not in the cohort.");
  return { success: true };
}

/** `GET …/cohorts/:id/persons/`: the members as PostHog's person list items. */
export async function cohortPersons(ctx: Context, id: number, query: CohortPersonsQuery): Promise<{ count: number; results: PersonListItem[] }> {
  await getCohort(ctx, id);
  const { take, skip } = pageWindow(query);
  const page = await store.memberPage(ctx.db.sql, ctx.project.id, id, take, skip);
  return { count: page.count, results: page.rows.map(presentPersonListItem) };
}
