/**
 * Every database read and write of cohorts: the rows (Prisma), their members in
 * `cohort_people` (plain SQL: bulk inserts, and the membership computation as one
 * INSERT … SELECT over persons), and what the background worker looks for.
 */
import type { Prisma } from "@/generated/prisma/client";
import type { Database } from "@/server/db";
import { ChunkSizer, yieldToRequests } from "@/server/db/chunks";
import type { SqlExecutor, WorkerSql } from "@/server/db/driver";
import type { EventCountQuery } from "@/server/db/events";
import { personHasEventCountSql, personsWithEventCountSql } from "@/server/db/events/person-events/postgres";
import type { DbClient, Tx } from "@/server/db/transaction";
import type { BehavioralFilter, CohortFilter, PropertyGroup } from "@/server/properties/contract";
import { propertiesSql, SqlParams } from "@/server/properties/sql";
import type { PersonRow } from "@/server/persons/present";
import type { CohortListQuery } from "./contract";
import type { CsvIdKind } from "./csv";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";

const COHORT_INCLUDE = { createdBy: { select: USER_BASIC_COLUMNS } } as const;

export type CohortRow = Prisma.CohortGetPayload<{ include: typeof COHORT_INCLUDE }>;

export function findCohort(client: DbClient, projectId: number, id: number): Promise<CohortRow | null> {
  return client.cohort.findFirst({ where: { id, projectId }, include: COHORT_INCLUDE });
}

