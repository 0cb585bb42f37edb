/**
 * The PostgreSQL store's insert: the events, and in the same statement the sessions they
 * belong to (sessions/postgres.ts), so that a retried batch counts nothing twice.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { TimeSlice } from "@/server/event-loop";
import type { StoredEventInput } from "../contract";
import { sessionsUpsert } from "../sessions/postgres";

/** Rows and JSON text per statement: a jsonb value is at most 255 MB; events can be large. */
const CHUNK_ROWS = 5_000;
const CHUNK_TEXT = 32 * 1024 * 1024;
/**
 * PGlite runs each statement in the server's thread, where nothing else runs until it ends:
 * smaller statements let other requests in between (see insertEvents).
 */
export const PGLITE_CHUNK_ROWS = 1_000;

/** One event as a row of the JSON document insertEvents sends. */
function eventRowJson(e: StoredEventInput): string {
  return JSON.stringify({
    uuid: e.uuid,
    project_id: e.projectId,
    event: e.event,
    distinct_id: e.distinctId,
    properties: e.properties,
    timestamp: e.timestamp.toISOString(),
    person_id: e.personId ?? null,
    elements_chain: e.elementsChain ?? "",
    historical_migration: e.historicalMigration ?? false,
  });
}

// The events the insert stored (not those skipped as already stored) also update their
// sessions' rows, in the same statement: a retried batch counts nothing twice.
const INSERT_EVENTS = `WITH inserted AS (
  INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id, elements_chain, historical_migration)
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(uuid uuid, project_id int, event text, distinct_id text, properties jsonb,
                                                 timestamp timestamptz, person_id uuid, elements_chain text, historical_migration bool)
  ON CONFLICT (project_id, uuid) DO NOTHING
  RETURNING uuid, project_id, event, distinct_id, properties, timestamp, person_id
), upserted AS (
  ${sessionsUpsert("inserted")}
  RETURNING 1
) SELECT count(*)::int AS n FROM inserted`;

/**
 * Writes events with one `INSERT … SELECT FROM jsonb_to_recordset(…)` per chunk: one round
 * trip and one plan for thousands of rows, which is what lets ingestion keep up. The rows
 * travel as one JSON document: the driver sends it as it is, where array parameters would
 * have every properties text escaped again (measured: half the Node CPU of the insert, and
 * a little less for PostgreSQL). A uuid the project already has is skipped, so a retried
 * batch is not stored twice. Returns rows written.
 */
export async function insertEvents(sql: SqlExecutor, events: readonly StoredEventInput[], chunkRows = CHUNK_ROWS): Promise<number> {
  // A large batch shares the thread (building its JSON; on PGlite, every statement too).
  const slice = new TimeSlice();
  let inserted = 0;
  let rows: string[] = [];
  let text = 0;
  const send = async () => {
    const result = await sql.query<{ n: number }>(INSERT_EVENTS, [`[${rows.join(",")}]`], { prepare: "burrow_insert_events" });
    inserted += result[0]!.n;
    rows = [];
    text = 0;
  };
  for (const event of events) {
    const row = eventRowJson(event);
    if (rows.length > 0 && (rows.length >= chunkRows || text + row.length > CHUNK_TEXT)) await send();
    rows.push(row);
    text += row.length;
    await slice.pace();
  }
  if (rows.length > 0) await send();
  return inserted;
}
