/**
 * Feature-flag management: list, create, retrieve, update and soft delete, with PostHog's
 * rules (posthog/api/feature_flag.py). Every write runs in one transaction with its
 * activity-log row, bumps `version` when something changed, and then drops the project's
 * cached flag definitions so /decide and /flags serve the change at once.
 */
import { z } from "zod";
import type { Prisma } from "@/generated/prisma/client";
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Database } from "@/server/db";
import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { containsPattern } from "@/server/properties/sql";
import { pageQuery, pageWindow } from "@/server/input/page";
import { setTags, tagNames } from "@/server/tags/service";
import { invalidateFlagDefinitions } from "./definitions";
import { FLAG_ROW_INCLUDE, storedFilters, toFlagResource, USER_BASIC_SELECT, type FlagResource, type FlagRow } from "./present";
import { DUPLICATE_FLAG_KEY_MESSAGE, flagFiltersSchema, flagListFilters, type CreateFlag, type FlagFilters, type FlagListFilters, type UpdateFlag } from "./schemas";

const ACTIVITY_SCOPE = "FeatureFlag";

/** Who makes a change: the user recorded as creator and in the activity log. */
export interface FlagActor {
  userId: number;
}

type Tx = Prisma.TransactionClient;

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

interface ProjectFlag {
  id: number;
  key: string;
  active: boolean;
  filters: unknown;
}

async function liveFlags(tx: Tx, projectId: number): Promise<ProjectFlag[]> {
  return tx.featureFlag.findMany({ where: { projectId, deleted: false }, select: { id: true, key: true, active: true, filters: true } });
}

function listed(flags: ProjectFlag[], limit: number): string {
  const names = flags.slice(0, limit).map((flag) => `${flag.key} (ID: ${flag.id})`);
  if (flags.length > limit) names.push(`and ${flags.length - limit} more`);
  return names.join(", ");
}

/**
 * Cohort and flag conditions point at other objects: a cohort must exist (Burrow has no
 * cohorts yet, so none does), a flag must be a live, active flag of the project, not the
 * flag itself, and not depend back on it.
 */
async function checkReferences(tx: Tx, projectId: number, self: { id: number | null; key: string }, filters: FlagFilters): Promise<void> {
  const properties = propertiesOf(filters);
  const cohort = properties.find((property) => property.type === "cohort");
  if (cohort) throw new AppError("invalid_input", `Cohort with id ${String(cohort.value)} does not exist`, `${cohort.attr}__value`);
  const references = properties.filter((property) => property.type === "flag");
  if (references.length === 0) return;
  const flags = await liveFlags(tx, projectId);
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
  const flags = await liveFlags(tx, projectId);
  return flags.filter((flag) => flag.id !== id && flag.active && dependencyIds(flag.filters).includes(id)).sort((a, b) => a.key.localeCompare(b.key));
}

async function assertKeyFree(tx: Tx, projectId: number, key: string, exceptId: number | null): Promise<void> {
  const clash = await tx.featureFlag.findFirst({ where: { projectId, key, deleted: false, ...(exceptId === null ? {} : { id: { not: exceptId } }) }, select: { id: true } });
  if (clash) throw duplicateKey();
}

// ---------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------

/** The list's query string: page and filters; empty parameters count as not given (`?search=`). */
export const flagListQuery = z.preprocess(
  (query) => (typeof query === "object" && query !== null ? Object.fromEntries(Object.entries(query).filter(([, value]) => value !== "")) : query),
  pageQuery.extend(flagListFilters.shape),
);
export type FlagListQuery = z.output<typeof flagListQuery>;

/** The last user to change each flag, from the activity log (the table has no column for it). */
async function lastModifiers(prisma: PrismaClient | Tx, projectId: number, ids: number[]) {
  if (ids.length === 0) return new Map<string, FlagRow["createdBy"]>();
  const entries = await prisma.activityLog.findMany({
    where: { projectId, scope: ACTIVITY_SCOPE, itemId: { in: ids.map(String) } },
    orderBy: { createdAt: "desc" },
    distinct: ["itemId"],
    select: { itemId: true, user: { select: USER_BASIC_SELECT } },
  });
  return new Map(entries.map((entry) => [entry.itemId, entry.user]));
}

