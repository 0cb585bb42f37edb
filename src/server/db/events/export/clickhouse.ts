/** Export pages from ClickHouse's events, by `inserted_at` (microseconds), one row per uuid, and from its sessions, by their events' latest `inserted_at`. */
import { chRows, type ChStore } from "../clickhouse/context";
import { timeOf } from "../clickhouse/rows";
import { SESSION_FIELDS, type SessionField } from "../sessions/clickhouse";
import type { ExportedEvent, ExportedSession, ExportPageQuery } from "./query";

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

/**
 * A page's parameters (project, from, to, limit) and its condition "after the cursor": past
 * (`inserted_at`, the key), the key being the cursor's `uuid` field read as `key` says.
 */
function pageOf(projectId: number, query: ExportPageQuery, key: { column: string; param: string }): { params: Record<string, unknown>; after: string } {
  const params: Record<string, unknown> = { project: projectId, from: query.from.getTime() / 1000, to: query.to.getTime() / 1000, limit: query.limit };
  if (!query.after) return { params, after: "" };
  Object.assign(params, { at: query.after.at, key: query.after.uuid });
  return { params, after: `AND (inserted_at, ${key.column}) > (parseDateTime64BestEffort({at:String}, 6, 'UTC'), ${key.param})` };
}

export async function clickHouseExportPage(ch: Pick<ChStore, "client" | "tables">, projectId: number, query: ExportPageQuery): Promise<ExportedEvent[]> {
  const { params, after } = pageOf(projectId, query, { column: "uuid", param: "toUUID({key:String})" });
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

interface SessionRow {
  x_session_id: string;
  x_distinct_id: string;
  x_person_id: string | null;
  x_start: string;
  x_end: string;
  x_duration: string | number;
  x_pageviews: string | number;
  x_screens: string | number;
  x_autocaptures: string | number;
  x_inserted_at: string;
  [field: `x_${string}`]: string | number | null;
}

/**
 * Export pages of sessions_v2 (one row per session, read with FINAL) by `inserted_at`, the
 * latest ingestion time of the session's events (migration 0005): a session is exported with
 * the interval its last event arrived in. Its person is the one it was written with, or the
 * person that one was merged into since (person_overrides), as the web reads take it; a merge
 * alone does not change `inserted_at` (PostgreSQL's sessions table marks the rows it moves).
 */
export async function clickHouseExportSessionPage(ch: Pick<ChStore, "client" | "tables">, projectId: number, query: ExportPageQuery): Promise<ExportedSession[]> {
  const { params, after } = pageOf(projectId, query, { column: "session_id", param: "{key:String}" });
  const fields = SESSION_FIELDS.map((field) => `nullIf(finalizeAggregation(${field}), '') AS x_${field}`).join(", ");
  const rows = await chRows<SessionRow>(
    ch,
    `SELECT s.*, toString(if(o.new_person_id IS NOT NULL, o.new_person_id, s.x_person)) AS x_person_id
     FROM (
       SELECT session_id AS x_session_id, distinct_id AS x_distinct_id, finalizeAggregation(person) AS x_person,
              toString(start_timestamp) AS x_start, toString(end_timestamp) AS x_end, toUnixTimestamp(end_timestamp) - toUnixTimestamp(start_timestamp) AS x_duration,
              pageview_count AS x_pageviews, screen_count AS x_screens, autocapture_count AS x_autocaptures, ${fields}, toString(inserted_at) AS x_inserted_at
       FROM ${ch.tables.sessions} FINAL
       WHERE project_id = {project:Int32} AND inserted_at >= toDateTime64({from:Float64}, 6, 'UTC') AND inserted_at < toDateTime64({to:Float64}, 6, 'UTC') ${after}
       ORDER BY inserted_at, session_id LIMIT {limit:UInt32}
     ) AS s
     LEFT JOIN (SELECT old_person_id, CAST(new_person_id AS Nullable(UUID)) AS new_person_id FROM ${ch.tables.overrides} FINAL WHERE project_id = {project:Int32}) AS o
       ON o.old_person_id = s.x_person
     ORDER BY s.x_inserted_at, s.x_session_id`,
    params,
  );
  return rows.map((row) => ({
    session_id: row.x_session_id,
    distinct_id: row.x_distinct_id,
    person_id: row.x_person_id,
    start_timestamp: timeOf(row.x_start).toISOString(),
    end_timestamp: timeOf(row.x_end).toISOString(),
    duration: Number(row.x_duration),
    pageview_count: Number(row.x_pageviews),
    screen_count: Number(row.x_screens),
    autocapture_count: Number(row.x_autocaptures),
    ...(Object.fromEntries(SESSION_FIELDS.map((field) => [field, (row[`x_${field}`] as string | null) ?? null])) as Record<SessionField, string | null>),
    updated_at: iso(row.x_inserted_at),
  }));
}
