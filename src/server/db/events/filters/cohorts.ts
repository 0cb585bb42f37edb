/**
 * Cohort leaves of event filters (`{type: "cohort", key: "id", value: N}`), for both event
 * stores. A cohort's members are the rows of `cohort_people` (static and dynamic cohorts
 * alike; the cohorts domain computes them), persons by integer id; events carry the
 * person's uuid. Both stores first check that every cohort named is a live cohort of the
 * project (else a 400 that says the same for unknown, deleted and other projects' cohorts,
 * so nothing leaks); then PostgreSQL tests membership in the statement (a subquery over
 * `cohort_people`'s primary key), and ClickHouse — whose events live apart from persons —
 * tests it against the members' uuids read from PostgreSQL first, as person filters are.
 *
 * An event without a person is in no cohort: `not_in` (or a negated leaf) holds for it.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { AppError } from "@/server/errors";
import type { Binder } from "@/server/sql/bind";
import { isCohortFilter, isPropertyGroup, type CohortFilter, type PropertyNode } from "@/server/properties/contract";
import type { CohortResolver } from "@/server/properties/tree";

/** The cohort ids a filter tree names, each once, in order of first appearance. */
export function cohortIdsOf(nodes: readonly (PropertyNode | null | undefined)[]): number[] {
  const ids = new Set<number>();
  const walk = (node: PropertyNode) => {
    if (isPropertyGroup(node)) node.values.forEach(walk);
    else if (isCohortFilter(node)) ids.add(node.value);
  };
  for (const node of nodes) if (node) walk(node);
  return [...ids];
}

/** The 400 of a cohort that is not a live cohort of the project (whatever the reason, so that another project's cohorts do not show). */
export function unknownCohort(id: number, attr = "properties"): AppError {
  return new AppError("invalid_input", `${attr}: cohort ${id} does not exist in this project (or was deleted).`, attr);
}

/** The live (not deleted) cohorts of the project among `ids`, with their names; every id must be one, else a 400 on `attr`. */
export async function requireCohorts(sql: SqlExecutor, projectId: number, ids: readonly number[], attr = "properties"): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (ids.length === 0) return found;
  const rows = await sql.query<{ id: number; name: string }>(
    `SELECT id, name FROM cohorts WHERE project_id = $1::int AND id = ANY($2::int[]) AND NOT deleted`,
    [projectId, [...ids]],
  );
  for (const row of rows) found.set(Number(row.id), row.name);
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw unknownCohort(missing, attr);
  return found;
}

/** The filter's test from the membership test: `not_in` is its negation (the leaf's own negation is the walk's). */
function applyOperator(filter: CohortFilter, member: string): string {
  return filter.operator === "not_in" ? `(NOT ${member})` : member;
}

/**
 * PostgreSQL: the event's person (`personColumn`, a uuid) is a member. An IN over the
 * cohort's rows (its primary key's prefix) joined to persons' primary key: the planner
 * hashes the members once, under OR and NOT too; false, never NULL, without a person.
 */
export function postgresCohortResolver(params: Binder, personColumn = "e.person_id"): CohortResolver<string> {
  return (filter) =>
    applyOperator(
      filter,
      `(${personColumn} IS NOT NULL AND ${personColumn} IN (SELECT cp_p.uuid FROM cohort_people cp JOIN persons cp_p ON cp_p.id = cp.person_id WHERE cp.cohort_id = ${params.add(filter.value, "int")}))`,
    );
}

/**
 * The most members the cohorts of one ClickHouse query may have together: their uuids
 * travel as query parameters (a ClickHouse server takes about a megabyte of them).
 */
export const MAX_COHORT_MEMBERS = 20_000;

/** Each cohort's members' uuids (text), read from PostgreSQL; more than MAX_COHORT_MEMBERS together is a 400 on `attr`. */
export async function cohortMembers(sql: SqlExecutor, ids: readonly number[], attr = "properties"): Promise<Map<number, string[]>> {
  const members = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return members;
  const rows = await sql.query<{ cohort_id: number; uuid: string }>(
    `SELECT cp.cohort_id, p.uuid::text AS uuid FROM cohort_people cp JOIN persons p ON p.id = cp.person_id
      WHERE cp.cohort_id = ANY($1::int[]) LIMIT $2::int`,
    [[...ids], MAX_COHORT_MEMBERS + 1],
  );
  if (rows.length > MAX_COHORT_MEMBERS) {
    throw new AppError(
      "invalid_input",
      `${attr}: the cohorts of this query have more than ${MAX_COHORT_MEMBERS} members together, more than the ClickHouse event store takes for a cohort filter; use a smaller cohort or a person-property filter.`,
      attr,
    );
  }
  for (const row of rows) members.get(Number(row.cohort_id))!.push(row.uuid);
  return members;
}

/** ClickHouse: the event's person is among the cohort's members (resolved by cohortMembers); each cohort's list bound once. */
export function clickHouseCohortResolver(members: ReadonlyMap<number, readonly string[]>, params: Binder, personColumn = "e.person_id"): CohortResolver<string> {
  const bound = new Map<number, string>();
  return (filter) => {
    let list = bound.get(filter.value);
    if (list === undefined) {
      const uuids = members.get(filter.value);
      // Checked before any statement is built (requireCohorts, cohortMembers): a miss is a bug.
      if (!uuids) throw new Error(`cohort ${filter.value} was not resolved`);
      bound.set(filter.value, (list = params.add(uuids, "uuid[]")));
    }
    // has() of a NULL person is false: no person, no cohort.
    return applyOperator(filter, `has(${list}, ${personColumn})`);
  };
}
