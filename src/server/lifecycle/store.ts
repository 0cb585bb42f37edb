/** What lifecycle reads of persons (always in PostgreSQL, whichever store holds the events): when they were created. */
import type { SqlExecutor } from "@/server/db/driver";
import { bucketOfHours, type TrendInterval } from "@/server/db/events";
import { POSTGRES } from "@/server/sql/postgres";

/**
 * The persons of the project created in [from, to), each with the wall-clock bucket of its
 * creation in the zone (as actorBuckets gives buckets), by uuid.
 */
export async function findPersonCreationBuckets(
  sql: SqlExecutor,
  projectId: number,
  range: { from: Date; to: Date; zone: string; interval: TrendInterval },
): Promise<Map<string, number>> {
  const rows = await sql.query<{ uuid: string; b: number }>(
    `SELECT uuid::text AS uuid, ${POSTGRES.wallBucketHours("created_at", "$4::text", range.interval)} AS b
       FROM persons WHERE project_id = $1::int AND created_at >= $2::timestamptz AND created_at < $3::timestamptz`,
    [projectId, range.from.toISOString(), range.to.toISOString(), range.zone],
  );
  return new Map(rows.map((row) => [row.uuid, bucketOfHours(row.b)]));
}
