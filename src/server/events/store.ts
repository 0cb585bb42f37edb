/**
 * The events API's own database reads: the persons of listed events, which live in
 * PostgreSQL whichever store holds the events (the events themselves are read through
 * `db.events`, src/server/db/events/), and the cohorts the explorer's filter offers.
 */
import type { SqlExecutor } from "@/server/db/driver";

export interface PersonSummary {
  uuid: string;
  is_identified: boolean;
  properties: Record<string, unknown>;
  distinct_ids: string[];
}

/** The persons of some events, with every distinct id (oldest first), by uuid. */
export async function personsByUuid(sql: SqlExecutor, projectId: number, uuids: readonly (string | null)[]): Promise<Map<string, PersonSummary>> {
  const wanted = [...new Set(uuids.filter((uuid): uuid is string => uuid !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await sql.query<PersonSummary>(
    `SELECT p.uuid::text AS uuid, p.is_identified, p.properties,
            COALESCE((SELECT jsonb_agg(d.distinct_id ORDER BY d.id) FROM person_distinct_ids d WHERE d.person_id = p.id), '[]'::jsonb) AS distinct_ids
       FROM persons p
      WHERE p.project_id = $1::int AND p.uuid = ANY($2::uuid[])`,
    [projectId, wanted],
  );
  return new Map(rows.map((row) => [row.uuid, row]));
}

/** The most cohorts the explorer's filter offers. */
export const COHORT_CHOICES_LIMIT = 500;

/** The project's live cohorts, by name: what the explorer's cohort filter offers (id and name only). */
export async function findCohortChoices(sql: SqlExecutor, projectId: number): Promise<{ id: number; name: string }[]> {
  return sql.query<{ id: number; name: string }>(
    `SELECT id, name FROM cohorts WHERE project_id = $1::int AND NOT deleted ORDER BY lower(name), id LIMIT $2::int`,
    [projectId, COHORT_CHOICES_LIMIT],
  );
}
