/** Export pages from the events table, by `created_at` (when Burrow stored the event; its BRIN index). */
import type { SqlExecutor } from "@/server/db/driver";
import type { ExportedEvent, ExportPageQuery } from "./query";

interface Row {
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  properties: Record<string, unknown>;
  elements_chain: string;
  timestamp: Date;
  created_at: Date;
}

export async function postgresExportPage(sql: SqlExecutor, projectId: number, query: ExportPageQuery): Promise<ExportedEvent[]> {
  const params: unknown[] = [projectId, query.from, query.to, query.limit];
  let after = "";
  if (query.after) {
    params.push(query.after.at, query.after.uuid);
    after = "AND (created_at, uuid) > ($5::timestamptz, $6::uuid)";
  }
  const rows = await sql.query<Row>(
    `SELECT uuid::text, event, distinct_id, person_id::text, properties, elements_chain, timestamp, created_at FROM events
     WHERE project_id = $1 AND created_at >= $2 AND created_at < $3 ${after}
     ORDER BY events.created_at, events.uuid LIMIT $4`,
    params,
  );
  return rows.map((row) => ({
    uuid: row.uuid,
    event: row.event,
    distinct_id: row.distinct_id,
    person_id: row.person_id,
    properties: row.properties,
    elements_chain: row.elements_chain,
    timestamp: row.timestamp.toISOString(),
    inserted_at: row.created_at.toISOString(),
  }));
}
