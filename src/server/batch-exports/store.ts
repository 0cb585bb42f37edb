/**
 * Every read and write of batch exports' own tables: the exports, their runs and backfills
 * (Prisma for the API), and the scheduler's and runner's statements in plain SQL on the
 * workers' handle. What a Postgres destination writes in another database is store/postgres-destination.ts.
 */
import type { Prisma } from "@/generated/prisma/client";
import type { SqlExecutor, WorkerSql } from "@/server/db/driver";
import type { DbClient, Tx } from "@/server/db/transaction";
import type { ExportCursor } from "@/server/db/events";

export type BatchExportRow = Prisma.BatchExportGetPayload<object>;
export type RunRow = Prisma.BatchExportRunGetPayload<object>;
export type BackfillRow = Prisma.BatchExportBackfillGetPayload<object>;

export interface BatchExportWrite {
  name: string;
  model: string;
  destinationType: string;
  destinationConfig: Record<string, unknown>;
  interval: string;
  paused: boolean;
  startAt: Date | null;
  endAt: Date | null;
  lastPausedAt: Date | null;
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

export function findBatchExport(client: DbClient, projectId: number, id: string): Promise<BatchExportRow | null> {
  return client.batchExport.findFirst({ where: { id, projectId, deleted: false } });
}

export function listBatchExportRows(client: DbClient, projectId: number): Promise<BatchExportRow[]> {
  return client.batchExport.findMany({ where: { projectId, deleted: false }, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
}

export async function insertBatchExport(tx: Tx, id: string, projectId: number, write: BatchExportWrite): Promise<void> {
  await tx.batchExport.create({ data: { id, projectId, ...write, destinationConfig: json(write.destinationConfig) } });
}

export async function updateBatchExportRow(tx: Tx, id: string, write: BatchExportWrite): Promise<void> {
  await tx.batchExport.update({ where: { id }, data: { ...write, destinationConfig: json(write.destinationConfig) } });
}

/** Deleted: gone from the API and the schedule; its runs that wait are cancelled. */
export async function markDeleted(tx: Tx, id: string): Promise<void> {
  await tx.batchExport.update({ where: { id }, data: { deleted: true } });
  await tx.batchExportRun.updateMany({ where: { batchExportId: id, status: { in: ["Starting", "FailedRetryable", "Running"] } }, data: { status: "Cancelled", finishedAt: new Date() } });
}

/** The newest runs of each export, by interval (PostHog's `latest_runs`: 10). */
export async function latestRuns(client: DbClient, ids: string[], each: number): Promise<Map<string, RunRow[]>> {
  const out = new Map<string, RunRow[]>();
  for (const id of ids) out.set(id, await client.batchExportRun.findMany({ where: { batchExportId: id }, orderBy: [{ dataIntervalStart: "desc" }, { createdAt: "desc" }], take: each }));
  return out;
}

export async function runPage(client: DbClient, batchExportId: string, take: number, skip: number): Promise<{ count: number; rows: RunRow[] }> {
  const [count, rows] = await Promise.all([
    client.batchExportRun.count({ where: { batchExportId } }),
    client.batchExportRun.findMany({ where: { batchExportId }, orderBy: [{ dataIntervalStart: "desc" }, { createdAt: "desc" }], take, skip }),
  ]);
  return { count, rows };
}

export function findRun(client: DbClient, batchExportId: string, id: string): Promise<RunRow | null> {
  return client.batchExportRun.findFirst({ where: { id, batchExportId } });
}

export async function backfillPage(client: DbClient, batchExportId: string, take: number, skip: number): Promise<{ count: number; rows: BackfillRow[] }> {
  const [count, rows] = await Promise.all([
    client.batchExportBackfill.count({ where: { batchExportId } }),
    client.batchExportBackfill.findMany({ where: { batchExportId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take, skip }),
  ]);
  return { count, rows };
}

export function findBackfill(client: DbClient, batchExportId: string, id: string): Promise<BackfillRow | null> {
  return client.batchExportBackfill.findFirst({ where: { id, batchExportId } });
}

/** A backfill and its runs, one per interval, together. */
export async function insertBackfill(tx: Tx, backfill: { id: string; batchExportId: string; startAt: Date; endAt: Date }, runs: { id: string; start: Date; end: Date }[]): Promise<void> {
  await tx.batchExportBackfill.create({ data: { ...backfill, totalExpectedRuns: runs.length, status: runs.length === 0 ? "Completed" : "Running", finishedAt: runs.length === 0 ? new Date() : null } });
  await tx.batchExportRun.createMany({
    data: runs.map((run) => ({ id: run.id, batchExportId: backfill.batchExportId, backfillId: backfill.id, dataIntervalStart: run.start, dataIntervalEnd: run.end })),
  });
}

/** Cancels a backfill and the runs of it not yet done. */
export async function cancelBackfillRows(tx: Tx, id: string): Promise<void> {
  await tx.batchExportBackfill.update({ where: { id }, data: { status: "Cancelled", finishedAt: new Date() } });
  await tx.batchExportRun.updateMany({ where: { backfillId: id, status: { in: ["Starting", "FailedRetryable", "Running"] } }, data: { status: "Cancelled", finishedAt: new Date() } });
}

/** A run again from its start (PostHog's retry): its interval is written anew, idempotently. */
export async function resetRun(tx: Tx, id: string): Promise<void> {
  await tx.batchExportRun.update({
    where: { id },
    data: { status: "Starting", attempts: 0, cursor: json(null), recordsCompleted: 0, bytesExported: 0, latestError: null, finishedAt: null, nextAttemptAt: new Date() },
  });
}

// ---------------------------------------------------------------------------
// The scheduler and the runner (plain SQL on the workers' handle)
// ---------------------------------------------------------------------------

export interface ScheduleRow {
  id: string;
  interval: string;
  start_at: Date | null;
  end_at: Date | null;
  scheduled_until: Date | null;
  created_at: Date;
}

export function exportsToSchedule(sql: SqlExecutor): Promise<ScheduleRow[]> {
  return sql.query<ScheduleRow>(`SELECT id::text, interval, start_at, end_at, scheduled_until, created_at FROM batch_exports WHERE NOT deleted AND NOT paused ORDER BY id`);
}

/**
 * The runs of newly completed intervals and the export's bookmark, in one transaction (a crash
 * leaves neither or both). The bookmark moves only from `seen`: when another server moved it
 * first, nothing is written (false).
 */
export async function scheduleRuns(sql: WorkerSql, exportId: string, runs: { id: string; start: Date; end: Date }[], seen: Date | null, until: Date): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const moved = await tx.query<{ id: string }>(
      `UPDATE batch_exports SET scheduled_until = $2 WHERE id = $1::uuid AND scheduled_until IS NOT DISTINCT FROM $3::timestamptz RETURNING id::text`,
      [exportId, until, seen],
    );
    if (moved.length === 0) return false;
    await tx.query(
      `INSERT INTO batch_export_runs (id, batch_export_id, data_interval_start, data_interval_end, last_updated_at)
       SELECT r.id, $1::uuid, r.s, r.e, now() FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, s timestamptz, e timestamptz)`,
      [exportId, JSON.stringify(runs.map((r) => ({ id: r.id, s: r.start.toISOString(), e: r.end.toISOString() })))],
    );
    return true;
  });
}

export interface ClaimedRun {
  id: string;
  batch_export_id: string;
  backfill_id: string | null;
  project_id: number;
  data_interval_start: Date;
  data_interval_end: Date;
  records_completed: number;
  bytes_exported: string;
  cursor: ExportCursor | null;
  attempts: number;
  model: string;
  destination_type: string;
  destination_config: Record<string, unknown>;
}

/**
 * Takes the oldest due run: waiting, failed and due for a retry, or running with its lease
 * run out (its process died). The lease moves `leaseMs` ahead; progress renews it.
 */
export async function claimRun(sql: SqlExecutor, leaseMs: number): Promise<ClaimedRun | null> {
  const [row] = await sql.query<ClaimedRun>(
    `WITH due AS (
       SELECT r.id FROM batch_export_runs r JOIN batch_exports e ON e.id = r.batch_export_id
       WHERE r.status IN ('Starting', 'FailedRetryable', 'Running') AND r.next_attempt_at <= now() AND NOT e.deleted AND NOT e.paused
       ORDER BY r.next_attempt_at, r.data_interval_start LIMIT 1 FOR UPDATE OF r SKIP LOCKED
     ), claimed AS (
       UPDATE batch_export_runs r SET status = 'Running', attempts = r.attempts + 1, next_attempt_at = now() + ($1::int * interval '1 millisecond'), last_updated_at = now()
       FROM due WHERE r.id = due.id
       RETURNING r.*
     )
     SELECT c.id::text, c.batch_export_id::text, c.backfill_id::text, e.project_id, c.data_interval_start, c.data_interval_end, c.records_completed,
            c.bytes_exported::text, c.cursor, c.attempts, e.model, e.destination_type, e.destination_config
     FROM claimed c JOIN batch_exports e ON e.id = c.batch_export_id`,
    [leaseMs],
  );
  return row ?? null;
}

/** The embedded database's one process starting: a run it was running when it died is due now. */
export async function releaseRunningRuns(sql: SqlExecutor): Promise<void> {
  await sql.query(`UPDATE batch_export_runs SET next_attempt_at = now() WHERE status = 'Running' AND next_attempt_at > now()`);
}

/** Progress: rows and bytes so far and where to resume; renews the lease. False when the run was cancelled meanwhile. */
export async function saveProgress(sql: SqlExecutor, id: string, progress: { records: number; bytes: number; cursor: ExportCursor | null }, leaseMs: number): Promise<boolean> {
  const rows = await sql.query<{ id: string }>(
    `UPDATE batch_export_runs SET records_completed = $2, bytes_exported = $3, cursor = $4::jsonb, next_attempt_at = now() + ($5::int * interval '1 millisecond'), last_updated_at = now()
     WHERE id = $1::uuid AND status = 'Running' RETURNING id::text`,
    [id, progress.records, progress.bytes, JSON.stringify(progress.cursor), leaseMs],
  );
  return rows.length > 0;
}

/** A run's end (Completed, Failed, or FailedRetryable due again at `retryAt`), and its backfill's when it was the last. */
export async function finishRun(
  sql: WorkerSql,
  run: { id: string; backfillId: string | null },
  outcome: { status: "Completed" | "Failed" | "FailedRetryable"; records: number; bytes: number; error: string | null; retryAt?: Date },
): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.query(
      `UPDATE batch_export_runs SET status = $2, records_completed = $3, records_total_count = CASE WHEN $2 = 'Completed' THEN $3 ELSE records_total_count END,
              bytes_exported = $4, latest_error = $5, finished_at = CASE WHEN $2 = 'FailedRetryable' THEN NULL ELSE now() END,
              next_attempt_at = COALESCE($6, next_attempt_at), last_updated_at = now()
       WHERE id = $1::uuid AND status = 'Running'`,
      [run.id, outcome.status, outcome.records, outcome.bytes, outcome.error, outcome.retryAt ?? null],
    );
    if (!run.backfillId) return;
    await tx.query(
      `UPDATE batch_export_backfills b SET status = CASE WHEN EXISTS (SELECT 1 FROM batch_export_runs r WHERE r.backfill_id = b.id AND r.status = 'Failed') THEN 'Failed' ELSE 'Completed' END,
              finished_at = now(), last_updated_at = now()
       WHERE b.id = $1::uuid AND b.status = 'Running'
         AND NOT EXISTS (SELECT 1 FROM batch_export_runs r WHERE r.backfill_id = b.id AND r.status IN ('Starting', 'Running', 'FailedRetryable'))`,
      [run.backfillId],
    );
  });
}

/** When the next run falls due (null: none waits). */
export async function nextRunDue(sql: SqlExecutor): Promise<Date | null> {
  const [row] = await sql.query<{ at: Date | null }>(`SELECT min(next_attempt_at) AS at FROM batch_export_runs WHERE status IN ('Starting', 'FailedRetryable', 'Running')`);
  return row?.at ?? null;
}
