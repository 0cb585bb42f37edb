/** Every database read and write of groups and group types (SQL on the ingestion path). */
import type { SqlExecutor } from "@/server/db/driver";
import { MAX_GROUP_TYPES } from "./contract";

/**
 * The index of `groupType`, taking the lowest free slot when the type is new; none when the
 * slot was lost to a concurrent writer (the unique index says no) or all are taken.
 */
export async function claimGroupTypeIndex(sql: SqlExecutor, projectId: number, groupType: string): Promise<number | undefined> {
  const rows = await sql.query<{ group_type_index: number }>(
    `WITH existing AS (
       SELECT group_type_index FROM group_type_mappings WHERE project_id = $1 AND group_type = $2
     ), inserted AS (
       INSERT INTO group_type_mappings (project_id, group_type, group_type_index)
       SELECT $1, $2, n FROM generate_series(0, ${MAX_GROUP_TYPES - 1}) n
        WHERE NOT EXISTS (SELECT 1 FROM existing)
          AND n NOT IN (SELECT group_type_index FROM group_type_mappings WHERE project_id = $1)
        ORDER BY n LIMIT 1
       ON CONFLICT DO NOTHING
       RETURNING group_type_index
     )
     SELECT group_type_index FROM existing UNION ALL SELECT group_type_index FROM inserted`,
    [projectId, groupType],
  );
  return rows[0]?.group_type_index;
}

/** The project's group types and their indexes. */
export function groupTypeMappings(sql: SqlExecutor, projectId: number) {
  return sql.query<{ group_type: string; group_type_index: number }>(`SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1`, [projectId]);
}

/** Creates the group, or merges `properties` into the stored ones, in one upsert. */
export async function upsertGroup(sql: SqlExecutor, projectId: number, groupTypeIndex: number, groupKey: string, properties: Record<string, unknown>): Promise<void> {
  await sql.query(
    `INSERT INTO groups (project_id, group_type_index, group_key, group_properties, updated_at)
     VALUES ($1, $2, $3, $4::jsonb, now())
     ON CONFLICT (project_id, group_type_index, group_key)
     DO UPDATE SET group_properties = groups.group_properties || EXCLUDED.group_properties,
                   version = groups.version + 1, updated_at = now()`,
    [projectId, groupTypeIndex, groupKey, JSON.stringify(properties)],
  );
}
