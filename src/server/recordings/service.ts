/**
 * Session replay's rules for the management side: a project's recording settings, and the
 * recordings API (list, retrieve, snapshots, delete) PostHog's clients call. Ingestion is in
 * ingestion.ts, the byte budget and retention in budget.ts.
 */
import { gunzipSync } from "node:zlib";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { AppError } from "@/server/errors";
import { parseTimeParam } from "@/server/input/time";
import type { EventListQuery } from "@/server/db/events";
import { checkEventFilters } from "@/server/events/service";
import { parseSelectItem } from "@/server/hogql/parse";
import { RefreshedInBackground } from "@/server/refreshed-in-background";
import { alsoDeleteWithPersonEvents, personsByDistinctIds, personsByUuids } from "@/server/persons/service";
import type { PersonRow } from "@/server/persons/present";
import {
  DEFAULT_RECORDING_SETTINGS,
  MAX_EVENT_FILTER_SESSIONS,
  recordingSettingsSchema,
  SESSION_ID_PATTERN,
  type RecordingEventFilter,
  type RecordingListQuery,
  type RecordingResource,
  type RecordingSettings,
  type RecordingSettingsInput,
  type RecordingUsage,
  type ChunkRow,
} from "./contract";
import { inflateBudget, playbackEventsOf, presentRecording } from "./present";
import { PostgresRecordingStore, type RecordingStore } from "./store";
import { perDatabase } from "@/server/db/per-database";

const stores = perDatabase((sql: Database["sql"]): RecordingStore => new PostgresRecordingStore(sql));

/** The database's recording store. */
export function recordingStore(db: Pick<Database, "sql">): RecordingStore {
  return stores(db.sql);
}

// ── Settings ────────────────────────────────────────────────────────────────────────────

/** How long the hot paths (remote config, /s/) may use settings they read: changes apply within this. */
const SETTINGS_TTL_MS = 10_000;
/** Per database, per project; on globalThis, so that Next's copy of this module and the server's share it. */
const settingsCaches = perDatabase((_: object) => new RefreshedInBackground<number, RecordingSettings>(SETTINGS_TTL_MS), "burrow.recordingSettings");
const settingsCache = (db: Pick<Database, "sql">) => settingsCaches(db.sql);

/** Stored settings over the defaults (a stored value that no longer fits falls back to the defaults). */
function settingsOf(stored: unknown): RecordingSettings {
  const parsed = recordingSettingsSchema.safeParse({ ...DEFAULT_RECORDING_SETTINGS, ...(typeof stored === "object" && stored !== null ? stored : {}) });
  return parsed.success ? parsed.data : DEFAULT_RECORDING_SETTINGS;
}

/** A project's recording settings, from memory, refreshed in the background every 10 s. */
export function recordingSettingsFor(db: Pick<Database, "sql">, projectId: number): Promise<RecordingSettings> {
  return settingsCache(db).get(projectId, async () => settingsOf(await recordingStore(db).readSettings(projectId)));
}

/** Applies a PATCH of the recording fields (the caller checked who may change project settings). */
export async function updateRecordingSettings(db: Pick<Database, "sql">, projectId: number, input: RecordingSettingsInput): Promise<RecordingSettings> {
  const current = settingsOf(await recordingStore(db).readSettings(projectId));
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    // Lists cleared with null, as PostHog's nullable JSON fields.
    next[key] = value === null && (key === "session_recording_url_trigger_config" || key === "session_recording_url_blocklist_config") ? [] : value;
  }
  const settings = recordingSettingsSchema.parse(next);
  await recordingStore(db).writeSettings(projectId, settings);
  settingsCache(db).set(projectId, settings);
  return settings;
}

// ── Recordings API ──────────────────────────────────────────────────────────────────────

function requireSessionId(id: string): string {
  if (!SESSION_ID_PATTERN.test(id)) throw new AppError("not_found", "Recording not found");
  return id;
}

async function personsFor(db: Pick<Database, "sql">, projectId: number, distinctIds: string[]): Promise<Map<string, PersonRow>> {
  const byDistinctId = new Map<string, PersonRow>();
  for (const person of await personsByDistinctIds(db, projectId, distinctIds)) {
    for (const id of person.distinctIds) byDistinctId.set(id, person);
  }
  return byDistinctId;
}

