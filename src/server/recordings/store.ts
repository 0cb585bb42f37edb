/**
 * Session replay's tables (recording_settings, recordings, recording_chunks): the only place
 * with their SQL. Plain SQL on the main database (PostgreSQL or PGlite), whichever store the
 * events are in: recordings are written and read per session, not scanned like events.
 * `RecordingStore` is the interface a ClickHouse store would implement next to this one.
 */
import type { SqlDriver, SqlExecutor } from "@/server/db/driver";
import type { ChunkRow, ChunkSummary, HavingPredicate, RecordingRow } from "./contract";

export interface RecordingFilter {
  from: Date | null;
  to: Date | null;
  distinctIds: string[] | null;
  sessionIds: string[] | null;
  /** Sessions the "events performed" filters matched (null: no such filter); combined by `operand` with `having` and the console levels. */
  eventSessionIds: string[] | null;
  having: HavingPredicate[];
  consoleLevels: ("error" | "warn" | "info" | "log")[];
  operand: "AND" | "OR";
  order: string;
  direction: "ASC" | "DESC";
  limit: number;
  offset: number;
}

export interface RecordingStore {
  readSettings(projectId: number): Promise<unknown | null>;
  writeSettings(projectId: number, settings: unknown): Promise<void>;
  /** Writes the chunks and their sessions' merged metadata in one transaction. */
  writeChunks(projectId: number, chunks: ChunkSummary[], merge: (existing: RecordingRow | null, chunk: ChunkSummary) => RecordingRow): Promise<void>;
  list(projectId: number, filter: RecordingFilter): Promise<RecordingRow[]>;
  get(projectId: number, sessionId: string): Promise<RecordingRow | null>;
  /** A session's chunks in time order, without their data (`chunksWithData` reads that). */
  chunks(projectId: number, sessionId: string): Promise<ChunkRow[]>;
  /** Some of a session's chunks, by id, with their data (in the order `chunks` lists them). */
  chunksWithData(projectId: number, sessionId: string, ids: string[]): Promise<ChunkRow[]>;
  delete(projectId: number, sessionIds: string[]): Promise<number>;
  deleteByDistinctIds(projectId: number, distinctIds: string[]): Promise<number>;
  usage(projectId: number): Promise<{ recordings: number; bytes: number; recordedMs: number }>;
  /** The oldest recordings' ids and sizes, oldest first, until `bytes` are covered. */
  oldest(projectId: number, limit: number): Promise<{ sessionId: string; sizeBytes: number }[]>;
  /** Deletes up to `limit` recordings that ended before `before` (oldest first, along the start-time index); returns how many went. */
  deleteOlderThan(projectId: number, before: Date, limit: number): Promise<number>;
  projectsWithRecordings(): Promise<number[]>;
}

type Row = Record<string, unknown>;

const num = (value: unknown) => (value === null || value === undefined ? 0 : Number(value));

function toRecording(row: Row): RecordingRow {
  return {
    sessionId: row.session_id as string,
    distinctId: row.distinct_id as string,
    startTime: new Date(row.start_time as string | Date),
    endTime: new Date(row.end_time as string | Date),
    activeMs: num(row.active_ms),
    lastActiveMs: row.last_active_ms === null ? null : num(row.last_active_ms),
    clickCount: num(row.click_count),
    keypressCount: num(row.keypress_count),
    mouseActivityCount: num(row.mouse_activity_count),
    consoleLogCount: num(row.console_log_count),
    consoleWarnCount: num(row.console_warn_count),
    consoleErrorCount: num(row.console_error_count),
    startUrl: (row.start_url as string | null) ?? null,
    snapshotSource: row.snapshot_source as string,
    snapshotLibrary: (row.snapshot_library as string | null) ?? null,
    sizeBytes: num(row.size_bytes),
    chunkCount: num(row.chunk_count),
  };
}

function toChunk(row: Row): ChunkRow {
  return {
    id: String(row.id),
    windowId: row.window_id as string,
    firstTimestamp: new Date(row.first_timestamp as string | Date),
    lastTimestamp: new Date(row.last_timestamp as string | Date),
    eventCount: num(row.event_count),
    rawBytes: num(row.raw_bytes),
    data: row.data === undefined ? new Uint8Array() : new Uint8Array(row.data as Buffer),
  };
}

const COLUMNS =
  "session_id, distinct_id, start_time, end_time, active_ms, last_active_ms, click_count, keypress_count, mouse_activity_count, console_log_count, console_warn_count, console_error_count, start_url, snapshot_source, snapshot_library, size_bytes, chunk_count";

