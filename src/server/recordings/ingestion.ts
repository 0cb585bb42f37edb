/**
 * `/s/`'s path after the edge has found the project: chunks stored, acknowledged only once
 * the transaction holding them and their recordings' metadata has committed. Nothing is
 * stored for a project with recording off (posthog-js does not record then; other senders'
 * snapshots are dropped).
 */
import type { Database } from "@/server/db";
import type { ChunkSummary } from "./contract";
import { scheduleRecordingUpkeep } from "./budget";
import { mergeChunk } from "./ingest";
import { recordingSettingsFor, recordingStore } from "./service";

export { parseSnapshotRequest } from "./ingest";

export interface SnapshotsAccepted {
  /** Chunks written (0 when the project records nothing). */
  chunks: number;
  bytes: number;
}

export async function acceptSnapshots(db: Pick<Database, "sql">, projectId: number, chunks: ChunkSummary[]): Promise<SnapshotsAccepted> {
  const settings = await recordingSettingsFor(db, projectId);
  if (!settings.session_recording_opt_in) return { chunks: 0, bytes: 0 };
  await recordingStore(db).writeChunks(projectId, chunks, mergeChunk);
  scheduleRecordingUpkeep(db, projectId);
  return { chunks: chunks.length, bytes: chunks.reduce((sum, chunk) => sum + chunk.data.length, 0) };
}