/** `GET …/session_recordings/`: PostHog's RecordingsQuery over the stored metadata. */
export async function listRecordings(ctx: Context, query: RecordingListQuery): Promise<{ results: RecordingResource[]; has_next: boolean; version: 4 }> {
  const now = new Date();
  const from = parseTimeParam("date_from", query.date_from ?? "-3d", now);
  const to = query.date_to ? parseTimeParam("date_to", query.date_to, now) : null;
  let distinctIds: string[] | null = query.distinct_ids ?? null;
  if (query.person_uuid) {
    const person = (await personsByUuids(ctx.db, ctx.project.id, [query.person_uuid])).get(query.person_uuid);
    const ids = person?.distinctIds ?? [];
    distinctIds = distinctIds ? distinctIds.filter((id) => ids.includes(id)) : ids;
  }
  const eventSessionIds = await sessionsPerforming(ctx, query.events ?? [], query.operand, from, to, now);
  const consoleLevels = (query.console_log_filters ?? []).flatMap((filter) => (Array.isArray(filter.value) ? filter.value : [filter.value]));
  const store = recordingStore(ctx.db);
  const rows = await store.list(ctx.project.id, {
    from,
    to,
    distinctIds,
    sessionIds: query.session_ids ?? null,
    eventSessionIds,
    having: query.having_predicates ?? [],
    consoleLevels,
    operand: query.operand,
    order: query.order,
    direction: query.order_direction,
    limit: query.limit + 1,
    offset: query.offset,
  });
  const page = rows.slice(0, query.limit);
  const [persons, settings] = await Promise.all([personsFor(ctx.db, ctx.project.id, page.map((row) => row.distinctId)), recordingSettingsFor(ctx.db, ctx.project.id)]);
  return { results: page.map((row) => presentRecording(row, persons.get(row.distinctId), settings, now)), has_next: rows.length > query.limit, version: 4 };
}

/** The session of an event, as the select reads it: `properties.$session_id`, grouped. */
const SESSION_SELECT = [parseSelectItem("properties.$session_id"), parseSelectItem("count()")];

/**
 * "Events performed": the sessions with an event of each filter's name and properties in the
 * range, asked of the event store (PostgreSQL or ClickHouse alike, through its `select`);
 * several filters intersect (AND) or add up (OR). Null without filters.
 */
async function sessionsPerforming(ctx: Context, filters: RecordingEventFilter[], operand: "AND" | "OR", from: Date, to: Date | null, now: Date): Promise<string[] | null> {
  if (filters.length === 0) return null;
  await checkEventFilters(ctx.db, ctx.project.id, filters.map((filter) => filter.properties ?? null));
  let sessions = null as Set<string> | null;
  for (const [index, filter] of filters.entries()) {
    const query: EventListQuery = {
      format: "json",
      limit: MAX_EVENT_FILTER_SESSIONS + 1,
      offset: 0,
      after: from,
      before: to,
      beforeUuid: null,
      event: filter.id,
      distinctId: null,
      personId: null,
      properties: filter.properties && filter.properties.values.length > 0 ? filter.properties : null,
      select: SESSION_SELECT,
    };
    const page = await ctx.db.events.select(ctx.project.id, query, { limit: MAX_EVENT_FILTER_SESSIONS + 1, offset: 0, cursor: null, now });
    const ids = new Set(page.rows.map((row) => row.values[0]).filter((id): id is string => typeof id === "string" && SESSION_ID_PATTERN.test(id)));
    if (page.rows.length > MAX_EVENT_FILTER_SESSIONS) {
      throw new AppError("invalid_input", `events[${index}] matches over ${MAX_EVENT_FILTER_SESSIONS} sessions in this range; narrow the dates or add property filters.`, "events");
    }
    if (sessions === null) sessions = ids;
    else if (operand === "AND") sessions = new Set([...sessions].filter((id: string) => ids.has(id)));
    else for (const id of ids) sessions.add(id);
  }
  return [...(sessions ?? [])];
}

export async function getRecording(ctx: Context, id: string): Promise<RecordingResource> {
  const row = await recordingStore(ctx.db).get(ctx.project.id, requireSessionId(id));
  if (!row) throw new AppError("not_found", "Recording not found");
  const [persons, settings] = await Promise.all([personsFor(ctx.db, ctx.project.id, [row.distinctId]), recordingSettingsFor(ctx.db, ctx.project.id)]);
  return presentRecording(row, persons.get(row.distinctId), settings, new Date());
}

