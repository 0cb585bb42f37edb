/** Batch exports' read of the persons tables (part of the persons store). */
import type { SqlExecutor } from "@/server/db/driver";

/**
 * Batch exports' persons (PostHog's persons export): a row per (distinct id, person) whose
 * latest change — the person's (`updated_at`: created, properties, merge) or the distinct id's
 * (attached, moved by a merge) — falls in [from, to), in (change time, distinct id) order after
 * `after`. Two arms, each narrowed by its own index on the change time.
 */
export async function personExportPage(sql: SqlExecutor, projectId: number, query: PersonExportQuery): Promise<PersonExportRow[]> {
  const params: unknown[] = [projectId, query.from, query.to, query.limit];
  let after = "";
  if (query.after) {
    params.push(query.after.at, query.after.distinctId);
    after = "WHERE (c.changed_at, d.distinct_id) > ($5::timestamptz, $6::text)";
  }
  return sql.query<PersonExportRow>(
    `WITH changed AS (
       SELECT d.id, GREATEST(p.updated_at, d.updated_at) AS changed_at FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
        WHERE d.project_id = $1 AND d.updated_at >= $2 AND d.updated_at < $3 AND p.updated_at < $3
       UNION
       SELECT d.id, GREATEST(p.updated_at, d.updated_at) FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id
        WHERE p.project_id = $1 AND p.updated_at >= $2 AND p.updated_at < $3 AND d.updated_at < $3
     )
     SELECT d.distinct_id, p.uuid::text AS person_id, p.properties, p.version AS person_version, d.version AS person_distinct_id_version,
            p.created_at, c.changed_at
       FROM changed c JOIN person_distinct_ids d ON d.id = c.id JOIN persons p ON p.id = d.person_id
       ${after}
      ORDER BY c.changed_at, d.distinct_id LIMIT $4`,
    params,
  );
}

export interface PersonExportQuery {
  from: Date;
  to: Date;
  after: { at: string; distinctId: string } | null;
  limit: number;
}

export interface PersonExportRow {
  distinct_id: string;
  person_id: string;
  properties: Record<string, unknown>;
  person_version: number;
  person_distinct_id_version: number;
  created_at: Date | string;
  changed_at: Date | string;
}

/** The properties of the project's persons among `uuids` (canonical uuid text), as they are now. */
export function personPropertiesOf(sql: SqlExecutor, projectId: number, uuids: readonly string[]): Promise<{ uuid: string; properties: Record<string, unknown> }[]> {
  return sql.query<{ uuid: string; properties: Record<string, unknown> }>(`SELECT uuid::text AS uuid, properties FROM persons WHERE project_id = $1::int AND uuid = ANY($2::uuid[])`, [
    projectId,
    uuids,
  ]);
}
