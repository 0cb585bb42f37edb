/**
 * Bounded storage: each project keeps at most its byte budget of recordings (the oldest go
 * first) and none past its retention period. Ingestion runs this after acknowledging, at most
 * once per project every few seconds, so a project can pass its budget by a few seconds of
 * snapshots and no more.
 */
import type { Database } from "@/server/db";
import { RETENTION_DAYS } from "./contract";
import { recordingSettingsFor, recordingStore } from "./service";

const DAY_MS = 86_400_000;
/** Recordings looked at per eviction round. */
const EVICTION_BATCH = 200;
/** How often ingestion may run the upkeep for one project. */
export const UPKEEP_INTERVAL_MS = 5_000;

export interface UpkeepResult {
  expired: number;
  evicted: number;
}

/** Deletes what is past retention, then the oldest recordings until the project is within its budget. */
export async function enforceRecordingBudget(db: Pick<Database, "sql">, projectId: number, now = new Date()): Promise<UpkeepResult> {
  const store = recordingStore(db);
  const settings = await recordingSettingsFor(db, projectId);
  const expired = await store.deleteOlderThan(projectId, new Date(now.getTime() - RETENTION_DAYS[settings.session_recording_retention_period] * DAY_MS));
  const budget = settings.session_recording_storage_budget_bytes;
  let evicted = 0;
  let { bytes } = await store.usage(projectId);
  while (bytes > budget) {
    const oldest = await store.oldest(projectId, EVICTION_BATCH);
    if (oldest.length === 0) break;
    const victims: string[] = [];
    for (const recording of oldest) {
      if (bytes <= budget) break;
      victims.push(recording.sessionId);
      bytes -= recording.sizeBytes;
    }
    evicted += await store.delete(projectId, victims);
  }
  return { expired, evicted };
}

const LAST_RUN = new Map<string, number>();
const RUNNING = new Set<string>();

/** After a write: the upkeep for the project, unless it ran within the interval (errors are logged, never thrown). */
export function scheduleRecordingUpkeep(db: Pick<Database, "sql">, projectId: number): void {
  const key = String(projectId);
  const last = LAST_RUN.get(key) ?? 0;
  if (RUNNING.has(key) || Date.now() - last < UPKEEP_INTERVAL_MS) return;
  LAST_RUN.set(key, Date.now());
  RUNNING.add(key);
  enforceRecordingBudget(db, projectId)
    .catch((error: unknown) => console.error(`burrow: recording upkeep of project ${projectId} failed`, error))
    .finally(() => RUNNING.delete(key));
}