/** Blocks one snapshots request may ask for (PostHog's limit with session auth). */
export const MAX_BLOB_RANGE = 100;
/**
 * Bytes of JSONL one snapshots response may carry: 100 blocks of posthog-js's usual size
 * (it flushes at 0.9 MiB) fit; a range of oversized blocks (a single big event is sent alone,
 * up to /s/'s 8 MiB) is refused with the keys that fit, as PostHog refuses a range of too
 * many keys. The first block is always served, whatever its size.
 */
export const MAX_SNAPSHOT_RESPONSE_BYTES = 128 * 1024 * 1024;

export type SnapshotsAnswer =
  | { kind: "sources"; sources: { source: "blob_v2"; start_timestamp: string; end_timestamp: string; blob_key: string }[] }
  | { kind: "blocks"; jsonl: Uint8Array<ArrayBuffer> };

const MIB = 1024 * 1024;

/**
 * A stored chunk's JSONL bytes. We wrote it and its size, so the inflate is bounded by that
 * size; a chunk that does not inflate within it is corrupt: null.
 */
function inflateChunk(chunk: ChunkRow): Buffer | null {
  try {
    return gunzipSync(chunk.data, { maxOutputLength: Math.max(1, chunk.rawBytes) });
  } catch {
    return null;
  }
}

/**
 * `GET …/:id/snapshots/`: without `source`, one `blob_v2` source per stored chunk (keys
 * `"0"`, `"1"`, … in time order); with `source=blob_v2&start_blob_key&end_blob_key`, those
 * chunks' `[windowId, event]` lines (JSONL), events as posthog-js sent them. Only the range's
 * chunks are read, and at most MAX_SNAPSHOT_RESPONSE_BYTES of them.
 */
export async function recordingSnapshots(
  ctx: Context,
  id: string,
  query: { source?: string; start_blob_key?: number; end_blob_key?: number; blob_key?: string },
): Promise<SnapshotsAnswer> {
  const sessionId = requireSessionId(id);
  const store = recordingStore(ctx.db);
  if (query.source === undefined) {
    if (!(await store.get(ctx.project.id, sessionId))) throw new AppError("not_found", "Recording not found");
    const chunks = await store.chunks(ctx.project.id, sessionId);
    return {
      kind: "sources",
      sources: chunks.map((chunk, index) => ({ source: "blob_v2", start_timestamp: chunk.firstTimestamp.toISOString(), end_timestamp: chunk.lastTimestamp.toISOString(), blob_key: String(index) })),
    };
  }
  if (query.source !== "blob_v2") throw new AppError("invalid_input", `Invalid source: ${query.source.slice(0, 40)}`, "source");
  const start = query.start_blob_key ?? (query.blob_key !== undefined && /^\d+$/.test(query.blob_key) ? Number(query.blob_key) : undefined);
  const end = query.end_blob_key ?? start;
  if (start === undefined || end === undefined) throw new AppError("invalid_input", "start_blob_key and end_blob_key are required for blob_v2.", "start_blob_key");
  if (end < start) throw new AppError("invalid_input", "end_blob_key must not be before start_blob_key.", "end_blob_key");
  if (end - start >= MAX_BLOB_RANGE) throw new AppError("invalid_input", `Cannot request more than ${MAX_BLOB_RANGE} blob keys at once.`, "end_blob_key");
  // The keys are indexes in the sources' order: the list without data, then only the range's data.
  const listed = await store.chunks(ctx.project.id, sessionId);
  if (listed.length === 0) throw new AppError("not_found", "Recording not found");
  const range = listed.slice(start, end + 1);
  let bytes = 0;
  for (const [offset, chunk] of range.entries()) {
    bytes += chunk.rawBytes;
    if (offset > 0 && bytes > MAX_SNAPSHOT_RESPONSE_BYTES) {
      const total = range.reduce((sum, c) => sum + c.rawBytes, 0);
      throw new AppError(
        "invalid_input",
        `Blob keys ${start}–${end} hold ${Math.ceil(total / MIB)} MiB, more than one response carries (${MAX_SNAPSHOT_RESPONSE_BYTES / MIB} MiB): ask for ${start}–${start + offset - 1}, then from ${start + offset}.`,
        "end_blob_key",
      );
    }
  }
  const chunks = await store.chunksWithData(ctx.project.id, sessionId, range.map((chunk) => chunk.id));
  // Bytes, not a string: no decoding and re-encoding, and no string near V8's length limit.
  const parts = chunks.map(inflateChunk).filter((part): part is Buffer => part !== null);
  return { kind: "blocks", jsonl: Buffer.concat(parts) };
}