async function present(prisma: PrismaClient | Tx, projectId: number, rows: FlagRow[]): Promise<FlagResource[]> {
  const modifiers = await lastModifiers(
    prisma,
    projectId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toFlagResource(row, modifiers.get(String(row.id)) ?? null));
}

/** One flag of the project, deleted ones included (PostHog retrieves them, with `deleted: true`). */
export async function getFlag(db: Database, projectId: number, id: number): Promise<FlagResource> {
  const row = await db.prisma.featureFlag.findFirst({ where: { id, projectId }, include: FLAG_ROW_INCLUDE });
  if (!row) throw notFound();
  return (await present(db.prisma, projectId, [row]))[0]!;
}

const ORDER_SQL: Record<NonNullable<FlagListFilters["order"]>, string> = {
  key: "f.key ASC",
  "-key": "f.key DESC",
  name: "f.name ASC",
  "-name": "f.name DESC",
  created_at: "f.created_at ASC",
  "-created_at": "f.created_at DESC",
  updated_at: "f.updated_at ASC",
  "-updated_at": "f.updated_at DESC",
};

/**
 * The project's live flags, newest first unless `order` says otherwise, with PostHog's list
 * filters: `search` (key or name, case-insensitive), `active`, `type` (boolean or
 * multivariant; Burrow has no experiments or remote-config flags yet), `created_by_id`,
 * `tags` (any of) and `excluded_properties` (keys to leave out).
 */
export async function listFlags(db: Database, projectId: number, query: FlagListQuery): Promise<{ count: number; results: FlagResource[] }> {
  const params: unknown[] = [projectId];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ["f.project_id = $1", "NOT f.deleted"];
  if (query.search) {
    const pattern = bind(containsPattern(query.search));
    where.push(`(f.key ILIKE ${pattern} ESCAPE '\\' OR f.name ILIKE ${pattern} ESCAPE '\\')`);
  }
  if (query.active) where.push(`f.active = ${bind(query.active === "true")}`);
  if (query.created_by_id !== undefined) where.push(`f.created_by_id = ${bind(query.created_by_id)}`);
  const variantCount = `COALESCE(jsonb_array_length(CASE WHEN jsonb_typeof(f.filters->'multivariate'->'variants') = 'array' THEN f.filters->'multivariate'->'variants' END), 0)`;
  if (query.type === "boolean") where.push(`${variantCount} = 0`);
  if (query.type === "multivariant") where.push(`${variantCount} > 0`);
  if (query.type === "experiment" || query.type === "remote_config") where.push("false");
  if (query.tags && query.tags.length > 0) {
    where.push(
      `EXISTS (SELECT 1 FROM tagged_items ti JOIN tags t ON t.id = ti.tag_id WHERE ti.feature_flag_id = f.id AND t.name IN (SELECT jsonb_array_elements_text(${bind(JSON.stringify(query.tags))}::jsonb)))`,
    );
  }
  if (query.excluded_properties && query.excluded_properties.length > 0) {
    where.push(`f.key NOT IN (SELECT jsonb_array_elements_text(${bind(JSON.stringify(query.excluded_properties))}::jsonb))`);
  }
  const { take, skip } = pageWindow(query);
  const filter = `FROM feature_flags f WHERE ${where.join(" AND ")}`;
  const order = `${ORDER_SQL[query.order ?? "-created_at"]}, f.id DESC`;
  const [counted, page] = await Promise.all([
    db.sql.query<{ count: string | number }>(`SELECT count(*) AS count ${filter}`, params),
    db.sql.query<{ id: number }>(`SELECT f.id ${filter} ORDER BY ${order} LIMIT ${take} OFFSET ${skip}`, params),
  ]);
  const ids = page.map((row) => Number(row.id));
  const rows = ids.length === 0 ? [] : await db.prisma.featureFlag.findMany({ where: { id: { in: ids } }, include: FLAG_ROW_INCLUDE });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { count: Number(counted[0]?.count ?? 0), results: await present(db.prisma, projectId, ids.map((id) => byId.get(id)!).filter(Boolean)) };
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
    return await db.prisma.$transaction(fn);
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isDuplicateKeyViolation(error)) throw duplicateKey();
    throw error;
  }
}

