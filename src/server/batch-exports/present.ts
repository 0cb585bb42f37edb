/** Batch exports as PostHog's API shows them (BatchExportSerializer, BatchExportRunSerializer, BatchExportBackfillSerializer). */
import { maskedConfig } from "./config";
import type { BackfillResource, BatchExportResource, BatchExportRunResource, DestinationType } from "./contract";
import type { BackfillRow, BatchExportRow, RunRow } from "./store";

export type { BackfillResource, BatchExportResource, BatchExportRunResource } from "./contract";

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function presentRun(row: RunRow): BatchExportRunResource {
  return {
    id: row.id,
    batch_export: row.batchExportId,
    status: row.status as BatchExportRunResource["status"],
    records_completed: row.recordsCompleted,
    records_total_count: row.recordsTotalCount,
    bytes_exported: Number(row.bytesExported),
    latest_error: row.latestError,
    data_interval_start: row.dataIntervalStart.toISOString(),
    data_interval_end: row.dataIntervalEnd.toISOString(),
    cursor: (row.cursor ?? null) as BatchExportRunResource["cursor"],
    created_at: row.createdAt.toISOString(),
    finished_at: iso(row.finishedAt),
    last_updated_at: row.lastUpdatedAt.toISOString(),
    backfill: row.backfillId,
  };
}

export function presentBatchExport(row: BatchExportRow, runs: RunRow[]): BatchExportResource {
  const type = row.destinationType as DestinationType;
  return {
    id: row.id,
    team_id: row.projectId,
    name: row.name,
    model: row.model as BatchExportResource["model"],
    destination: { type, config: maskedConfig(type, (row.destinationConfig ?? {}) as Record<string, unknown>) },
    interval: row.interval as BatchExportResource["interval"],
    paused: row.paused,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.lastUpdatedAt.toISOString(),
    last_paused_at: iso(row.lastPausedAt),
    start_at: iso(row.startAt),
    end_at: iso(row.endAt),
    latest_runs: runs.map(presentRun),
  };
}

export function presentBackfill(row: BackfillRow): BackfillResource {
  return {
    id: row.id,
    batch_export: row.batchExportId,
    start_at: iso(row.startAt),
    end_at: iso(row.endAt),
    status: row.status as BackfillResource["status"],
    created_at: row.createdAt.toISOString(),
    finished_at: iso(row.finishedAt),
    last_updated_at: row.lastUpdatedAt.toISOString(),
    total_expected_runs: row.totalExpectedRuns,
  };
}