/** Events a recording may hand the player at once (a 10-minute page is ~10–30k). */
const MAX_PLAYBACK_EVENTS = 500_000;
/**
 * Bytes one playback may inflate, chunks and packed values together: about what 500k events
 * of posthog-js hold, and well under V8's longest string (the answer is serialised as one).
 * A recording past it plays up to there (`truncated`).
 */
export const MAX_PLAYBACK_INFLATED_BYTES = 256 * MIB;
/** Raw (inflated) bytes of chunks read per query while playing back; their stored data is a fraction of it. */
const PLAYBACK_READ_BYTES = 32 * MIB;

/**
 * The Replay page's player: the recording's events in time order, `cv`-packed parts unpacked,
 * with the window each came from. Chunks are read a few at a time and inflated within
 * MAX_PLAYBACK_INFLATED_BYTES; an event whose packed part is over its bound is left out.
 * `truncated` says some events were left out or not read.
 */
export async function recordingPlayback(
  ctx: Context,
  id: string,
): Promise<{ recording: RecordingResource; events: Record<string, unknown>[]; windows: string[]; truncated: boolean }> {
  const recording = await getRecording(ctx, id);
  const store = recordingStore(ctx.db);
  const listed = await store.chunks(ctx.project.id, recording.id);
  const budget = inflateBudget(MAX_PLAYBACK_INFLATED_BYTES);
  const events: { windowId: string; event: Record<string, unknown> }[] = [];
  let spent = false;
  let full = false;
  for (let next = 0; next < listed.length && !spent && !full; ) {
    const batch: string[] = [];
    for (let bytes = 0; next < listed.length && (batch.length === 0 || bytes + listed[next]!.rawBytes <= PLAYBACK_READ_BYTES); next++) {
      const chunk = listed[next]!;
      // Charged before it is read: a chunk past what the budget has left is not loaded at all.
      if (chunk.rawBytes > budget.left) {
        spent = true;
        break;
      }
      budget.left -= chunk.rawBytes;
      bytes += chunk.rawBytes;
      batch.push(chunk.id);
    }
    for (const chunk of await store.chunksWithData(ctx.project.id, recording.id, batch)) {
      const jsonl = inflateChunk(chunk);
      if (!jsonl) continue;
      for (const item of playbackEventsOf(jsonl.toString("utf8"), budget)) {
        if (events.length >= MAX_PLAYBACK_EVENTS) {
          full = true;
          break;
        }
        events.push(item);
      }
      if (full) break;
    }
  }
  events.sort((a, b) => Number(a.event.timestamp) - Number(b.event.timestamp));
  const windows = [...new Set(events.map((item) => item.windowId))];
  const truncated = spent || full || budget.skipped > 0;
  return { recording, events: events.map((item) => ({ ...item.event, windowId: item.windowId })), windows, truncated };
}

/** `DELETE …/:id/`: the recording and its snapshots, at once. */
export async function deleteRecording(ctx: Context, id: string): Promise<void> {
  const deleted = await recordingStore(ctx.db).delete(ctx.project.id, [requireSessionId(id)]);
  if (deleted === 0) throw new AppError("not_found", "Recording not found");
}

/** The recordings of a deleted person's distinct ids (the person deletion worker calls this). */
export function deleteRecordingsOfDistinctIds(db: Pick<Database, "sql">, projectId: number, distinctIds: readonly string[]): Promise<number> {
  return recordingStore(db).deleteByDistinctIds(projectId, [...distinctIds]);
}

// A person's recordings go when their events do (this module is loaded wherever the API or ingestion is).
alsoDeleteWithPersonEvents("recordings", deleteRecordingsOfDistinctIds);

/** Bytes used against the budget, and bytes per recorded minute (the Replay page). */
export async function recordingUsage(ctx: Context): Promise<RecordingUsage> {
  const [usage, settings] = await Promise.all([recordingStore(ctx.db).usage(ctx.project.id), recordingSettingsFor(ctx.db, ctx.project.id)]);
  return {
    recordings: usage.recordings,
    bytes: usage.bytes,
    budgetBytes: settings.session_recording_storage_budget_bytes,
    recordedMs: usage.recordedMs,
    bytesPerMinute: usage.recordedMs > 0 ? Math.round(usage.bytes / (usage.recordedMs / 60_000)) : null,
    retentionPeriod: settings.session_recording_retention_period,
  };
}