export async function createFlag(db: Database, projectId: number, actor: FlagActor, input: CreateFlag): Promise<FlagResource> {
  const filters = input.filters ?? DEFAULT_FILTERS;
  const id = await writeTransaction(db, async (tx) => {
    if (!input.deleted) await assertKeyFree(tx, projectId, input.key, null);
    await checkReferences(tx, projectId, { id: null, key: input.key }, filters);
    const flag = await tx.featureFlag.create({
      data: {
        projectId,
        key: input.key,
        name: input.name,
        filters: filters as unknown as Prisma.InputJsonValue,
        active: input.active,
        deleted: input.deleted,
        ensureExperienceContinuity: input.ensure_experience_continuity,
        createdById: actor.userId,
        version: 1,
      },
    });
    if (input.tags.length > 0) await setTags(tx, projectId, { featureFlagId: flag.id }, input.tags);
    await logActivity(tx, {
      projectId,
      userId: actor.userId,
      scope: ACTIVITY_SCOPE,
      itemId: flag.id,
      activity: "created",
      name: flag.key,
    });
    return flag.id;
  });
  await invalidateFlagDefinitions(db, projectId);
  return getFlag(db, projectId, id);
}

/**
 * PATCH: the given fields change; `deleted: true` is PostHog's soft delete and
 * `deleted: false` restores (if the key is still free). `filters` without `groups` is
 * merged into the current filters. Nothing changed: nothing is written, `version` stays.
 */
export async function updateFlag(db: Database, projectId: number, actor: FlagActor, id: number, input: UpdateFlag): Promise<FlagResource> {
  const changed = await writeTransaction(db, async (tx) => {
    const current = await tx.featureFlag.findFirst({ where: { id, projectId }, include: FLAG_ROW_INCLUDE });
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
      const flags = await liveFlags(tx, projectId);
      const disabled = flags.filter((flag) => !flag.active && dependencyIds(filters).includes(flag.id)).sort((a, b) => a.key.localeCompare(b.key));
      if (disabled.length > 0) {
        throw new AppError(
          "invalid_input",
          `Cannot enable this feature flag because it depends on disabled flags: ${listed(disabled, 5)}. Please enable the dependency flags first.`,
          "active",
        );
      }
    }

    await tx.featureFlag.update({
      where: { id },
      data: {
        key: next.key,
        name: next.name,
        filters: next.filters as unknown as Prisma.InputJsonValue,
        active: next.active,
        deleted: next.deleted,
        ensureExperienceContinuity: next.ensureExperienceContinuity,
        version: current.version + 1,
      },
    });
    if (input.tags) await setTags(tx, projectId, { featureFlagId: id }, input.tags);
    await logActivity(tx, {
      projectId,
      userId: actor.userId,
      scope: ACTIVITY_SCOPE,
      itemId: id,
      activity: deleting ? "deleted" : current.deleted && !next.deleted ? "restored" : "updated",
      name: next.key,
      changes,
    });
    return true;
  });
  if (changed) await invalidateFlagDefinitions(db, projectId);
  return getFlag(db, projectId, id);
}

/** Soft delete (PostHog: PATCH `{"deleted": true}`). */
export function deleteFlag(db: Database, projectId: number, actor: FlagActor, id: number): Promise<FlagResource> {
  return updateFlag(db, projectId, actor, id, { deleted: true });
}

/** The activity log of one flag, newest first. */
export async function flagActivity(db: Database, projectId: number, id: number, limit = 20) {
  await getFlag(db, projectId, id);
  const entries = await db.prisma.activityLog.findMany({
    where: { projectId, scope: ACTIVITY_SCOPE, itemId: String(id) },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { id: true, activity: true, detail: true, createdAt: true, user: { select: USER_BASIC_SELECT } },
  });
  return entries.map((entry) => ({
    id: entry.id,
    activity: entry.activity,
    detail: entry.detail,
    created_at: entry.createdAt.toISOString(),
    user: entry.user ? { email: entry.user.email, first_name: entry.user.firstName } : null,
  }));
}
