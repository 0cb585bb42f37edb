/**
 * Batch exports in the background, a pass on the kernel's timer (periodic-pass.ts):
 * 1. schedule: each live, unpaused export gets a run per interval completed since its
 *    bookmark (an interval is complete `settleMs` after its end, so that a transaction that
 *    stamped its rows just before the end has committed);
 * 2. run: due runs one at a time, oldest first. A run reads its interval's rows of its model
 *    (models.ts: events by ingestion time, persons and sessions by when they changed) a page
 *    at a time, in (time, key) order, and hands them to its writer (writers.ts), saving rows,
 *    bytes and its cursor after each page. A run that
 *    fails is retried with backoff, from its cursor when the writer keeps what it wrote, or
 *    from the start of its interval (idempotent file key); one whose process died is taken
 *    again when its lease runs out (at once, on the embedded database's restart).
 *
 * Pages are small on the embedded database (the worker holds its one connection a few ms per
 * page) and each page reads a slice of time, so the index on that time narrows the read:
 * a slice that fills a page halves the next one, a sparse one doubles it.
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@/server/db";
import type { WorkerSql } from "@/server/db/driver";
import type { ExportCursor } from "@/server/db/events";
import { kickPeriodicPass, startPeriodicPass, stopPeriodicPass, type PassStart } from "@/server/periodic-pass";
import { OutboundRefusedError } from "@/server/outbound/service";
import { openedConfig } from "./config";
import type { BatchExportInterval, BatchExportModel, DestinationType } from "./contract";
import { type ExportedRow, pageReader, type PageReader } from "./models";
import { intervalsBetween } from "./intervals";
import { S3Error } from "./s3";
import * as store from "./store";
import { ExportConfigError, openWriter } from "./writers";

export interface RunnerOptions {
  /** How long after an interval's end its run is created. */
  settleMs: number;
  /** Rows per page read. */
  pageRows: number;
  /** Attempts before a run fails for good; the first retry waits backoffMs, each next twice as long. */
  maxAttempts: number;
  backoffMs: number;
  /** A run's lease: a process that dies holding it leaves it due again after this. */
  leaseMs: number;
  /** One request to a destination. */
  timeoutMs: number;
  /** The part size of S3 multipart uploads: a run holds one part in memory. */
  s3PartBytes: number;
  /** Intervals scheduled per export per pass (a long-paused export catches up over passes). */
  maxIntervalsPerPass: number;
  /** Stops after this many runs in a pass (the next pass goes on). */
  maxRunsPerPass: number;
  now?: () => Date;
}

export function runnerOptions(db: Pick<Database, "worker">, overrides: Partial<RunnerOptions> = {}): RunnerOptions {
  return {
    settleMs: 60_000,
    pageRows: db.worker.embedded ? 1_000 : 10_000,
    maxAttempts: 5,
    backoffMs: 60_000,
    leaseMs: 10 * 60_000,
    timeoutMs: 30_000,
    s3PartBytes: 8 * 1024 * 1024,
    maxIntervalsPerPass: 500,
    maxRunsPerPass: 1_000,
    ...overrides,
  };
}

/** Step 1: the runs of every interval completed since each export's bookmark. Answers how many were created. */
export async function scheduleDueRuns(sql: WorkerSql, options: RunnerOptions): Promise<number> {
  const now = (options.now ?? (() => new Date()))();
  const until = new Date(now.getTime() - options.settleMs);
  let created = 0;
  for (const row of await store.exportsToSchedule(sql)) {
    const from = new Date(Math.max(row.scheduled_until?.getTime() ?? row.created_at.getTime(), row.start_at?.getTime() ?? 0));
    const limit = row.end_at && row.end_at < until ? row.end_at : until;
    const intervals = intervalsBetween(from, limit, row.interval as BatchExportInterval, options.maxIntervalsPerPass).filter((i) => !row.end_at || i.start < row.end_at);
    if (intervals.length === 0) continue;
    // The bookmark's first interval may have begun before it (the export was created mid-interval): that whole interval is its first run.
    // Another server that scheduled them first wins: no run twice.
    if (await store.scheduleRuns(sql, row.id, intervals.map((i) => ({ id: randomUUID(), ...i })), row.scheduled_until, intervals.at(-1)!.end)) created += intervals.length;
  }
  return created;
}

function retryable(error: unknown): boolean {
  if (error instanceof ExportConfigError || error instanceof OutboundRefusedError) return false;
  // S3's 4xx are settings (a bucket, a key, a signature), except throttling.
  if (error instanceof S3Error) return error.status >= 500 || error.status === 429 || error.status === 408;
  return true;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000);
const pause = () => new Promise((resolve) => setImmediate(resolve));

