import { randomUUID } from "node:crypto";
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import type { DbClient } from "@/server/db/transaction";
import type { PropertyGroup } from "@/server/properties/contract";
import { containsPattern, propertiesSql, SqlParams } from "@/server/properties/sql";
import type { PersonCohort } from "./contract";
import type { PersonRow } from "./present";
import { queueDeletions } from "./store/deletions";

export * from "./store/deletions";

export interface PersonRef {
  id: number;
  uuid: string;
}

export interface PropertyUpdate {
  set: Record<string, unknown>;
  setOnce: Record<string, unknown>;
  unset: string[];
}

export async function findPersonByDistinctId(sql: SqlExecutor, projectId: number, distinctId: string): Promise<(PersonRef & { isIdentified: boolean }) | null> {
  const rows = await sql.query<{ id: number; uuid: string; is_identified: boolean }>(
    `SELECT p.id, p.uuid::text AS uuid, p.is_identified
       FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
      WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [projectId, distinctId],
  );
  const row = rows[0];
  return row ? { id: row.id, uuid: row.uuid, isIdentified: row.is_identified } : null;
}

/** The stored properties (JSON text) of the persons behind `distinctIds`, one row per id that has one. */
export function personPropertiesByDistinctId(sql: SqlExecutor, projectId: number, distinctIds: readonly string[]) {
  return sql.query<{ distinct_id: string; person_id: number; properties: string }>(
    `SELECT d.distinct_id, p.id AS person_id, p.properties::text AS properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
      WHERE d.project_id = $1 AND d.distinct_id = ANY($2::text[])`,
    [projectId, [...distinctIds]],
  );
}

/** The smallest project id above `afterId` that has persons (one index probe), or null. */
export async function nextProjectWithPersons(sql: SqlExecutor, afterId: number): Promise<number | null> {
  const [row] = await sql.query<{ id: number | null }>(`SELECT min(project_id) AS id FROM persons WHERE project_id > $1`, [afterId]);
  return row?.id ?? null;
}

/** The next `limit` persons of a project after person id `afterId`, a row per distinct id, in person id order. */
export function personPropertiesPage(sql: SqlExecutor, projectId: number, afterId: number, limit: number) {
  return sql.query<{ distinct_id: string; person_id: number; properties: string }>(
    `WITH page AS (SELECT id, properties FROM persons WHERE project_id = $1 AND id > $2 ORDER BY id LIMIT $3)
     SELECT d.distinct_id, page.id AS person_id, page.properties::text AS properties
       FROM page JOIN person_distinct_ids d ON d.person_id = page.id ORDER BY page.id`,
    [projectId, afterId, limit],
  );
}

/** The persons of several distinct ids at once: those that have one. */
export async function findPersonsByDistinctIds(sql: SqlExecutor, projectId: number, distinctIds: readonly string[]): Promise<Array<PersonRef & { distinctId: string }>> {
  const rows = await sql.query<{ distinct_id: string; id: number; uuid: string }>(
    `SELECT d.distinct_id, p.id, p.uuid::text AS uuid FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
      WHERE d.project_id = $1 AND d.distinct_id = ANY($2::text[])`,
    [projectId, [...distinctIds]],
  );
  return rows.map((row) => ({ distinctId: row.distinct_id, id: row.id, uuid: row.uuid }));
}

/**
 * A new person owning `distinctIds`. If another writer registered one of the ids first,
 * the new person is removed again and null returned: the caller looks the id up instead.
 */
export async function createPerson(
  sql: SqlExecutor,
  projectId: number,
  distinctIds: string[],
  options: { isIdentified: boolean; properties: Record<string, unknown>; createdAt: Date },
): Promise<PersonRef | null> {
  // Created when its first event happened (PostHog's created_at, which lifecycle's "new" reads), never later than now.
  // One statement (one round trip to the embedded database's thread): a new visitor's first event pays for it.
  const [created] = await sql.query<PersonRef & { claimed: number }>(
    `WITH person AS (
       INSERT INTO persons (project_id, properties, is_identified, updated_at, created_at)
       VALUES ($1, $2::jsonb, $3, now(), LEAST($4::timestamptz, now())) RETURNING id, uuid),
     claimed AS (
       INSERT INTO person_distinct_ids (project_id, person_id, distinct_id)
       SELECT $1, person.id, unnest($5::text[]) FROM person
       ON CONFLICT (project_id, distinct_id) DO NOTHING RETURNING distinct_id)
     SELECT person.id, person.uuid::text AS uuid, (SELECT count(*) FROM claimed)::int AS claimed FROM person`,
    [projectId, JSON.stringify(options.properties), options.isIdentified, options.createdAt.toISOString(), distinctIds],
  );
  if (created!.claimed === distinctIds.length) return { id: created!.id, uuid: created!.uuid };
  await sql.query(`DELETE FROM person_distinct_ids WHERE person_id = $1`, [created!.id]);
  await sql.query(`DELETE FROM persons WHERE id = $1`, [created!.id]);
  return null;
}

/**
 * New anonymous persons for distinct ids that had none, one each: a batch of new visitors costs
 * two statements instead of one per visitor. The uuids are made here, so that each inserted
 * person is matched to its id without a join. An id another writer registered meanwhile gets no
 * person here (the one made for it is removed again): the caller resolves it.
 */
export async function createPersons(sql: SqlDriver, projectId: number, firstSeen: ReadonlyArray<readonly [distinctId: string, createdAt: Date]>): Promise<Array<PersonRef & { distinctId: string }>> {
  if (firstSeen.length === 0) return [];
  const uuids = firstSeen.map(() => randomUUID());
  return sql.transaction(async (tx) => {
    const persons = await tx.query<{ id: number; uuid: string }>(
      `INSERT INTO persons (uuid, project_id, properties, is_identified, updated_at, created_at)
       SELECT u.uuid, $1, '{}'::jsonb, false, now(), LEAST(u.created_at, now()) FROM unnest($2::uuid[], $3::timestamptz[]) AS u(uuid, created_at)
       RETURNING id, uuid::text AS uuid`,
      [projectId, uuids, firstSeen.map(([, at]) => at.toISOString())],
    );
    const idOf = new Map(persons.map((person) => [person.uuid, person.id]));
    const personIds = uuids.map((uuid) => idOf.get(uuid)!);
    const claimed = await tx.query<{ person_id: number }>(
      `INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) SELECT $1, u.person_id, u.distinct_id FROM unnest($2::int[], $3::text[]) AS u(person_id, distinct_id)
       ON CONFLICT (project_id, distinct_id) DO NOTHING RETURNING person_id`,
      [projectId, personIds, firstSeen.map(([id]) => id)],
    );
    const won = new Set(claimed.map((row) => row.person_id));
    const lost = personIds.filter((id) => !won.has(id));
    if (lost.length > 0) await tx.query(`DELETE FROM persons WHERE id = ANY($1::int[])`, [lost]);
    return firstSeen.flatMap(([distinctId], i) => (won.has(personIds[i]!) ? [{ distinctId, id: personIds[i]!, uuid: uuids[i]! }] : []));
  });
}

/** Attaches a distinct id to a person; false if the id belongs to someone already. */
export async function addDistinctId(sql: SqlExecutor, projectId: number, personId: number, distinctId: string): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, distinct_id) DO NOTHING RETURNING id`,
    [projectId, personId, distinctId],
  );
  return rows.length > 0;
}

