/**
 * The PostgreSQL store's insert: the events, and in the same statement what they add to their
 * sessions (sessions/deltas.ts, appended to session_deltas and merged into the sessions table
 * later, sessions/fold.ts), so that an acknowledged event is never missing from its session.
 */
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import { TimeSlice } from "@/server/event-loop";
import type { StoredEventInput } from "../contract";
import { SessionDeltas, sessionDeltasOf, type SessionDelta } from "../sessions/deltas";
import { insertSessionDeltas } from "../sessions/postgres";

/** Rows and JSON text per statement: a jsonb value is at most 255 MB; events can be large. */
const CHUNK_ROWS = 5_000;
const CHUNK_TEXT = 32 * 1024 * 1024;
/**
 * The embedded database has one connection: smaller statements let other requests' statements
 * in between (see insertEvents).
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

const EVENT_COLUMNS = "uuid, project_id, event, distinct_id, properties, timestamp, person_id, elements_chain, historical_migration";
const EVENT_RECORD = `r(uuid uuid, project_id int, event text, distinct_id text, properties jsonb, timestamp timestamptz, person_id uuid, elements_chain text,
  historical_migration bool)`;

/**
 * The common case: every row is new. No ON CONFLICT: a uuid the project already has (a retried
 * batch) fails the statement, which writes nothing, and the chunk goes the careful way.
 */
const INSERT_NEW = `WITH inserted AS (
  INSERT INTO events (${EVENT_COLUMNS}) SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${EVENT_RECORD} RETURNING 1
), deltas AS (${insertSessionDeltas("$2")})
SELECT count(*)::int AS n FROM inserted`;

/** The same, with the outbox batch of the events some destination matched (only statements that have any pay for it). */
const INSERT_NEW_WITH_OUTBOX = `WITH inserted AS (
  INSERT INTO events (${EVENT_COLUMNS}) SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${EVENT_RECORD} RETURNING 1
), deltas AS (${insertSessionDeltas("$2")}), outbox AS (${insertOutboxBatch("$3")})
SELECT count(*)::int AS n FROM inserted`;

/** The careful way, in a transaction with the deltas of the rows it stored: a uuid the project already has is skipped. */
const INSERT_SKIPPING_STORED = `INSERT INTO events (${EVENT_COLUMNS}) SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${EVENT_RECORD}
  ON CONFLICT (project_id, uuid) DO NOTHING RETURNING uuid::text AS uuid`;

/**
 * The events destinations want, as one row per statement: which destinations want which events
 * (src/server/destinations fans it out into the outbox later, off the acknowledgement path). On
 * PostgreSQL only the ids travel (the worker reads each event as stored); the ClickHouse store,
 * whose events are not in this database, sends the rows too.
 */
function insertOutboxBatch(param: string): string {
  return `INSERT INTO hog_function_outbox_batches (routes) SELECT ${param}::jsonb`;
}

/**
 * The routes of `events` as one JSON document (null when no event matched a destination): one
 * route per project and set of destinations, with its events' uuids (and their rows, when given).
 */
export function outboxBatchJson(events: readonly StoredEventInput[], withRows = false): string | null {
  const routes = new Map<string, { project_id: number; destinations: readonly string[]; events: string[]; rows?: string[] }>();
  for (const event of events) {
    if (!event.destinations || event.destinations.length === 0) continue;
    const key = `${event.projectId} ${event.destinations.join(" ")}`;
    let route = routes.get(key);
    if (!route) routes.set(key, (route = { project_id: event.projectId, destinations: event.destinations, events: [], rows: withRows ? [] : undefined }));
    route.events.push(event.uuid);
    route.rows?.push(eventRowJson(event));
  }
  if (routes.size === 0) return null;
  // The rows are JSON texts already: spliced in, not quoted again.
  const json = [...routes.values()].map(({ rows, ...route }) => (rows ? `${JSON.stringify(route).slice(0, -1)},"rows":[${rows.join(",")}]}` : JSON.stringify(route)));
  return `[${json.join(",")}]`;
}

/** Writes the outbox batch on its own (the ClickHouse store, whose events are not in this database: before their insert). */
export async function writeOutboxBatch(sql: Pick<SqlExecutor, "query">, events: readonly StoredEventInput[]): Promise<void> {
  const batch = outboxBatchJson(events, true);
  if (batch !== null) await sql.query(insertOutboxBatch("$1"), [batch]);
}

