/**
 * Bounded storage: each project keeps at most its byte budget of recordings (the oldest go
 * first) and none past its retention period. Two callers: ingestion, after acknowledging, at
 * most once per project every few seconds (so a project can pass its budget by a few seconds
 * of snapshots and no more); and a timer on the server (startRecordingUpkeep), hourly over
 * every project with recordings, so that recordings expire in a project that no longer
 * records and a lowered budget applies without a new snapshot. Deletes run on the workers'
 * handle in chunks (db/chunks.ts), a few recordings and their snapshots at a time.
 */
import type { Database } from "@/server/db";
import { ChunkSizer, yieldToRequests } from "@/server/db/chunks";
import { perDatabase } from "@/server/db/per-database";
import { startPeriodicPass, stopPeriodicPass, type PassStart } from "@/server/periodic-pass";
import { RETENTION_DAYS } from "./contract";
import { recordingSettingsFor } from "./service";
import { PostgresRecordingStore } from "./store";

const DAY_MS = 86_400_000;
/** Recordings looked at per eviction round. */
const EVICTION_BATCH = 200;
/** How often ingestion may run the upkeep for one project. */
export const UPKEEP_INTERVAL_MS = 5_000;
/** How often the timer goes over every project (retention is in days: an hour late is nothing). */
export const UPKEEP_TIMER_MS = 3_600_000;

export interface UpkeepResult {
  expired: number;
  evicted: number;
}

type UpkeepDb = Pick<Database, "sql">;

/**
 * Recordings per delete. A recording is a few to a few hundred chunks: on the embedded
 * database a chunk starts at 10 recordings and follows what the last ones held the connection
 * (ChunkSizer); a PostgreSQL server's workers have connections of their own.
 */
function sizerFor(db: UpkeepDb): ChunkSizer {
  return db.sql.worker.embedded ? new ChunkSizer(10, 1, 200) : new ChunkSizer(EVICTION_BATCH, EVICTION_BATCH, EVICTION_BATCH);
}

/** Deletes what is past retention, then the oldest recordings until the project is within its budget. */
export async function enforceRecordingBudget(db: UpkeepDb, projectId: number, now = new Date(), shouldStop: () => boolean = () => false): Promise<UpkeepResult> {
  const sql = db.sql.worker.as("recording-upkeep");
  const store = new PostgresRecordingStore(sql);
  const sizer = sizerFor(db);
  const settings = await recordingSettingsFor(db, projectId);
  const before = new Date(now.getTime() - RETENTION_DAYS[settings.session_recording_retention_period] * DAY_MS);
  let expired = 0;
  while (!shouldStop()) {
    const size = sizer.size;
    const deleted = await store.deleteOlderThan(projectId, before, size);
    expired += deleted;
    if (deleted < size) break;
    sizer.took(sql.lastHoldMs, deleted);
    await yieldToRequests();
  }
  const budget = settings.session_recording_storage_budget_bytes;
  let evicted = 0;
  let { bytes } = await store.usage(projectId);
  while (bytes > budget && !shouldStop()) {
    const oldest = await store.oldest(projectId, EVICTION_BATCH);
    if (oldest.length === 0) break;
    const victims: string[] = [];
    for (const recording of oldest) {
      if (bytes <= budget) break;
      victims.push(recording.sessionId);
      bytes -= recording.sizeBytes;
    }
    for (let at = 0; at < victims.length && !shouldStop(); ) {
      const slice = victims.slice(at, at + sizer.size);
      evicted += await store.delete(projectId, slice);
      sizer.took(sql.lastHoldMs, slice.length);
      at += slice.length;
      await yieldToRequests();
    }
  }
  return { expired, evicted };
}

/** When each project's upkeep last started, and which are running, per database (project ids are only unique within one). */
const upkeepStateOf = perDatabase((_: UpkeepDb) => ({ lastRun: new Map<number, number>(), running: new Set<number>() }));

/** After a write: the upkeep for the project, unless it ran within the interval (errors are logged, never thrown). */
export function scheduleRecordingUpkeep(db: UpkeepDb, projectId: number): void {
  const { lastRun, running } = upkeepStateOf(db);
  if (running.has(projectId) || Date.now() - (lastRun.get(projectId) ?? 0) < UPKEEP_INTERVAL_MS) return;
  lastRun.set(projectId, Date.now());
  running.add(projectId);
  enforceRecordingBudget(db, projectId)
    .catch((error: unknown) => console.error(`burrow: recording upkeep of project ${projectId} failed`, error))
    .finally(() => running.delete(projectId));
}

/** One pass of the timer: every project with recordings, one after the other. A project's failure is logged and the pass goes on. */
export async function runRecordingUpkeep(db: UpkeepDb, options: { now?: Date; shouldStop?: () => boolean } = {}): Promise<UpkeepResult> {
  const shouldStop = options.shouldStop ?? (() => false);
  const total: UpkeepResult = { expired: 0, evicted: 0 };
  const projects = await new PostgresRecordingStore(db.sql.worker.as("recording-upkeep")).projectsWithRecordings();
  const { running } = upkeepStateOf(db);
  for (const projectId of projects) {
    if (shouldStop()) break;
    if (running.has(projectId)) continue;
    running.add(projectId);
    try {
      const result = await enforceRecordingBudget(db, projectId, options.now ?? new Date(), shouldStop);
      total.expired += result.expired;
      total.evicted += result.evicted;
    } catch (error) {
      console.error(`burrow: recording upkeep of project ${projectId} failed`, error);
    } finally {
      running.delete(projectId);
    }
  }
  return total;
}

const TIMER_KEY = Symbol.for("burrow.recordingUpkeep");

/** Starts the hourly upkeep (a first pass now: what expired while the server was down goes at start). */
export function startRecordingUpkeep(db: UpkeepDb, options: PassStart & { intervalMs?: number } = {}): void {
  startPeriodicPass(TIMER_KEY, options.intervalMs ?? UPKEEP_TIMER_MS, "a recording upkeep pass", (stopping) => runRecordingUpkeep(db, { shouldStop: stopping }), options);
}

/** Stops the timer, waiting for the delete under way (graceful shutdown). */
export function stopRecordingUpkeep(): Promise<void> {
  return stopPeriodicPass(TIMER_KEY);
}