/** The list's rows: not deleted, newest first; behavioral ones (and those naming them) are left out by the service. */
export async function listCohortRows(client: DbClient, projectId: number, query: CohortListQuery): Promise<CohortRow[]> {
  const where: Prisma.CohortWhereInput = {
    projectId,
    deleted: false,
    ...(query.type ? { isStatic: query.type === "static" } : {}),
    ...(query.search ? { name: { contains: query.search, mode: "insensitive" } } : {}),
    ...(query.created_by_id ? { createdById: query.created_by_id } : {}),
  };
  return client.cohort.findMany({ where, include: COHORT_INCLUDE, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

export interface CohortDefinition {
  id: number;
  name: string;
  isStatic: boolean;
  deleted: boolean;
  filters: unknown;
}

/** The definitions of some cohorts of the project (missing ids are simply absent). */
export function cohortDefinitions(client: DbClient, projectId: number, ids: number[]): Promise<CohortDefinition[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return client.cohort.findMany({ where: { projectId, id: { in: ids } }, select: { id: true, name: true, isStatic: true, deleted: true, filters: true } });
}

/** cohortDefinitions for the background worker, on its own SQL handle. */
export function cohortDefinitionsSql(sql: SqlExecutor, projectId: number, ids: number[]): Promise<CohortDefinition[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return sql.query<CohortDefinition>(
    `SELECT id, name, is_static AS "isStatic", deleted, filters FROM cohorts WHERE project_id = $1::int AND id = ANY($2::int[])`,
    [projectId, ids],
  );
}

/** What a computation reads of the cohort it computes (on the worker's SQL handle). */
export async function cohortForComputation(sql: SqlExecutor, id: number) {
  const rows = await sql.query<{ id: number; projectId: number; version: number; isStatic: boolean; deleted: boolean; filters: unknown }>(
    `SELECT id, project_id AS "projectId", version, is_static AS "isStatic", deleted, filters FROM cohorts WHERE id = $1::int`,
    [id],
  );
  return rows[0] ?? null;
}

export interface CohortWrite {
  name: string;
  description: string;
  isStatic: boolean;
  filters: unknown;
  deleted: boolean;
}

export async function insertCohort(tx: Tx, projectId: number, createdById: number, cohort: CohortWrite & { isCalculating: boolean }): Promise<number> {
  const row = await tx.cohort.create({
    data: { projectId, createdById, ...cohort, filters: cohort.filters as Prisma.InputJsonValue, version: 1 },
    select: { id: true },
  });
  return row.id;
}

export async function updateCohortRow(tx: Tx, id: number, cohort: Partial<CohortWrite> & { version?: number; isCalculating?: boolean; count?: number | null; computedVersion?: number | null }): Promise<void> {
  const { filters, ...rest } = cohort;
  await tx.cohort.update({
    where: { id },
    data: { ...rest, ...(filters === undefined ? {} : { filters: filters as Prisma.InputJsonValue }) },
  });
}

// ---------------------------------------------------------------------------
// Members
// ---------------------------------------------------------------------------

const UUID_TEXT = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const INSERT_CHUNK = 10_000;

/** The persons of the project that `ids` name (uuids, distinct ids or `email` properties), as `persons.id`. */
async function personIdsBy(sql: SqlExecutor, projectId: number, kind: CsvIdKind, ids: string[]): Promise<number[]> {
  if (kind === "person_id") {
    const uuids = ids.filter((id) => UUID_TEXT.test(id));
    if (uuids.length === 0) return [];
    const rows = await sql.query<{ id: number }>(`SELECT id FROM persons WHERE project_id = $1::int AND uuid = ANY($2::uuid[])`, [projectId, uuids]);
    return rows.map((row) => row.id);
  }
  if (kind === "email") {
    const rows = await sql.query<{ id: number }>(`SELECT id FROM persons WHERE project_id = $1::int AND properties ->> 'email' = ANY($2::text[])`, [projectId, ids]);
    return rows.map((row) => row.id);
  }
  const rows = await sql.query<{ id: number }>(`SELECT DISTINCT person_id AS id FROM person_distinct_ids WHERE project_id = $1::int AND distinct_id = ANY($2::text[])`, [projectId, ids]);
  return rows.map((row) => row.id);
}

/**
 * Adds the persons `ids` name to a static cohort and recounts it, in one transaction.
 * Returns how many of them are persons of the project.
 */
export async function addStaticMembers(db: Database, projectId: number, cohortId: number, kind: CsvIdKind, ids: string[]): Promise<number> {
  return db.sql.transaction(async (tx) => {
    let found = 0;
    for (let start = 0; start < ids.length; start += INSERT_CHUNK) {
      const personIds = await personIdsBy(tx, projectId, kind, ids.slice(start, start + INSERT_CHUNK));
      found += personIds.length;
      if (personIds.length > 0) {
        await tx.query(
          `INSERT INTO cohort_people (cohort_id, person_id, version) SELECT $1::int, unnest($2::int[]), 0 ON CONFLICT (cohort_id, person_id) DO NOTHING`,
          [cohortId, personIds],
        );
      }
    }
    await recount(tx, cohortId);
    return found;
  });
}

/** Removes one person (by uuid) from a static cohort; whether they were a member. */
export async function removeStaticMember(db: Database, projectId: number, cohortId: number, personUuid: string): Promise<boolean> {
  return db.sql.transaction(async (tx) => {
    const rows = await tx.query(
      `DELETE FROM cohort_people cp USING persons p WHERE cp.cohort_id = $1::int AND cp.person_id = p.id AND p.project_id = $2::int AND p.uuid = $3::uuid RETURNING 1`,
      [cohortId, projectId, personUuid],
    );
    await recount(tx, cohortId);
    return rows.length > 0;
  });
}

async function recount(tx: SqlExecutor, cohortId: number): Promise<void> {
  await tx.query(
    `UPDATE cohorts SET count = (SELECT count(*) FROM cohort_people WHERE cohort_id = $1::int), is_calculating = false, last_calculation = now(),
            computed_version = version WHERE id = $1::int`,
    [cohortId],
  );
}

/** One page of a cohort's members (persons with their distinct ids, at most 10 each, as PostHog), oldest member person first. */
export async function memberPage(sql: SqlExecutor, projectId: number, cohortId: number, take: number, skip: number): Promise<{ count: number; rows: PersonRow[] }> {
  const [counted] = await sql.query<{ n: number | string }>(`SELECT count(*) AS n FROM cohort_people WHERE cohort_id = $1::int`, [cohortId]);
  const rows = await sql.query<{ id: number; uuid: string; properties: unknown; is_identified: boolean; created_at: Date; distinct_ids: string[] | null }>(
    `SELECT p.id, p.uuid::text AS uuid, p.properties, p.is_identified, p.created_at,
            ARRAY(SELECT d.distinct_id FROM person_distinct_ids d WHERE d.person_id = p.id ORDER BY d.id LIMIT 10) AS distinct_ids
       FROM cohort_people cp JOIN persons p ON p.id = cp.person_id
      WHERE cp.cohort_id = $1::int AND p.project_id = $2::int
      ORDER BY p.id LIMIT $3::int OFFSET $4::bigint`,
    [cohortId, projectId, take, skip],
  );
  return {
    count: Number(counted?.n ?? 0),
    rows: rows.map((row) => ({
      id: row.id,
      uuid: row.uuid,
      properties: row.properties,
      isIdentified: row.is_identified,
      createdAt: new Date(row.created_at),
      distinctIds: row.distinct_ids ?? [],
      lastSeenAt: null,
    })),
  };
}

// ---------------------------------------------------------------------------
// The membership computation
// ---------------------------------------------------------------------------

/** What a computation needs, resolved by the service: the tree, the cohorts it nests, and where behavioral leaves read. */
export interface MembershipPlan {
  cohortId: number;
  projectId: number;
  /** The definition version computed: the swap happens only if it is still the cohort's. */
  version: number;
  tree: PropertyGroup;
  /** Nested cohorts (transitively, already checked for loops): static ones by their rows, dynamic ones inlined. */
  nested: ReadonlyMap<number, { isStatic: boolean; tree: PropertyGroup }>;
  /** A behavioral leaf's event count (the window worked out by the service). */
  eventCount(filter: BehavioralFilter): EventCountQuery;
  /** Persons of each behavioral leaf when the events are not in this database (ClickHouse); null: count them here. */
  behavioralPersons: ReadonlyMap<BehavioralFilter, string[]> | null;
  now: Date;
}

/**
 * The boolean over `p` (a persons row) that holds for the members. `perPerson`: behavioral
 * leaves read each person's own events (a statement over a chunk of persons), instead of
 * grouping the project's events once (a statement over all of them).
 */
function membershipPredicate(plan: MembershipPlan, params: SqlParams, perPerson = false): string {
  const compile = (tree: PropertyGroup): string =>
    propertiesSql(tree, {
      params,
      columns: { event: "'{}'::jsonb", person: "p.properties" },
      now: plan.now,
      cohort: (leaf: CohortFilter) => {
        const nested = plan.nested.get(leaf.value);
        // The service resolves every nested cohort first; one missing here is no one.
        const member = !nested
          ? "FALSE"
          : nested.isStatic
            ? `EXISTS (SELECT 1 FROM cohort_people ncp WHERE ncp.cohort_id = ${params.add(leaf.value, "int")} AND ncp.person_id = p.id)`
            : compile(nested.tree);
        return leaf.operator === "not_in" ? `(NOT ${member})` : member;
      },
      behavioral: (leaf: BehavioralFilter) => {
        const persons = plan.behavioralPersons?.get(leaf);
        if (persons) return `(p.uuid = ANY(${params.add(persons, "uuid[]")}))`;
        if (perPerson) return personHasEventCountSql(params, plan.projectId, plan.eventCount(leaf), "p.uuid");
        return `(p.uuid IN (${personsWithEventCountSql(params, plan.projectId, plan.eventCount(leaf))}))`;
      },
    });
  return compile(plan.tree);
}

export type SwapOutcome = { status: "done"; count: number } | { status: "busy" } | { status: "stale" } | { status: "gone" };

/**
 * Computes a dynamic cohort's members and swaps them in, in one transaction: readers see the
 * old rows until it commits. The cohort's row is locked for the duration (`SKIP LOCKED`: a
 * computation already under way, on this node or another, makes this one `busy`).
 */
export async function replaceMembership(sql: Pick<WorkerSql, "transaction">, plan: MembershipPlan): Promise<SwapOutcome> {
  return sql.transaction(async (tx) => {
    const [row] = await tx.query<{ version: number; deleted: boolean; is_static: boolean }>(
      `SELECT version, deleted, is_static FROM cohorts WHERE id = $1::int FOR UPDATE SKIP LOCKED`,
      [plan.cohortId],
    );
    if (!row) {
      const exists = await tx.query(`SELECT 1 FROM cohorts WHERE id = $1::int`, [plan.cohortId]);
      return exists.length > 0 ? { status: "busy" } : { status: "gone" };
    }
    if (row.deleted || row.is_static) return { status: "gone" };
    if (row.version !== plan.version) return { status: "stale" };
    const params = new SqlParams();
    const cohort = params.add(plan.cohortId, "int");
    const version = params.add(plan.version, "int");
    const project = params.add(plan.projectId, "int");
    const predicate = membershipPredicate(plan, params);
    await tx.query(`DELETE FROM cohort_people WHERE cohort_id = $1::int`, [plan.cohortId]);
    const [inserted] = await tx.query<{ n: number | string }>(
      `WITH added AS (INSERT INTO cohort_people (cohort_id, person_id, version)
         SELECT ${cohort}, p.id, ${version} FROM persons p WHERE p.project_id = ${project} AND ${predicate} RETURNING 1)
       SELECT count(*) AS n FROM added`,
      params.values,
    );
    const count = Number(inserted?.n ?? 0);
    await tx.query(
      `UPDATE cohorts SET count = $2::int, computed_version = $3::int, is_calculating = false, last_calculation = $4::timestamptz,
              errors_calculating = 0, last_error = NULL WHERE id = $1::int`,
      [plan.cohortId, count, plan.version, plan.now.toISOString()],
    );
    return { status: "done", count };
  });
}

// Computations under way in this process (the embedded database has no other): a second one of the same cohort is `busy`.
const COMPUTING = Symbol.for("burrow.cohortsComputing");
const computing = ((globalThis as { [COMPUTING]?: Set<number> })[COMPUTING] ??= new Set());

/** Persons per chunk of the embedded computation: the first guess, and the bounds the sizer keeps to. */
// A person with behavioral conditions costs ~0.1–0.2 ms: the first chunk is small, the next ones grow to the target.
const MEMBER_CHUNK = { initial: 100, min: 20, max: 50_000 } as const;

/**
 * The embedded database's computation: the same members as replaceMembership, applied chunk
 * by chunk over the project's persons in id order (keyset), each chunk one short statement on
 * the worker's handle that deletes the chunk's persons who no longer match and adds those who
 * now do (ChunkSizer keeps each ~20 ms). A whole-project transaction would hold the one
 * connection for as long as the computation takes; instead readers see each person's
 * membership go from the old definition's to the new one's as its chunk passes, members that
 * stay members are never absent, and the count, computed version and calculation fields change
 * at the end. A definition changed meanwhile stops it (`stale`: computed again).
 */
export async function updateMembershipInChunks(sql: WorkerSql, plan: MembershipPlan): Promise<SwapOutcome> {
  if (computing.has(plan.cohortId)) return { status: "busy" };
  computing.add(plan.cohortId);
  try {
    const [row] = await sql.query<{ version: number; deleted: boolean; is_static: boolean }>(`SELECT version, deleted, is_static FROM cohorts WHERE id = $1::int`, [plan.cohortId]);
    if (!row || row.deleted || row.is_static) return { status: "gone" };
    if (row.version !== plan.version) return { status: "stale" };
    const params = new SqlParams();
    const cohort = params.add(plan.cohortId, "int");
    const version = params.add(plan.version, "int");
    const project = params.add(plan.projectId, "int");
    const predicate = membershipPredicate(plan, params, true);
    params.add(0, "int");
    const afterIndex = params.values.length - 1;
    const after = `$${afterIndex + 1}::int`;
    params.add(0, "int");
    const takeIndex = params.values.length - 1;
    const take = `$${takeIndex + 1}::int`;
    const statement = `WITH chunk AS (
         SELECT p.id, COALESCE(${predicate}, FALSE) AS member FROM persons p WHERE p.project_id = ${project} AND p.id > ${after} ORDER BY p.id LIMIT ${take}
       ), removed AS (
         DELETE FROM cohort_people cp USING chunk WHERE cp.cohort_id = ${cohort} AND cp.person_id = chunk.id AND NOT chunk.member RETURNING 1
       ), added AS (
         INSERT INTO cohort_people (cohort_id, person_id, version) SELECT ${cohort}, chunk.id, ${version} FROM chunk WHERE chunk.member
         ON CONFLICT (cohort_id, person_id) DO UPDATE SET version = EXCLUDED.version WHERE cohort_people.version IS DISTINCT FROM EXCLUDED.version RETURNING 1
       )
       SELECT (SELECT count(*) FROM chunk)::int AS persons, (SELECT count(*) FROM chunk WHERE member)::int AS members, (SELECT max(id) FROM chunk) AS last,
              (SELECT version FROM cohorts WHERE id = ${cohort} AND NOT deleted) AS version, (SELECT count(*) FROM removed) + (SELECT count(*) FROM added) AS changed`;
    const values = params.values;
    const sizer = new ChunkSizer(MEMBER_CHUNK.initial, MEMBER_CHUNK.min, MEMBER_CHUNK.max);
    let count = 0;
    for (let last = 0; ; ) {
      const size = sizer.size;
      values[afterIndex] = last;
      values[takeIndex] = size;
      const [chunk] = await sql.query<{ persons: number; members: number; last: number | null; version: number | null }>(statement, values);
      if (chunk!.version !== plan.version) return chunk!.version === null ? { status: "gone" } : { status: "stale" };
      sizer.took(sql.lastHoldMs, size);
      count += chunk!.members;
      if (chunk!.persons < size || chunk!.last === null) break;
      last = chunk!.last;
      await yieldToRequests();
    }
    // Members whose persons moved to another project or were deleted went with them (cascade); the count is what was found.
    const [done] = await sql.query<{ id: number }>(
      `UPDATE cohorts SET count = $2::int, computed_version = $3::int, is_calculating = false, last_calculation = $4::timestamptz,
              errors_calculating = 0, last_error = NULL WHERE id = $1::int AND version = $3::int AND NOT deleted RETURNING id`,
      [plan.cohortId, count, plan.version, plan.now.toISOString()],
    );
    return done ? { status: "done", count } : { status: "stale" };
  } finally {
    computing.delete(plan.cohortId);
  }
}

/** A computation failed: counted, kept, and the cohort no longer shown as calculating (until the next try). */
export async function recordFailure(sql: SqlExecutor, cohortId: number, version: number, message: string): Promise<void> {
  await sql.query(
    `UPDATE cohorts SET errors_calculating = errors_calculating + 1, last_error = $3::text, is_calculating = false, last_calculation = now()
      WHERE id = $1::int AND version = $2::int`,
    [cohortId, version, message.slice(0, 2000)],
  );
}

export interface DueCohort {
  id: number;
  project_id: number;
}

/**
 * Dynamic cohorts the worker should compute: marked calculating (new, changed, or left so by
 * a crash), never computed, last computed before `staleBefore`, or whose project's persons
 * changed since their last computation (at most once per `personsQuietAfter`).
 */
export function dueCohorts(sql: SqlExecutor, staleBefore: Date, changedSince: Date, limit: number): Promise<DueCohort[]> {
  return sql.query<DueCohort>(
    `WITH live AS (SELECT id, project_id, is_calculating, last_calculation FROM cohorts WHERE NOT deleted AND NOT is_static),
          changed AS (SELECT p.project_id, max(p.updated_at) AS at FROM persons p WHERE p.project_id IN (SELECT project_id FROM live) GROUP BY p.project_id)
     SELECT live.id, live.project_id FROM live LEFT JOIN changed ON changed.project_id = live.project_id
      WHERE live.is_calculating OR live.last_calculation IS NULL
         OR live.last_calculation < $1::timestamptz
         OR (changed.at > live.last_calculation AND live.last_calculation < $2::timestamptz)
      ORDER BY live.is_calculating DESC, live.last_calculation ASC NULLS FIRST LIMIT $3::int`,
    [staleBefore.toISOString(), changedSince.toISOString(), limit],
  );
}