/** The interval's rows after `cursor`, a page at a time, each page within a slice of the model's time. */
async function* pagesOf(read: PageReader, sql: WorkerSql, run: store.ClaimedRun, cursor: ExportCursor | null, pageRows: number): AsyncGenerator<ExportedRow[]> {
  const end = run.data_interval_end.getTime();
  let width = Math.max(60_000, Math.round((end - run.data_interval_start.getTime()) / 60));
  let from = cursor ? Math.floor(new Date(cursor.at).getTime()) : run.data_interval_start.getTime();
  let after = cursor;
  while (from < end) {
    const to = Math.min(end, from + width);
    const rows = await read({ from: new Date(from), to: new Date(to), after, limit: pageRows });
    if (rows.length > 0) {
      after = rows.at(-1)!.cursor;
      yield rows;
    }
    if (rows.length === pageRows) {
      // More in this slice: go on after the cursor; the next slice is narrower.
      width = Math.max(10, Math.floor(width / 2));
      from = Math.floor(new Date(after!.at).getTime());
    } else {
      from = to;
      if (rows.length < pageRows / 4) width *= 2;
    }
    if (sql.embedded) await pause();
  }
}

/** Step 2, one run: exports its interval (or the rest of it) and records the outcome. */
export async function executeRun(db: Database, sql: WorkerSql, run: store.ClaimedRun, options: RunnerOptions, stopping: () => boolean = () => false): Promise<void> {
  const type = run.destination_type as DestinationType;
  const include = new Set((run.destination_config.include_events as string[] | null | undefined) ?? []);
  const exclude = new Set((run.destination_config.exclude_events as string[] | null | undefined) ?? []);
  const model = run.model as BatchExportModel;
  // include_events and exclude_events filter the events model's rows (PostHog's), and no other model's.
  const wanted = (row: ExportedRow) => model !== "events" || ((include.size === 0 || include.has(row.record.event as string)) && !exclude.has(row.record.event as string));
  let records = run.records_completed;
  let bytes = Number(run.bytes_exported);
  let writer: Awaited<ReturnType<typeof openWriter>> | null = null;
  try {
    writer = await openWriter(type, openedConfig(type, run.destination_config), {
      projectId: run.project_id,
      model,
      start: run.data_interval_start,
      end: run.data_interval_end,
      timeoutMs: options.timeoutMs,
      s3PartBytes: options.s3PartBytes,
    });
    // A writer that cannot resume (one S3 object per interval) starts its interval over.
    const cursor = writer.resumable ? run.cursor : null;
    if (!writer.resumable) records = bytes = 0;
    for await (const page of pagesOf(pageReader(db, sql, model, run.project_id), sql, run, cursor, options.pageRows)) {
      const rows = page.filter(wanted);
      bytes += await writer.write(rows.map((row) => row.record));
      records += rows.length;
      if (!(await store.saveProgress(sql, run.id, { records, bytes, cursor: writer.resumable ? page.at(-1)!.cursor : null }, options.leaseMs))) return;
      // Stopping: the run stays claimed until its lease ends (or the embedded database restarts) and resumes then.
      if (stopping()) return;
    }
    bytes += await writer.finish();
    await store.finishRun(sql, { id: run.id, backfillId: run.backfill_id }, { status: "Completed", records, bytes, error: null });
  } catch (error) {
    const again = retryable(error) && run.attempts < options.maxAttempts;
    const retryAt = again ? new Date(Date.now() + options.backoffMs * 2 ** (run.attempts - 1)) : undefined;
    await store.finishRun(sql, { id: run.id, backfillId: run.backfill_id }, { status: again ? "FailedRetryable" : "Failed", records, bytes, error: messageOf(error), retryAt });
  } finally {
    await writer?.close();
  }
}

/** One pass: schedule, then the due runs. */
export async function runBatchExportsPass(db: Database, options: RunnerOptions, stopping: () => boolean = () => false): Promise<{ scheduled: number; ran: number }> {
  const sql = db.worker.as("batch-exports");
  const scheduled = await scheduleDueRuns(sql, options);
  let ran = 0;
  while (!stopping() && ran < options.maxRunsPerPass) {
    const run = await store.claimRun(sql, options.leaseMs);
    if (!run) break;
    await executeRun(db, sql, run, options, stopping);
    ran++;
  }
  return { scheduled, ran };
}

const KEY = Symbol.for("burrow.batchExports");

/**
 * The background passes: at start (or `firstPassAfterMs` later), every `intervalMs` (a
 * minute), and when kicked (a backfill, a new export). On the embedded database the first
 * pass first releases the runs a crash left running (no other process can be running them).
 */
export function startBatchExports(db: Database, options: PassStart & { intervalMs?: number } & Partial<RunnerOptions> = {}): void {
  const resolved = runnerOptions(db, options);
  let released = !db.worker.embedded;
  const pass = async (stopping: () => boolean) => {
    if (!released) {
      released = true;
      await store.releaseRunningRuns(db.worker.as("batch-exports")).catch((error: unknown) => console.error("burrow: releasing batch export runs failed", error));
    }
    return runBatchExportsPass(db, resolved, stopping);
  };
  startPeriodicPass(KEY, options.intervalMs ?? 60_000, "a batch export pass", pass, options);
}

export function stopBatchExports(): Promise<void> {
  return stopPeriodicPass(KEY);
}

/** Work was added (a backfill, an export unpaused): a pass now. */
export function kickBatchExports(): void {
  kickPeriodicPass(KEY);
}