/**
 * `$set` overwrites, `$set_once` only fills keys the person lacks, `$unset` removes keys:
 * one UPDATE, evaluated against the row as it is at that moment, so concurrent updates of
 * one person compose without locks and persons never wait on each other.
 */
export async function updatePersonProperties(sql: SqlExecutor, personId: number, update: PropertyUpdate, identify: boolean): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE persons
        SET properties = (($2::jsonb || properties) - $3::text[]) || $4::jsonb,
            is_identified = is_identified OR $5,
            version = version + 1,
            updated_at = now()
      WHERE id = $1
      RETURNING id`,
    [personId, JSON.stringify(update.setOnce), update.unset, JSON.stringify(update.set), identify],
  );
  // False when the person is gone: a concurrent merge folded it into another.
  return rows.length > 0;
}

/**
 * Folds `source` into `target` in one transaction: distinct ids and flag hash-key overrides
 * move over; properties combine with the target's winning; the earlier creation time stays;
 * the source is deleted; then `alsoInTransaction` runs in the same transaction (the caller
 * moves the stored events there, through the event store: last, so a failure there undoes
 * the merge). Returns the distinct ids that moved.
 */
export function mergePersons(
  sql: SqlDriver,
  projectId: number,
  target: PersonRef,
  source: PersonRef,
  alsoInTransaction: (tx: SqlExecutor) => Promise<void>,
): Promise<string[]> {
  return sql.transaction(async (tx) => {
    const moved = await mergePersonRows(tx, projectId, target, source);
    await alsoInTransaction(tx);
    return moved;
  });
}

async function mergePersonRows(tx: SqlExecutor, projectId: number, target: PersonRef, source: PersonRef): Promise<string[]> {
  // Lock both rows in id order so two merges of the same pair cannot deadlock.
  await tx.query(`SELECT id FROM persons WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`, [[target.id, source.id]]);
  const moved = await tx.query<{ distinct_id: string }>(
    `UPDATE person_distinct_ids SET person_id = $1, version = version + 1, updated_at = now() WHERE person_id = $2 RETURNING distinct_id`,
    [target.id, source.id],
  );
  await tx.query(
    `UPDATE persons t
        SET properties = s.properties || t.properties,
            created_at = LEAST(t.created_at, s.created_at),
            is_identified = true,
            version = t.version + 1,
            updated_at = now()
       FROM persons s
      WHERE t.id = $1 AND s.id = $2`,
    [target.id, source.id],
  );
  await tx.query(
    `INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
     SELECT project_id, $1, feature_flag_key, hash_key FROM feature_flag_hash_key_overrides WHERE person_id = $2
     ON CONFLICT (project_id, person_id, feature_flag_key) DO NOTHING`,
    [target.id, source.id],
  );
  // Static cohort membership follows the person (dynamic cohorts recompute from properties anyway).
  await tx.query(
    `INSERT INTO cohort_people (cohort_id, person_id, version)
     SELECT cp.cohort_id, $1, cp.version FROM cohort_people cp JOIN cohorts c ON c.id = cp.cohort_id AND c.is_static
      WHERE cp.person_id = $2
     ON CONFLICT (cohort_id, person_id) DO NOTHING`,
    [target.id, source.id],
  );
  await tx.query(`DELETE FROM persons WHERE id = $1`, [source.id]);
  return moved.map((row) => row.distinct_id);
}

// ---------------------------------------------------------------------------
// The persons API: reads, management writes, event deletions
// ---------------------------------------------------------------------------

/** A person row with its distinct ids (oldest first), as the list and the person page read it. */
const PERSON_COLUMNS = `p.id, p.uuid::text AS uuid, p.properties, p.is_identified, p.created_at,
  COALESCE((SELECT array_agg(d.distinct_id ORDER BY d.id) FROM person_distinct_ids d WHERE d.person_id = p.id), '{}'::text[]) AS distinct_ids`;

interface PersonSqlRow {
  id: number;
  uuid: string;
  properties: unknown;
  is_identified: boolean;
  created_at: Date | string;
  distinct_ids: string[];
}

function personRowOf(row: PersonSqlRow): PersonRow {
  return {
    id: row.id,
    uuid: row.uuid,
    properties: row.properties,
    isIdentified: row.is_identified,
    createdAt: new Date(row.created_at),
    distinctIds: row.distinct_ids,
    // Reading every listed person's newest event would scan all their events: left to the person's event stream.
    lastSeenAt: null,
  };
}

export interface PersonPageFilter {
  distinctId: string | null;
  email: string | null;
  /** E-mail contains (any case), or an exact distinct id, or (when it is one) the exact uuid. */
  search: { text: string; uuid: string | null } | null;
  properties: PropertyGroup | null;
}

/**
 * One page of a project's persons, newest first (`created_at DESC, id DESC`, as PostHog), and
 * whether more follow. Persons created more than a day ahead are left out, as PostHog does
 * with clocks that are wrong. A cohort leaf is membership in `cohort_people`.
 */
export async function findPersonPage(
  sql: SqlExecutor,
  projectId: number,
  filter: PersonPageFilter,
  page: { limit: number; offset: number; now: Date },
): Promise<{ rows: PersonRow[]; more: boolean }> {
  const params = new SqlParams();
  const project = params.add(projectId, "int");
  const where = [`p.project_id = ${project}`, `p.created_at < ${params.add(page.now.toISOString(), "timestamptz")} + interval '1 day'`];
  const ownerOf = (distinctId: string) =>
    `p.id IN (SELECT d.person_id FROM person_distinct_ids d WHERE d.project_id = ${project} AND d.distinct_id = ${params.add(distinctId, "text")})`;
  if (filter.distinctId !== null) where.push(ownerOf(filter.distinctId));
  if (filter.email !== null) where.push(`p.properties ->> 'email' = ${params.add(filter.email, "text")}`);
  if (filter.search !== null) {
    const either = [`(p.properties ->> 'email') ILIKE ${params.add(containsPattern(filter.search.text), "text")}`, ownerOf(filter.search.text)];
    if (filter.search.uuid !== null) either.push(`p.uuid = ${params.add(filter.search.uuid, "uuid")}`);
    where.push(`(${either.join(" OR ")})`);
  }
  if (filter.properties !== null) {
    where.push(
      propertiesSql(filter.properties, {
        params,
        // The list filters persons: a leaf of any type reads the person's properties.
        columns: { event: "p.properties", person: "p.properties" },
        now: page.now,
        cohort: (leaf) => {
          const member = `EXISTS (SELECT 1 FROM cohort_people cp JOIN cohorts c ON c.id = cp.cohort_id
                           WHERE cp.person_id = p.id AND cp.cohort_id = ${params.add(leaf.value, "int")} AND c.project_id = ${project})`;
          return leaf.operator === "not_in" ? `(NOT ${member})` : member;
        },
      }),
    );
  }
  const rows = await sql.query<PersonSqlRow>(
    `SELECT ${PERSON_COLUMNS} FROM persons p WHERE ${where.join(" AND ")}
      ORDER BY p.created_at DESC, p.id DESC
      LIMIT ${params.add(page.limit + 1, "int")} OFFSET ${params.add(page.offset, "bigint")}`,
    params.values,
  );
  return { rows: rows.slice(0, page.limit).map(personRowOf), more: rows.length > page.limit };
}

/** A project's person by uuid or integer key. */
export async function findPerson(sql: SqlExecutor, projectId: number, key: { uuid: string } | { id: number }): Promise<PersonRow | null> {
  const [column, value] = "uuid" in key ? ["p.uuid = $2::uuid", key.uuid] : ["p.id = $2::int", key.id];
  const rows = await sql.query<PersonSqlRow>(`SELECT ${PERSON_COLUMNS} FROM persons p WHERE p.project_id = $1::int AND ${column}`, [projectId, value]);
  return rows[0] ? personRowOf(rows[0]) : null;
}

/** The project's persons among `uuids`, and the owners of `distinctIds`. */
export async function findPersonsFor(sql: SqlExecutor, projectId: number, uuids: readonly string[], distinctIds: readonly string[]): Promise<PersonRow[]> {
  const rows = await sql.query<PersonSqlRow>(
    `SELECT ${PERSON_COLUMNS} FROM persons p
      WHERE p.project_id = $1::int
        AND (p.uuid = ANY($2::uuid[]) OR p.id IN (SELECT d.person_id FROM person_distinct_ids d WHERE d.project_id = $1::int AND d.distinct_id = ANY($3::text[])))`,
    [projectId, [...uuids], [...distinctIds]],
  );
  return rows.map(personRowOf);
}

/**
 * A management write of properties (`$set` keys, `$unset` keys) on the row as it is then,
 * in the caller's transaction; the activity log's entry goes in the same one. Returns the
 * properties before and after, or null when the person is gone.
 */
export async function setPersonProperties(
  client: DbClient,
  personId: number,
  set: Record<string, unknown>,
  unset: readonly string[],
): Promise<{ before: Record<string, unknown>; after: Record<string, unknown> } | null> {
  const rows = await client.$queryRaw<{ before: Record<string, unknown>; after: Record<string, unknown> }[]>`
    WITH old AS (SELECT id, properties FROM persons WHERE id = ${personId} FOR UPDATE)
    UPDATE persons p
       SET properties = (old.properties - ${[...unset]}::text[]) || ${JSON.stringify(set)}::jsonb,
           version = p.version + 1,
           updated_at = now()
      FROM old WHERE p.id = old.id
    RETURNING old.properties AS before, p.properties AS after`;
  return rows[0] ?? null;
}

/**
 * Deletes persons (their distinct ids, cohort memberships and flag overrides cascade) in the
 * caller's transaction; with `queueEvents`, a `person_deletions` row each in the same
 * transaction, so their events are deleted even if the process dies right after. The rows
 * are locked first, so a merge under way finishes before and the distinct ids read are final.
 */
export async function deletePersonRows(
  client: DbClient,
  projectId: number,
  personIds: readonly number[],
  queueEvents: boolean,
): Promise<{ persons: PersonRow[]; deletionIds: number[] }> {
  if (personIds.length === 0) return { persons: [], deletionIds: [] };
  const ids = [...personIds];
  await client.$queryRaw`SELECT id FROM persons WHERE project_id = ${projectId} AND id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
  const rows = await client.$queryRawUnsafe<PersonSqlRow[]>(
    `SELECT ${PERSON_COLUMNS} FROM persons p WHERE p.project_id = $1::int AND p.id = ANY($2::int[])`,
    projectId,
    ids,
  );
  const persons = rows.map(personRowOf);
  await client.$executeRaw`DELETE FROM persons WHERE project_id = ${projectId} AND id = ANY(${ids}::int[])`;
  const deletionIds = queueEvents ? await queueDeletions(client, projectId, persons) : [];
  return { persons, deletionIds };
}