/** Expressions the list orders and filters by (never caller text). */
const DURATION = "EXTRACT(EPOCH FROM (end_time - start_time))";
const EXPRESSIONS: Record<string, string> = {
  start_time: "start_time",
  duration: DURATION,
  recording_duration: DURATION,
  active_seconds: "active_ms / 1000.0",
  inactive_seconds: `(${DURATION} - active_ms / 1000.0)`,
  console_error_count: "console_error_count",
  click_count: "click_count",
  keypress_count: "keypress_count",
  mouse_activity_count: "mouse_activity_count",
};
const OPERATORS: Record<HavingPredicate["operator"], string> = { gt: ">", lt: "<", gte: ">=", lte: "<=", exact: "=" };

async function upsert(tx: SqlExecutor, projectId: number, row: RecordingRow): Promise<void> {
  await tx.query(
    `INSERT INTO recordings (project_id, ${COLUMNS}, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, now())
     ON CONFLICT (project_id, session_id) DO UPDATE SET
       distinct_id = EXCLUDED.distinct_id, start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time,
       active_ms = EXCLUDED.active_ms, last_active_ms = EXCLUDED.last_active_ms, click_count = EXCLUDED.click_count,
       keypress_count = EXCLUDED.keypress_count, mouse_activity_count = EXCLUDED.mouse_activity_count,
       console_log_count = EXCLUDED.console_log_count, console_warn_count = EXCLUDED.console_warn_count,
       console_error_count = EXCLUDED.console_error_count, start_url = EXCLUDED.start_url,
       snapshot_source = EXCLUDED.snapshot_source, snapshot_library = EXCLUDED.snapshot_library,
       size_bytes = EXCLUDED.size_bytes, chunk_count = EXCLUDED.chunk_count, updated_at = now()`,
    [
      projectId,
      row.sessionId,
      row.distinctId,
      row.startTime,
      row.endTime,
      row.activeMs,
      row.lastActiveMs,
      row.clickCount,
      row.keypressCount,
      row.mouseActivityCount,
      row.consoleLogCount,
      row.consoleWarnCount,
      row.consoleErrorCount,
      row.startUrl,
      row.snapshotSource,
      row.snapshotLibrary,
      row.sizeBytes,
      row.chunkCount,
    ],
  );
}

/** What the store runs on: the main connection (requests, ingestion) or the workers' handle (upkeep). */
export type RecordingSql = SqlExecutor & Pick<SqlDriver, "transaction">;

export class PostgresRecordingStore implements RecordingStore {
  constructor(private readonly sql: RecordingSql) {}

  async readSettings(projectId: number): Promise<unknown | null> {
    const rows = await this.sql.query<{ settings: unknown }>("SELECT settings FROM recording_settings WHERE project_id = $1", [projectId]);
    const value = rows[0]?.settings;
    if (value === undefined) return null;
    return typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  }

