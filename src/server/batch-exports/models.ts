/**
 * What each model exports (PostHog's batch export schemas): its columns, its rows as records
 * (JSON Lines' shape: timestamps ISO 8601, properties nested), and where a run reads them —
 * events from the event store by ingestion time (with their persons' properties, read from
 * the persons domain a page at a time), sessions from the event store's sessions by when each
 * row last changed, persons from the persons domain by their latest change. Each
 * read is a page after a cursor `{at, uuid}` (the row's time, then its key: uuid, distinct id
 * or session id), so every model resumes and pages the same way.
 */
import type { Database } from "@/server/db";
import type { WorkerSql } from "@/server/db/driver";
import type { ExportCursor, ExportedEvent, ExportedSession, ExportPageQuery } from "@/server/db/events";
import { exportPersonPage, exportPersonProperties, type ExportedPerson } from "@/server/persons/service";
import type { BatchExportModel } from "./contract";

/** A column's type in Parquet (JSON: a JSON document as a string; TIMESTAMP: microseconds, UTC). */
export type ColumnType = "STRING" | "JSON" | "TIMESTAMP" | "INT64";
export interface ExportColumn {
  name: string;
  type: ColumnType;
}

const columns = (spec: Record<string, ColumnType>): ExportColumn[] => Object.entries(spec).map(([name, type]) => ({ name, type }));

export const MODEL_COLUMNS: Record<BatchExportModel, ExportColumn[]> = {
  events: columns({
    uuid: "STRING",
    event: "STRING",
    distinct_id: "STRING",
    person_id: "STRING",
    properties: "JSON",
    person_properties: "JSON",
    elements_chain: "STRING",
    timestamp: "TIMESTAMP",
    created_at: "TIMESTAMP",
    _inserted_at: "TIMESTAMP",
    team_id: "INT64",
    set: "JSON",
    set_once: "JSON",
  }),
  persons: columns({
    team_id: "INT64",
    distinct_id: "STRING",
    person_id: "STRING",
    properties: "JSON",
    person_version: "INT64",
    person_distinct_id_version: "INT64",
    created_at: "TIMESTAMP",
    _inserted_at: "TIMESTAMP",
  }),
  sessions: columns({
    team_id: "INT64",
    session_id: "STRING",
    distinct_id: "STRING",
    person_id: "STRING",
    start_timestamp: "TIMESTAMP",
    end_timestamp: "TIMESTAMP",
    duration: "INT64",
    pageview_count: "INT64",
    screen_count: "INT64",
    autocapture_count: "INT64",
    entry_url: "STRING",
    entry_pathname: "STRING",
    entry_referring_domain: "STRING",
    entry_utm_source: "STRING",
    entry_utm_medium: "STRING",
    entry_utm_campaign: "STRING",
    entry_utm_term: "STRING",
    entry_utm_content: "STRING",
    exit_url: "STRING",
    exit_pathname: "STRING",
    _inserted_at: "TIMESTAMP",
  }),
};

export type ExportRecord = Record<string, unknown>;
export interface ExportedRow {
  cursor: ExportCursor;
  record: ExportRecord;
}

const objectOrNull = (value: unknown) => (typeof value === "object" && value !== null && !Array.isArray(value) ? value : null);

/**
 * An event as a record (PostHog's exported columns; `created_at` and `_inserted_at`: when
 * Burrow stored it). `person_properties`: its person's properties as they are now (null
 * without a person); `set` and `set_once`: the event's `$set` and `$set_once` (null when absent).
 */
export function eventRecord(projectId: number, row: ExportedEvent, personProperties: Record<string, unknown> | null): ExportRecord {
  return {
    uuid: row.uuid,
    event: row.event,
    distinct_id: row.distinct_id,
    person_id: row.person_id,
    properties: row.properties,
    person_properties: personProperties,
    elements_chain: row.elements_chain,
    timestamp: row.timestamp,
    created_at: row.inserted_at,
    _inserted_at: row.inserted_at,
    team_id: projectId,
    set: objectOrNull(row.properties.$set),
    set_once: objectOrNull(row.properties.$set_once),
  };
}

/** A page of events with their persons' properties: the persons (in PostgreSQL, whichever store holds the events) in one read per page. */
async function eventRows(db: Database, sql: WorkerSql, projectId: number, query: ExportPageQuery): Promise<ExportedRow[]> {
  const events = await db.events.exportPage(projectId, query, sql);
  const persons = await exportPersonProperties(
    sql,
    projectId,
    events.flatMap((row) => (row.person_id ? [row.person_id] : [])),
  );
  return events.map((row) => ({
    cursor: { at: row.inserted_at, uuid: row.uuid },
    record: eventRecord(projectId, row, (row.person_id && persons.get(row.person_id)) || null),
  }));
}

function personRecord(projectId: number, row: ExportedPerson): ExportRecord {
  return {
    team_id: projectId,
    distinct_id: row.distinct_id,
    person_id: row.person_id,
    properties: row.properties,
    person_version: row.person_version,
    person_distinct_id_version: row.person_distinct_id_version,
    created_at: row.created_at,
    _inserted_at: row.changed_at,
  };
}

function sessionRecord(projectId: number, row: ExportedSession): ExportRecord {
  const { updated_at, ...rest } = row;
  return { team_id: projectId, ...rest, _inserted_at: updated_at };
}

/** A page of the model's rows in [from, to) after the cursor, in cursor order. */
export type PageReader = (query: ExportPageQuery) => Promise<ExportedRow[]>;

export function pageReader(db: Database, sql: WorkerSql, model: BatchExportModel, projectId: number): PageReader {
  switch (model) {
    case "events":
      return (query) => eventRows(db, sql, projectId, query);
    case "sessions":
      return async (query) =>
        (await db.events.exportSessionPage(projectId, query, sql)).map((row) => ({ cursor: { at: row.updated_at, uuid: row.session_id }, record: sessionRecord(projectId, row) }));
    case "persons":
      return async (query) =>
        (await exportPersonPage(sql, projectId, { ...query, after: query.after && { at: query.after.at, distinctId: query.after.uuid } })).map((row) => ({
          cursor: { at: row.changed_at, uuid: row.distinct_id },
          record: personRecord(projectId, row),
        }));
  }
}
