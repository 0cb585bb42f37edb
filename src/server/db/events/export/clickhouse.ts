/** Export pages from ClickHouse's events, by `inserted_at` (microseconds), one row per uuid. */
import { chRows, type ChStore } from "../clickhouse/context";
import { timeOf } from "../clickhouse/rows";
import type { ExportedEvent, ExportPageQuery } from "./query";

/** Aliases apart from the columns' names: ClickHouse reads an alias in WHERE in place of the column. */
interface Row {
  x_uuid: string;
  x_event: string;
  x_distinct_id: string;
  x_person_id: string | null;
  x_properties: string;
  x_elements_chain: string;
  x_timestamp: string;
  x_inserted_at: string;
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
    `SELECT toString(uuid) AS x_uuid, event AS x_event, distinct_id AS x_distinct_id, toString(person_id) AS x_person_id, properties AS x_properties,
            elements_chain AS x_elements_chain, toString(timestamp) AS x_timestamp, toString(inserted_at) AS x_inserted_at
     FROM ${ch.tables.events}
     WHERE project_id = {project:Int32} AND inserted_at >= toDateTime64({from:Float64}, 6, 'UTC') AND inserted_at < toDateTime64({to:Float64}, 6, 'UTC') ${after}
     ORDER BY inserted_at, uuid LIMIT 1 BY uuid LIMIT {limit:UInt32}`,
    params,
  );
  return rows.map((row) => ({
    uuid: row.x_uuid,
    event: row.x_event,
    distinct_id: row.x_distinct_id,
    person_id: row.x_person_id,
    properties: JSON.parse(row.x_properties) as Record<string, unknown>,
    elements_chain: row.x_elements_chain,
    timestamp: timeOf(row.x_timestamp).toISOString(),
    inserted_at: iso(row.x_inserted_at),
  }));
}
