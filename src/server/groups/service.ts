import type { SqlDriver } from "@/server/db/driver";
import { MAX_GROUP_TYPES } from "./contract";
import { claimGroupTypeIndex, groupTypeMappings, upsertGroup } from "./store";

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
      index = await claimGroupTypeIndex(this.sql, projectId, groupType);
      if (index !== undefined) break;
      // Lost a race (for this type or for the slot), or no room: read what is there now.
      const all = await groupTypeMappings(this.sql, projectId);
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
    await upsertGroup(this.sql, projectId, index, groupKey, properties);
    return true;
  }
}
