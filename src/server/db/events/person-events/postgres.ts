/**
 * A person's events in PostgreSQL: moved to another person on a merge, deleted with the
 * person, and counted for cohorts' behavioral conditions. The sessions table and the deltas
 * not yet merged into it follow the events (sessions/postgres.ts).
 */
import type { SqlExecutor } from "@/server/db/driver";
import { SqlParams } from "@/server/properties/sql";
import { COUNT_COMPARISONS, type EventCountQuery, type PersonEvents } from "./query";

/**
 * `personsWithEventCount` as a subquery of person uuids, to use inside another PostgreSQL
 * statement (a cohort's membership over persons) as well as on its own.
 */
export function personsWithEventCountSql(params: SqlParams, projectId: number, query: EventCountQuery): string {
  const project = params.add(projectId, "int");
  const event = params.add(query.event, "text");
  const since = params.add(query.since.toISOString(), "timestamptz");
  const times = params.add(query.count.value, "bigint");
  return (
    `SELECT ev.person_id FROM events ev WHERE ev.project_id = ${project} AND ev.event = ${event} AND ev.timestamp >= ${since}` +
    ` AND ev.person_id IS NOT NULL GROUP BY ev.person_id HAVING count(*) ${COUNT_COMPARISONS[query.count.operator]} ${times}`
  );
}

/**
 * The same condition for one person (`personUuid`, a column of the outer statement), by the
 * person's own events (events' (project_id, person_id) index): a statement over a chunk of
 * persons then reads only their events. A person without such events never matches, whatever
 * the comparison (as in the grouped form above).
 */
export function personHasEventCountSql(params: SqlParams, projectId: number, query: EventCountQuery, personUuid: string): string {
  const project = params.add(projectId, "int");
  const event = params.add(query.event, "text");
  const since = params.add(query.since.toISOString(), "timestamptz");
  const times = params.add(query.count.value, "bigint");
  return (
    `(SELECT count(*) > 0 AND count(*) ${COUNT_COMPARISONS[query.count.operator]} ${times} FROM events ev` +
    ` WHERE ev.project_id = ${project} AND ev.person_id = ${personUuid} AND ev.event = ${event} AND ev.timestamp >= ${since})`
  );
}

export async function postgresPersonsWithEventCount(sql: SqlExecutor, projectId: number, query: EventCountQuery): Promise<string[]> {
  const params = new SqlParams();
  const rows = await sql.query<{ person_id: string }>(personsWithEventCountSql(params, projectId, query), params.values);
  return rows.map((row) => row.person_id);
}

/** `tx` is the PostgreSQL transaction of the merge: the events move inside it. */
export async function postgresReassignPerson(sql: SqlExecutor, projectId: number, sourceUuid: string, targetUuid: string): Promise<void> {
  await sql.query(`UPDATE events SET person_id = $1::uuid WHERE project_id = $3 AND person_id = $2::uuid`, [targetUuid, sourceUuid, projectId]);
  await sql.query(`UPDATE sessions SET person_id = $1::uuid, updated_at = now() WHERE project_id = $3 AND person_id = $2::uuid`, [targetUuid, sourceUuid, projectId]);
  await sql.query(`UPDATE session_deltas SET person_id = $1::uuid WHERE project_id = $3 AND person_id = $2::uuid`, [targetUuid, sourceUuid, projectId]);
}

export async function postgresDeletePersonEvents(sql: SqlExecutor, projectId: number, person: PersonEvents, limit: number): Promise<number> {
  // By primary key, picked through the person index and the distinct-id index (two arms, so each uses its own).
  const rows = await sql.query<{ n: number }>(
    `WITH doomed AS (
       (SELECT uuid FROM events WHERE project_id = $1::int AND person_id = $2::uuid LIMIT $4::int)
       UNION ALL
       (SELECT uuid FROM events WHERE project_id = $1::int AND distinct_id = ANY($3::text[]) AND person_id IS NULL LIMIT $4::int)
       LIMIT $4::int
     ), gone AS (
       DELETE FROM events WHERE project_id = $1::int AND uuid IN (SELECT uuid FROM doomed) RETURNING 1
     ) SELECT count(*)::int AS n FROM gone`,
    [projectId, person.uuid, [...person.distinctIds], limit],
  );
  // The last call (nothing left) takes their sessions (entry and exit URLs) with them.
  if (rows[0]!.n === 0) {
    for (const table of ["session_deltas", "sessions"]) {
      await sql.query(`DELETE FROM ${table} WHERE project_id = $1::int AND (person_id = $2::uuid OR distinct_id = ANY($3::text[]))`, [projectId, person.uuid, [...person.distinctIds]]);
    }
  }
  return rows[0]!.n;
}
