/** The activity log's table: one row per change, written in the caller's transaction. */
import type { Prisma } from "@/generated/prisma/client";
import type { DbClient } from "@/server/db/transaction";

export interface ActivityRow {
  projectId: number;
  userId: number | null;
  scope: string;
  itemId: string;
  activity: string;
  /** Plain JSON (`{name, changes, …}`). */
  detail: unknown;
}

export async function insertActivity(client: DbClient, row: ActivityRow): Promise<void> {
  await client.activityLog.create({ data: { ...row, detail: row.detail as Prisma.InputJsonValue } });
}
