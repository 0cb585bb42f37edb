import type { SqlDriver } from "@/server/db/driver";

/** PostHog allows five group types per project, indexes 0–4. */
export const MAX_GROUP_TYPES = 5;

/**
 * `$groupidentify`: the group type gets an index on first sight (at most five), and the
 * group's properties are merged with `$group_set` in one upsert.
 */
export class GroupsService {
  private readonly typeIndexes = new Map<string, number>();

  constructor(private readonly sql: SqlDriver) {}

  /** The index of a group type, registering it if there is room; null when all five are taken. */
  async groupTypeIndex(projectId: number, groupType: string): Promise<number | null> {
    const key = `${projectId}\u0000${groupType}`;
    const cached = this.typeIndexes.get(key);
    if (cached !== undefined) return cached;
    // Each attempt takes the lowest free slot; one lost to a concurrent writer of another
    // type (the unique index says no) is retried on the next free slot.
    let index: number | undefined;
    for (let attempt = 0; attempt <= MAX_GROUP_TYPES && index === undefined; attempt++) {
      const rows = await this.sql.query<{ group_type_index: number }>(
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
      index = rows[0]?.group_type_index;
      if (index !== undefined) break;
      // Lost a race (for this type or for the slot), or no room: read what is there now.
      const all = await this.sql.query<{ group_type: string; group_type_index: number }>(
        `SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1`,
        [projectId],
      );
      index = all.find((row) => row.group_type === groupType)?.group_type_index;
      if (index === undefined && all.length >= MAX_GROUP_TYPES) return null;
    }
    if (index === undefined) return null;
    this.typeIndexes.set(key, index);
    return index;
  }

  async identifyGroup(projectId: number, groupType: string, groupKey: string, properties: Record<string, unknown>): Promise<boolean> {
    const index = await this.groupTypeIndex(projectId, groupType);
    if (index === null) return false;
    await this.sql.query(
      `INSERT INTO groups (project_id, group_type_index, group_key, group_properties, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, now())
       ON CONFLICT (project_id, group_type_index, group_key)
       DO UPDATE SET group_properties = groups.group_properties || EXCLUDED.group_properties,
                     version = groups.version + 1, updated_at = now()`,
      [projectId, index, groupKey, JSON.stringify(properties)],
    );
    return true;
  }
}
