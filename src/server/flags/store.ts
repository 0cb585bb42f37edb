/**
 * Every database read and write of feature flags: the management service's rows, the SDK
 * paths' stored persons, groups and hash-key overrides, the definitions the cache loads and
 * the project keys SDKs present. Nothing else in the domain calls Prisma or SQL.
 */
import type { Prisma } from "@/generated/prisma/client";
import type { Database } from "@/server/db";
import type { SqlExecutor } from "@/server/db/driver";
import type { DbClient, Tx } from "@/server/db/transaction";
import { containsPattern } from "@/server/properties/sql";
import type { FlagListQuery } from "./contract";
import type { FlagRow } from "./present";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";

/** The Prisma `include` a FlagRow needs. */
const FLAG_ROW_INCLUDE = {
  createdBy: { select: USER_BASIC_COLUMNS },
  taggedItems: { select: { tag: { select: { name: true } } } },
} as const;

// ---------------------------------------------------------------------------
// Management
// ---------------------------------------------------------------------------

export interface ProjectFlag {
  id: number;
  key: string;
  active: boolean;
  filters: unknown;
}

/** The project's live (not deleted) flags, for the dependency rules. */
export function liveFlags(client: DbClient, projectId: number): Promise<ProjectFlag[]> {
  return client.featureFlag.findMany({ where: { projectId, deleted: false }, select: { id: true, key: true, active: true, filters: true } });
}

/** Whether a live flag of the project other than `exceptId` has `key`. */
export async function liveKeyTaken(client: DbClient, projectId: number, key: string, exceptId: number | null): Promise<boolean> {
  const clash = await client.featureFlag.findFirst({ where: { projectId, key, deleted: false, ...(exceptId === null ? {} : { id: { not: exceptId } }) }, select: { id: true } });
  return clash !== null;
}

/** One flag of the project, deleted ones included. */
export function findFlag(client: DbClient, projectId: number, id: number): Promise<FlagRow | null> {
  return client.featureFlag.findFirst({ where: { id, projectId }, include: FLAG_ROW_INCLUDE });
}

/** The last user to change each flag, from the activity log (the table has no column for it). */
export async function lastModifiers(client: DbClient, projectId: number, activityScope: string, ids: number[]): Promise<Map<string, FlagRow["createdBy"]>> {
  if (ids.length === 0) return new Map();
  const entries = await client.activityLog.findMany({
    where: { projectId, scope: activityScope, itemId: { in: ids.map(String) } },
    orderBy: { createdAt: "desc" },
    distinct: ["itemId"],
    select: { itemId: true, user: { select: USER_BASIC_COLUMNS } },
  });
  return new Map(entries.map((entry) => [entry.itemId, entry.user]));
}

