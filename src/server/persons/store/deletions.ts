/**
 * The `person_deletions` queue: a row per deleted person whose events the deletion worker
 * (deletion-worker.ts) removes in the background, with its progress. Part of persons' store
 * (store.ts re-exports it).
 */
import type { SqlExecutor } from "@/server/db/driver";
import type { DbClient } from "@/server/db/transaction";
import type { PersonRow } from "../present";

/** One `person_deletions` row per person: its events are deleted in the background (not the person). */
export async function queueDeletions(client: DbClient, projectId: number, persons: readonly PersonRow[]): Promise<number[]> {
  const ids: number[] = [];
  for (const person of persons) {
    const created = await client.personDeletion.create({
      data: { projectId, personUuid: person.uuid, distinctIds: person.distinctIds },
      select: { id: true },
    });
    ids.push(created.id);
  }
  return ids;
}

interface DeletionSqlRow {
  id: number;
  project_id: number;
  person_uuid: string;
  distinct_ids: string[];
  deleted_events: number;
  attempts: number;
  last_error: string | null;
  created_at: Date | string;
  finished_at: Date | string | null;
}

export interface DeletionRow {
  id: number;
  projectId: number;
  personUuid: string;
  distinctIds: string[];
  deletedEvents: number;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

function deletionRowOf(row: DeletionSqlRow): DeletionRow {
  return {
    id: row.id,
    projectId: row.project_id,
    personUuid: row.person_uuid,
    distinctIds: row.distinct_ids,
    deletedEvents: row.deleted_events,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: new Date(row.created_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
  };
}

const DELETION_COLUMNS = `id, project_id, person_uuid::text AS person_uuid, distinct_ids, deleted_events, attempts, last_error, created_at, finished_at`;

/** Deletions not finished yet, oldest first. */
export async function unfinishedDeletions(sql: SqlExecutor, limit: number): Promise<DeletionRow[]> {
  const rows = await sql.query<DeletionSqlRow>(`SELECT ${DELETION_COLUMNS} FROM person_deletions WHERE finished_at IS NULL ORDER BY id LIMIT $1::int`, [limit]);
  return rows.map(deletionRowOf);
}

/** The newest deletion of a person's events in a project. */
export async function latestDeletion(sql: SqlExecutor, projectId: number, personUuid: string): Promise<DeletionRow | null> {
  const rows = await sql.query<DeletionSqlRow>(
    `SELECT ${DELETION_COLUMNS} FROM person_deletions WHERE project_id = $1::int AND person_uuid = $2::uuid ORDER BY id DESC LIMIT 1`,
    [projectId, personUuid],
  );
  return rows[0] ? deletionRowOf(rows[0]) : null;
}

export async function markDeletionAttempt(sql: SqlExecutor, id: number): Promise<void> {
  await sql.query(`UPDATE person_deletions SET attempts = attempts + 1 WHERE id = $1::int`, [id]);
}

/** Adds a batch's count as soon as it is done, so the count survives a crash between batches. */
export async function addDeletedEvents(sql: SqlExecutor, id: number, deleted: number): Promise<void> {
  await sql.query(`UPDATE person_deletions SET deleted_events = deleted_events + $2::int, last_error = NULL WHERE id = $1::int`, [id, deleted]);
}

export async function finishDeletion(sql: SqlExecutor, id: number): Promise<void> {
  await sql.query(`UPDATE person_deletions SET finished_at = now(), last_error = NULL WHERE id = $1::int AND finished_at IS NULL`, [id]);
}

export async function failDeletion(sql: SqlExecutor, id: number, message: string): Promise<void> {
  await sql.query(`UPDATE person_deletions SET last_error = $2::text WHERE id = $1::int`, [id, message.slice(0, 2000)]);
}