interface CohortSqlRow {
  id: number;
  name: string;
  description: string;
  is_static: boolean;
  count: number | null;
  is_calculating: boolean;
  last_calculation: Date | string | null;
  created_at: Date | string;
}

/** The cohorts (not deleted) the person is a member of: its `cohort_people` rows, whatever kind of cohort. */
export async function cohortsOfPerson(sql: SqlExecutor, projectId: number, personId: number): Promise<PersonCohort[]> {
  const rows = await sql.query<CohortSqlRow>(
    `SELECT c.id, c.name, c.description, c.is_static, c.count, c.is_calculating, c.last_calculation, c.created_at
       FROM cohort_people cp JOIN cohorts c ON c.id = cp.cohort_id
      WHERE cp.person_id = $2::int AND c.project_id = $1::int AND NOT c.deleted
      ORDER BY c.name, c.id`,
    [projectId, personId],
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    is_static: row.is_static,
    count: row.count,
    is_calculating: row.is_calculating,
    last_calculation: row.last_calculation === null ? null : new Date(row.last_calculation).toISOString(),
    created_at: new Date(row.created_at).toISOString(),
    deleted: false,
  }));
}

/** The project's person property keys, one sample value per JSON type, with how many persons have each (the definitions backfill). */
export async function personPropertySamples(sql: SqlExecutor, projectId: number): Promise<{ key: string; sample: unknown; count: number }[]> {
  const rows = await sql.query<{ key: string; sample: string | null; count: number }>(
    `SELECT p.key, min(p.value::text) AS sample, count(*)::int AS count
       FROM persons, jsonb_each(persons.properties) p
      WHERE persons.project_id = $1::int
      GROUP BY p.key, jsonb_typeof(p.value)`,
    [projectId],
  );
  return rows.map((row) => ({ key: row.key, sample: row.sample === null ? null : JSON.parse(row.sample), count: row.count }));
}

/**
 * A person property's distinct values, most persons first (ties in text order): scalars as
 * they are, nulls left out; `search` keeps values whose text contains it, ignoring case.
 */
export async function personPropertyValues(sql: SqlExecutor, projectId: number, key: string, search: string | null, limit: number): Promise<{ value: unknown; count: number }[]> {
  const rows = await sql.query<{ value: string; count: number }>(
    `SELECT (properties -> $2::text)::text AS value, count(*)::int AS count
       FROM persons
      WHERE project_id = $1::int AND properties ? $2::text AND jsonb_typeof(properties -> $2::text) NOT IN ('null', 'object', 'array')
        AND ($3::text IS NULL OR strpos(lower(properties ->> $2::text), lower($3::text)) > 0)
      GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT $4::int`,
    [projectId, key, search, limit],
  );
  return rows.map((row) => ({ value: JSON.parse(row.value), count: row.count }));
}
