/**
 * What the event store's reads get back from ClickHouse (JSON rows) as the store's own
 * types: an event row, a JSON value, a selected column.
 */
import type { EventRow } from "../list/query";

export const COLUMNS =
  "toString(e.uuid) AS c_uuid, e.event AS c_event, e.distinct_id AS c_distinct_id, e.properties AS c_properties, " +
  "e.timestamp AS c_timestamp, toString(e.person_id) AS c_person_id, e.elements_chain AS c_elements_chain";

export interface ChEventRow {
  c_uuid: string;
  c_event: string;
  c_distinct_id: string;
  c_properties: string;
  c_timestamp: string;
  c_person_id: string | null;
  c_elements_chain: string;
}

/** A raw JSON value as ClickHouse extracted it; null when it does not parse. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A DateTime64 as ClickHouse writes it in JSON ('2024-01-02 03:04:05.678000', UTC). */
export function timeOf(text: string): Date {
  return new Date(`${text.replace(" ", "T")}Z`);
}

export function eventRowOf(row: ChEventRow): EventRow {
  return {
    uuid: row.c_uuid,
    event: row.c_event,
    distinct_id: row.c_distinct_id,
    properties: JSON.parse(row.c_properties) as Record<string, unknown>,
    timestamp: timeOf(row.c_timestamp),
    person_id: row.c_person_id,
    elements_chain: row.c_elements_chain,
  };
}

/** A selected value as the PostgreSQL store answers it, by the column's type. */
export function selectValue(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "DateTime":
      return timeOf(String(value)).toISOString();
    case "JSON":
      return JSON.parse(String(value));
    case "Bool":
      return value === true || value === 1 || value === "1" || value === "true";
    case "UInt64":
    case "Float64":
      return Number(value);
    default:
      return value;
  }
}
