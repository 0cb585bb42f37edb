/** Export pages from ClickHouse's events, by `inserted_at` (microseconds), one row per uuid. */
import { chRows, type ChStore } from "../clickhouse/context";
import { timeOf } from "../clickhouse/rows";
import type { ExportedEvent, ExportPageQuery } from "./query";

interface Row {
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  properties: string;
  elements_chain: string;
  timestamp: string;
  inserted_at: string;
}

/** '2024-01-02 03:04:05.678901' → '2024-01-02T03:04:05.678901Z' (a cursor keeps the microseconds). */
const iso = (text: string) => `${text.replace(" ", "T")}Z`;

export async function clickHouseExportPage(ch: Pick<ChStore, "client" | "tables">, projectId: number, query: ExportPageQuery): Promise<ExportedEvent[]> {
  const params: Record<string, unknown> = { project: projectId, from: query.from.getTime() / 1000, to: query.to.getTime() / 1000, limit: query.limit };
  let after = "";
  if (query.after) {
    Object.assign(params, { at: query.after.at, uuid: query.after.uuid });
    after = "AND (inserted_at, uuid) > (parseDateTime64BestEffort({at:String}, 6, 'UTC'), toUUID({uuid:String}))";
  }
  const rows = await chRows<Row>(
    ch,
    `SELECT toString(uuid) AS uuid, event, distinct_id, toString(person_id) AS person_id, properties, elements_chain,
            toString(timestamp) AS timestamp, toString(inserted_at) AS inserted_at
     FROM ${ch.tables.events}
     WHERE project_id = {project:Int32} AND inserted_at >= toDateTime64({from:Float64}, 6, 'UTC') AND inserted_at < toDateTime64({to:Float64}, 6, 'UTC') ${after}
     ORDER BY inserted_at, uuid LIMIT 1 BY uuid LIMIT {limit:UInt32}`,
    params,
  );
  return rows.map((row) => ({
    uuid: row.uuid,
    event: row.event,
    distinct_id: row.distinct_id,
    person_id: row.person_id,
    properties: JSON.parse(row.properties) as Record<string, unknown>,
    elements_chain: row.elements_chain,
    timestamp: timeOf(row.timestamp).toISOString(),
    inserted_at: iso(row.inserted_at),
  }));
}
