/** What the query API reads of the project itself: its time zone and its test account filters. */
import type { DbClient } from "@/server/db/transaction";

/** The project's time zone and test account filters as stored, or null when there is no such project. */
export async function findProjectQuerySettings(client: DbClient, projectId: number): Promise<{ timezone: string; testAccountFilters: unknown } | null> {
  return client.project.findUnique({ where: { id: projectId }, select: { timezone: true, testAccountFilters: true } });
}
