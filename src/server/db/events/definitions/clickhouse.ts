/** The definitions backfill's reads (query.ts) in ClickHouse. */
import { chRows, type ChStore } from "../clickhouse/context";
import { parseJson, timeOf } from "../clickhouse/rows";
import type { EventNameDay, EventPropertySample } from "./query";

export async function clickHouseEventNameDays(ch: ChStore, projectId: number): Promise<EventNameDay[]> {
  const rows = await chRows<{ name: string; day: string; count: string; first: string; last: string }>(
    ch,
    `SELECT e.event AS name, toString(toDate(e.timestamp)) AS day, count() AS count, min(e.timestamp) AS first, max(e.timestamp) AS last
       FROM ${ch.tables.events} AS e WHERE e.project_id = {project:Int32} GROUP BY name, day`,
    { project: projectId },
  );
  return rows.map((row) => ({ name: row.name, day: row.day, count: Number(row.count), first: timeOf(row.first), last: timeOf(row.last) }));
}

export async function clickHousePropertySamples(ch: ChStore, projectId: number, sample: number): Promise<EventPropertySample[]> {
  const rows = await chRows<{ event: string; key: string; sample: string; count: string }>(
    ch,
    `SELECT e.event AS event, key, min(JSONExtractRaw(e.properties, key)) AS sample, count() AS count
       FROM (SELECT event, properties FROM ${ch.tables.events} WHERE project_id = {project:Int32} ORDER BY timestamp DESC LIMIT {sample:UInt32}) AS e
      ARRAY JOIN JSONExtractKeys(e.properties) AS key
      GROUP BY event, key, toString(JSONType(e.properties, key))`,
    { project: projectId, sample },
  );
  return rows.map((row) => ({ event: row.event, key: row.key, sample: parseJson(row.sample), count: Number(row.count) }));
}