  async writeSettings(projectId: number, settings: unknown): Promise<void> {
    await this.sql.query(
      `INSERT INTO recording_settings (project_id, settings, updated_at) VALUES ($1, $2::jsonb, now())
       ON CONFLICT (project_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
      [projectId, JSON.stringify(settings)],
    );
  }

  async writeChunks(projectId: number, chunks: ChunkSummary[], merge: (existing: RecordingRow | null, chunk: ChunkSummary) => RecordingRow): Promise<void> {
    // Sessions in a fixed order, so that two requests for the same sessions cannot deadlock.
    const ordered = [...chunks].sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.firstTimestamp - b.firstTimestamp));
    await this.sql.transaction(async (tx) => {
      const merged = new Map<string, RecordingRow | null>();
      for (const chunk of ordered) {
        if (!merged.has(chunk.sessionId)) {
          const rows = await tx.query<Row>(`SELECT ${COLUMNS} FROM recordings WHERE project_id = $1 AND session_id = $2 FOR UPDATE`, [projectId, chunk.sessionId]);
          merged.set(chunk.sessionId, rows[0] ? toRecording(rows[0]) : null);
        }
        merged.set(chunk.sessionId, merge(merged.get(chunk.sessionId) ?? null, chunk));
      }
      for (const [, row] of merged) await upsert(tx, projectId, row!);
      for (const chunk of ordered) {
        await tx.query(
          `INSERT INTO recording_chunks (project_id, session_id, window_id, first_timestamp, last_timestamp, event_count, raw_bytes, data)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [projectId, chunk.sessionId, chunk.windowId, new Date(chunk.firstTimestamp), new Date(chunk.lastTimestamp), chunk.eventCount, chunk.rawBytes, Buffer.from(chunk.data)],
        );
      }
    });
  }

  async list(projectId: number, filter: RecordingFilter): Promise<RecordingRow[]> {
    const params: unknown[] = [projectId];
    const where = ["project_id = $1"];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (filter.from) where.push(`end_time >= ${param(filter.from)}`);
    if (filter.to) where.push(`start_time <= ${param(filter.to)}`);
    if (filter.distinctIds) where.push(`distinct_id = ANY(${param(filter.distinctIds)}::text[])`);
    if (filter.sessionIds) where.push(`session_id = ANY(${param(filter.sessionIds)}::text[])`);
    const conditions: string[] = [];
    // As numeric: the counts are INTEGER columns, and 1.5 or 1e10 is a threshold, not an integer parameter PostgreSQL refuses.
    for (const predicate of filter.having) conditions.push(`${EXPRESSIONS[predicate.key]} ${OPERATORS[predicate.operator]} ${param(predicate.value)}::numeric`);
    const levels = { error: "console_error_count", warn: "console_warn_count", info: "console_log_count", log: "console_log_count" };
    for (const level of new Set(filter.consoleLevels.map((l) => levels[l]))) conditions.push(`${level} > 0`);
    if (filter.eventSessionIds) conditions.push(`session_id = ANY(${param(filter.eventSessionIds)}::text[])`);
    if (conditions.length > 0) where.push(`(${conditions.join(filter.operand === "OR" ? " OR " : " AND ")})`);
    const order = EXPRESSIONS[filter.order] ?? "start_time";
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM recordings WHERE ${where.join(" AND ")}
       ORDER BY ${order} ${filter.direction === "ASC" ? "ASC" : "DESC"}, session_id LIMIT ${param(filter.limit)} OFFSET ${param(filter.offset)}`,
      params,
    );
    return rows.map(toRecording);
  }

  async get(projectId: number, sessionId: string): Promise<RecordingRow | null> {
    const rows = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM recordings WHERE project_id = $1 AND session_id = $2`, [projectId, sessionId]);
    return rows[0] ? toRecording(rows[0]) : null;
  }

  async chunks(projectId: number, sessionId: string): Promise<ChunkRow[]> {
    const rows = await this.sql.query<Row>(
      `SELECT id, window_id, first_timestamp, last_timestamp, event_count, raw_bytes
         FROM recording_chunks WHERE project_id = $1 AND session_id = $2 ORDER BY first_timestamp, id`,
      [projectId, sessionId],
    );
    return rows.map(toChunk);
  }

  async chunksWithData(projectId: number, sessionId: string, ids: string[]): Promise<ChunkRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.query<Row>(
      `SELECT id, window_id, first_timestamp, last_timestamp, event_count, raw_bytes, data
         FROM recording_chunks WHERE project_id = $1 AND session_id = $2 AND id = ANY($3::bigint[]) ORDER BY first_timestamp, id`,
      [projectId, sessionId, ids],
    );
    return rows.map(toChunk);
  }

  async delete(projectId: number, sessionIds: string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    // Chunks go with their recording (ON DELETE CASCADE).
    const rows = await this.sql.query("DELETE FROM recordings WHERE project_id = $1 AND session_id = ANY($2::text[]) RETURNING session_id", [projectId, sessionIds]);
    return rows.length;
  }

  async deleteByDistinctIds(projectId: number, distinctIds: string[]): Promise<number> {
    if (distinctIds.length === 0) return 0;
    const rows = await this.sql.query("DELETE FROM recordings WHERE project_id = $1 AND distinct_id = ANY($2::text[]) RETURNING session_id", [projectId, distinctIds]);
    return rows.length;
  }

  async usage(projectId: number): Promise<{ recordings: number; bytes: number; recordedMs: number }> {
    const rows = await this.sql.query<Row>(
      `SELECT count(*) AS recordings, COALESCE(sum(size_bytes), 0) AS bytes,
              COALESCE(sum(EXTRACT(EPOCH FROM (end_time - start_time)) * 1000), 0) AS recorded_ms
         FROM recordings WHERE project_id = $1`,
      [projectId],
    );
    const row = rows[0] ?? {};
    return { recordings: num(row.recordings), bytes: num(row.bytes), recordedMs: Math.round(num(row.recorded_ms)) };
  }

  async oldest(projectId: number, limit: number): Promise<{ sessionId: string; sizeBytes: number }[]> {
    const rows = await this.sql.query<Row>("SELECT session_id, size_bytes FROM recordings WHERE project_id = $1 ORDER BY start_time, session_id LIMIT $2", [projectId, limit]);
    return rows.map((row) => ({ sessionId: row.session_id as string, sizeBytes: num(row.size_bytes) }));
  }

  async deleteOlderThan(projectId: number, before: Date, limit: number): Promise<number> {
    const rows = await this.sql.query(
      `DELETE FROM recordings WHERE project_id = $1 AND session_id IN (
         SELECT session_id FROM recordings WHERE project_id = $1 AND end_time < $2 ORDER BY start_time LIMIT $3)
       RETURNING session_id`,
      [projectId, before, limit],
    );
    return rows.length;
  }

  async projectsWithRecordings(): Promise<number[]> {
    const rows = await this.sql.query<{ project_id: number }>("SELECT DISTINCT project_id FROM recordings");
    return rows.map((row) => Number(row.project_id));
  }
}