const ORDER_SQL: Record<NonNullable<FlagListQuery["order"]>, string> = {
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
 * One page of the project's live flags with the list's filters (see `listFlags`), in order,
 * and how many match in all.
 */
export async function listFlagRows(db: Database, projectId: number, query: FlagListQuery, page: { take: number; skip: number }): Promise<{ count: number; rows: FlagRow[] }> {
  const params: unknown[] = [projectId];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  // Surveys' own targeting flags are the surveys' business: PostHog leaves them out of the list.
  const where = ["f.project_id = $1", "NOT f.deleted", "NOT EXISTS (SELECT 1 FROM surveys s WHERE s.targeting_flag_id = f.id OR s.internal_targeting_flag_id = f.id)"];
  if (query.search) {
    const pattern = bind(containsPattern(query.search));
    where.push(`(f.key ILIKE ${pattern} ESCAPE '\\' OR f.name ILIKE ${pattern} ESCAPE '\\')`);
  }
  if (query.active) where.push(`f.active = ${bind(query.active === "true")}`);
  if (query.created_by_id !== undefined) where.push(`f.created_by_id = ${bind(query.created_by_id)}`);
  const variantCount = `COALESCE(jsonb_array_length(CASE WHEN jsonb_typeof(f.filters->'multivariate'->'variants') = 'array' THEN f.filters->'multivariate'->'variants' END), 0)`;
  if (query.type === "boolean") where.push(`${variantCount} = 0`);
  if (query.type === "multivariant") where.push(`${variantCount} > 0`);
  if (query.type === "experiment") where.push("EXISTS (SELECT 1 FROM experiments x WHERE x.feature_flag_id = f.id AND NOT x.deleted)");
  if (query.type === "remote_config") where.push("false");
  if (query.tags && query.tags.length > 0) {
    where.push(
      `EXISTS (SELECT 1 FROM tagged_items ti JOIN tags t ON t.id = ti.tag_id WHERE ti.feature_flag_id = f.id AND t.name IN (SELECT jsonb_array_elements_text(${bind(JSON.stringify(query.tags))}::jsonb)))`,
    );
  }
  if (query.excluded_properties && query.excluded_properties.length > 0) {
    where.push(`f.key NOT IN (SELECT jsonb_array_elements_text(${bind(JSON.stringify(query.excluded_properties))}::jsonb))`);
  }
  const filter = `FROM feature_flags f WHERE ${where.join(" AND ")}`;
  const order = `${ORDER_SQL[query.order ?? "-created_at"]}, f.id DESC`;
  const [counted, ordered] = await Promise.all([
    db.sql.query<{ count: string | number }>(`SELECT count(*) AS count ${filter}`, params),
    db.sql.query<{ id: number }>(`SELECT f.id ${filter} ORDER BY ${order} LIMIT ${page.take} OFFSET ${page.skip}`, params),
  ]);
  const ids = ordered.map((row) => Number(row.id));
  const rows = ids.length === 0 ? [] : await db.prisma.featureFlag.findMany({ where: { id: { in: ids } }, include: FLAG_ROW_INCLUDE });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { count: Number(counted[0]?.count ?? 0), rows: ids.map((id) => byId.get(id)!).filter(Boolean) };
}

/** The stored columns a write sets. */
export type FlagWrite = Pick<FlagRow, "key" | "name" | "filters" | "active" | "deleted" | "ensureExperienceContinuity">;

export async function insertFlag(tx: Tx, projectId: number, createdById: number | null, flag: FlagWrite): Promise<{ id: number; key: string }> {
  return tx.featureFlag.create({
    data: { projectId, ...flag, filters: flag.filters as Prisma.InputJsonValue, createdById, version: 1 },
    select: { id: true, key: true },
  });
}

export async function updateFlagRow(tx: Tx, id: number, flag: FlagWrite & { version: number }): Promise<void> {
  await tx.featureFlag.update({ where: { id }, data: { ...flag, filters: flag.filters as Prisma.InputJsonValue } });
}

/** The activity-log entries of one flag, newest first. */
export function flagActivityEntries(client: DbClient, projectId: number, activityScope: string, id: number, limit: number) {
  return client.activityLog.findMany({
    where: { projectId, scope: activityScope, itemId: String(id) },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { id: true, activity: true, detail: true, createdAt: true, user: { select: USER_BASIC_COLUMNS } },
  });
}

// ---------------------------------------------------------------------------
// SDK paths
// ---------------------------------------------------------------------------

/** The live flags whose id is `id` (when given) or whose key is `key`. */
export function liveFlagsByIdOrKey(client: DbClient, projectId: number, id: number | null, key: string) {
  return client.featureFlag.findMany({
    where: { projectId, deleted: false, OR: [...(id !== null ? [{ id }] : []), { key }] },
    select: { id: true, key: true, filters: true },
  });
}

/** Projects with at least one live flag: those whose definitions /decide will need. */
export async function projectsWithFlags(client: DbClient): Promise<number[]> {
  const rows = await client.featureFlag.findMany({ where: { deleted: false }, distinct: ["projectId"], select: { projectId: true } });
  return rows.map((row) => row.projectId);
}

/** The id of the project whose public key (`phc_…`) this is. */
export async function projectIdByApiToken(client: DbClient, token: string): Promise<number | null> {
  const project = await client.project.findUnique({ where: { apiToken: token }, select: { id: true } });
  return project?.id ?? null;
}

/** The project whose secret key hashes to `hash`, with its public key. */
export function projectBySecretKeyHash(client: DbClient, hash: string) {
  return client.project.findUnique({ where: { secretApiTokenHash: hash }, select: { id: true, apiToken: true, secretApiTokenHash: true } });
}

export interface DefinitionRow {
  id: number;
  key: string;
  name: string;
  filters: unknown;
  active: boolean;
  ensure_experience_continuity: boolean;
  version: number;
}

/** The project's live flags by id, its group types by index and its live cohorts: what the definitions cache loads. */
export function loadDefinitionRows(db: Database, projectId: number) {
  return Promise.all([
    db.sql.query<DefinitionRow>(
      `SELECT id, key, name, filters, active, ensure_experience_continuity, version
         FROM feature_flags WHERE project_id = $1 AND deleted = false ORDER BY id`,
      [projectId],
    ),
    db.sql.query<{ group_type: string; group_type_index: number }>(
      `SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1 ORDER BY group_type_index`,
      [projectId],
    ),
    db.sql.query<{ id: number; name: string; filters: unknown; is_static: boolean }>(
      `SELECT id, name, filters, is_static FROM cohorts WHERE project_id = $1 AND deleted = false ORDER BY id`,
      [projectId],
    ),
  ]);
}

/**
 * What the definitions of a project were loaded from, in one short text: the live flags'
 * count, versions and last update, the live cohorts' count and versions, the group types'
 * count. The definitions cache reloads only when it changed.
 */
export async function definitionsStamp(db: Database, projectId: number): Promise<string> {
  const [row] = await db.sql.query<{ stamp: string }>(
    `SELECT (SELECT count(*) || ':' || coalesce(sum(version), 0) || ':' || coalesce(max(updated_at)::text, '') FROM feature_flags WHERE project_id = $1 AND deleted = false)
         || '|' || (SELECT count(*) || ':' || coalesce(sum(version), 0) || ':' || coalesce(max(id), 0) FROM cohorts WHERE project_id = $1 AND deleted = false)
         || '|' || (SELECT count(*) FROM group_type_mappings WHERE project_id = $1) AS stamp`,
    [projectId],
  );
  return row!.stamp;
}

/** The project's live cohorts, for the flag rules (references, behavioural filters) and the editor's picker. */
export function liveCohorts(client: DbClient, projectId: number) {
  return client.cohort.findMany({
    where: { projectId, deleted: false },
    select: { id: true, name: true, filters: true, isStatic: true, count: true },
    orderBy: { name: "asc" },
  });
}

/**
 * Pins each of `flagKeys` to `hashKey` for the persons behind `distinctIds`, where not pinned
 * already (PostHog's hash-key overrides, for experience continuity).
 */
export async function insertHashKeyOverrides(db: Database, projectId: number, distinctIds: string[], hashKey: string, flagKeys: string[]): Promise<void> {
  await db.sql.query(
    `INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
     SELECT DISTINCT $1::int, d.person_id, f.key, $2::text
       FROM person_distinct_ids d CROSS JOIN unnest($4::text[]) AS f(key)
      WHERE d.project_id = $1 AND d.distinct_id = ANY($3::text[])
     ON CONFLICT (project_id, person_id, feature_flag_key) DO NOTHING`,
    [projectId, hashKey, distinctIds, flagKeys],
  );
}

/** A stored person's properties, hash-key overrides, groups' properties and static cohorts; JSON columns may come back as text. */
export interface StoredRow {
  properties: Record<string, unknown> | string | null;
  /** The static cohorts (of those asked about) the person is listed in. */
  cohorts?: number[] | string | null;
  overrides?: Record<string, string> | string | null;
  groups?: { index: number; key: string; properties: Record<string, unknown> }[] | string | null;
}

/** The stored person, and when asked the hash-key overrides and groups, in one statement. */
export async function loadStored(
  db: Database,
  projectId: number,
  distinctId: string,
  withOverrides: boolean,
  groups: { index: number; key: string }[],
  staticCohortIds: number[] = [],
): Promise<StoredRow> {
  const params: unknown[] = [projectId, distinctId];
  const columns = [
    `(SELECT p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
       WHERE d.project_id = $1 AND d.distinct_id = $2) AS properties`,
  ];
  if (withOverrides) {
    columns.push(
      `(SELECT json_object_agg(o.feature_flag_key, o.hash_key)
          FROM person_distinct_ids d JOIN feature_flag_hash_key_overrides o
            ON o.project_id = d.project_id AND o.person_id = d.person_id
         WHERE d.project_id = $1 AND d.distinct_id = $2) AS overrides`,
    );
  }
  if (groups.length > 0) {
    params.push(
      groups.map((group) => group.index),
      groups.map((group) => group.key),
    );
    columns.push(
      `(SELECT json_agg(json_build_object('index', g.group_type_index, 'key', g.group_key, 'properties', g.group_properties))
          FROM groups g JOIN unnest($3::int[], $4::text[]) AS r(i, k) ON g.group_type_index = r.i AND g.group_key = r.k
         WHERE g.project_id = $1) AS groups`,
    );
  }
  if (staticCohortIds.length > 0) {
    params.push(staticCohortIds);
    columns.push(
      `(SELECT json_agg(c.cohort_id)
          FROM person_distinct_ids d JOIN cohort_people c ON c.person_id = d.person_id
         WHERE d.project_id = $1 AND d.distinct_id = $2 AND c.cohort_id = ANY($${params.length}::int[])) AS cohorts`,
    );
  }
  const rows = await db.sql.query<StoredRow>(`SELECT ${columns.join(", ")}`, params);
  return rows[0] ?? { properties: null };
}

/**
 * The persons a flag's reach is estimated from (flags/reach.ts): how many the project has,
 * and up to `limit` of them with their properties and cohort memberships. The sample is the
 * first `limit` by a hash of the uuid — spread over the whole project, the same on every
 * call (so the estimate holds still while conditions are edited).
 */
export async function reachSample(
  sql: SqlExecutor,
  projectId: number,
  limit: number,
): Promise<{ total: number; persons: { properties: Record<string, unknown> | string | null; cohorts: number[] | null }[] }> {
  const [counted] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM persons WHERE project_id = $1::int`, [projectId]);
  const persons = await sql.query<{ properties: Record<string, unknown> | string | null; cohorts: number[] | null }>(
    `SELECT p.properties, (SELECT array_agg(cp.cohort_id) FROM cohort_people cp WHERE cp.person_id = p.id) AS cohorts
       FROM (SELECT id, properties FROM persons WHERE project_id = $1::int ORDER BY md5(uuid::text) LIMIT $2::int) p`,
    [projectId, limit],
  );
  return { total: counted?.n ?? 0, persons };
}
