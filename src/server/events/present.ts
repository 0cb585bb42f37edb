/** Stored events as the events API shows them: PostHog's event object, and CSV rows. */
import type { EventRow } from "@/server/db/events";
import type { EventResource } from "./contract";
import type { PersonSummary } from "./store";

export type { EventResource } from "./contract";

export function eventResource(row: EventRow, persons: ReadonlyMap<string, PersonSummary>): EventResource {
  const person = row.person_id === null ? undefined : persons.get(row.person_id);
  return {
    id: row.uuid,
    distinct_id: row.distinct_id,
    properties: row.properties,
    event: row.event,
    timestamp: row.timestamp.toISOString(),
    person: person ? { is_identified: person.is_identified, distinct_ids: person.distinct_ids, properties: person.properties } : null,
    elements: [],
    elements_chain: row.elements_chain,
  };
}

/** The CSV export's columns, in order; `properties` holds the event's properties as JSON. */
export const CSV_COLUMNS = ["id", "distinct_id", "event", "timestamp", "person_id", "properties"] as const;

/** RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One CSV record, CRLF-terminated. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

export const CSV_HEADER = csvRecord(CSV_COLUMNS);

export function eventCsvRecord(row: EventRow): string {
  return csvRecord([row.uuid, row.distinct_id, row.event, row.timestamp.toISOString(), row.person_id ?? "", JSON.stringify(row.properties)]);
}

/** One CSV record of `select` values: null as an empty field, objects and lists as JSON. */
export function selectCsvRecord(values: readonly unknown[]): string {
  return csvRecord(
    values.map((value) => (value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value))),
  );
}
