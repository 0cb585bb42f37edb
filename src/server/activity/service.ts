/**
 * The activity log: who changed what, written in the same transaction as the change
 * (PostHog's `log_activity`). `detail.changes` lists `{field, before, after}`.
 */
import type { Tx } from "@/server/db/transaction";
import { insertActivity } from "./store";

export interface ActivityChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface ActivityEntry {
  projectId: number;
  /** null: Burrow itself (a schedule), as PostHog logs system changes. */
  userId: number | null;
  /** The kind of object: "Dashboard", "FeatureFlag", "PluginConfig", … */
  scope: string;
  itemId: string | number;
  /** "created", "updated", "deleted", "restored", … */
  activity: string;
  name?: string | null;
  changes?: ActivityChange[];
  /** Anything else worth keeping (e.g. the collaborator added). */
  extra?: Record<string, unknown>;
}

export async function logActivity(tx: Tx, entry: ActivityEntry): Promise<void> {
  await insertActivity(tx, {
    projectId: entry.projectId,
    userId: entry.userId,
    scope: entry.scope,
    itemId: String(entry.itemId),
    activity: entry.activity,
    detail: JSON.parse(JSON.stringify({ name: entry.name ?? null, changes: entry.changes ?? [], ...entry.extra })),
  });
}

/** The fields whose value differs between `before` and `after`, compared as JSON. */
export function changesBetween(before: Record<string, unknown>, after: Record<string, unknown>): ActivityChange[] {
  return Object.keys(after)
    .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}
