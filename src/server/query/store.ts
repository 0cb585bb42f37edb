/** What the query API reads of the project itself: its time zone. */
import type { DbClient } from "@/server/db/transaction";

/** The project's time zone as stored, or null when there is no such project. */
export async function findProjectTimezone(client: DbClient, projectId: number): Promise<string | null> {
  const project = await client.project.findUnique({ where: { id: projectId }, select: { timezone: true } });
  return project ? project.timezone : null;
}