const UNIQUE_VIOLATION = "23505";

/** Where the store writes: a connection pool that can also run a transaction. */
export type InsertDriver = Pick<SqlDriver, "query" | "transaction" | "embedded">;

/** jsonb's binary input: a version byte, then the JSON text (PostgreSQL's jsonb_recv). */
const JSONB_VERSION = 1;

/**
 * The rows as one JSON array in jsonb's binary input format (pg sends a Buffer parameter as
 * binary): each row encoded on its own, into one buffer. As one string, the rows were joined
 * (a copy), then pg measured and copied the whole text again, and one non-ASCII character
 * anywhere made all of it two bytes per character.
 */
function jsonbRows(rowTexts: readonly string[]): Buffer {
  let bytes = 3 + Math.max(0, rowTexts.length - 1);
  for (const text of rowTexts) bytes += Buffer.byteLength(text);
  const buffer = Buffer.allocUnsafe(bytes);
  buffer[0] = JSONB_VERSION;
  buffer[1] = 0x5b; // [
  let at = 2;
  rowTexts.forEach((text, index) => {
    if (index > 0) buffer[at++] = 0x2c; // ,
    at += buffer.write(text, at);
  });
  buffer[at] = 0x5d; // ]
  return buffer;
}

/** `deltas`: what all of `events` add to their sessions (gathered as the rows were made). */
async function insertChunk(sql: InsertDriver, events: readonly StoredEventInput[], rowTexts: readonly string[], deltas: readonly SessionDelta[]): Promise<number> {
  // The embedded database's driver takes text parameters only.
  const rows = sql.embedded ? `[${rowTexts.join(",")}]` : jsonbRows(rowTexts);
  try {
    const outbox = outboxBatchJson(events);
    const [result] =
      outbox === null
        ? await sql.query<{ n: number }>(INSERT_NEW, [rows, JSON.stringify(deltas)], { prepare: "burrow_insert_events" })
        : await sql.query<{ n: number }>(INSERT_NEW_WITH_OUTBOX, [rows, JSON.stringify(deltas), outbox], { prepare: "burrow_insert_events_outbox" });
    return result!.n;
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
  }
  return sql.transaction(async (tx) => {
    const stored = new Set((await tx.query<{ uuid: string }>(INSERT_SKIPPING_STORED, [rows])).map((row) => row.uuid));
    // The rows stored: the first copy of each uuid it returned (a later copy in the batch is skipped like a stored one).
    const kept = events.filter((event) => stored.delete(event.uuid.toLowerCase()));
    const deltas = sessionDeltasOf(kept);
    if (deltas.length > 0) await tx.query(insertSessionDeltas("$1"), [JSON.stringify(deltas)]);
    // Only the events stored now: a retried batch does not deliver its events twice.
    const outbox = outboxBatchJson(kept);
    if (outbox !== null) await tx.query(insertOutboxBatch("$1"), [outbox]);
    return kept.length;
  });
}

/**
 * Writes events with one `INSERT … SELECT FROM jsonb_to_recordset(…)` per chunk: one round
 * trip and one plan for thousands of rows, which is what lets ingestion keep up. The rows
 * travel as one JSON document: the driver sends it as it is, where array parameters would
 * have every properties text escaped again (measured: half the Node CPU of the insert, and
 * a little less for PostgreSQL). A uuid the project already has is skipped, so a retried
 * batch is not stored twice. Returns rows written.
 */
export async function insertEvents(sql: InsertDriver, events: readonly StoredEventInput[], chunkRows = CHUNK_ROWS): Promise<number> {
  // A large batch shares the thread (building its JSON).
  const slice = new TimeSlice();
  let inserted = 0;
  let chunk: StoredEventInput[] = [];
  let rows: string[] = [];
  let deltas = new SessionDeltas();
  let text = 0;
  const send = async () => {
    inserted += await insertChunk(sql, chunk, rows, deltas.deltas());
    chunk = [];
    rows = [];
    deltas = new SessionDeltas();
    text = 0;
  };
  for (const event of events) {
    const row = eventRowJson(event);
    if (rows.length > 0 && (rows.length >= chunkRows || text + row.length > CHUNK_TEXT)) await send();
    chunk.push(event);
    rows.push(row);
    deltas.add(event);
    text += row.length;
    await slice.pace();
  }
  if (rows.length > 0) await send();
  return inserted;
}
