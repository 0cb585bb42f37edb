/**
 * Batch exports (PostHog's posthog/batch_exports): an export of a model to a destination on
 * an hourly or daily schedule by ingestion time, its runs and its backfills, over the store.
 * Destination URLs and hosts must pass the outbound check when saved (and again, resolved, at
 * every connection); credentials in configs are stored sealed and answered masked. The
 * background passes (runner.ts) create and execute the runs.
 */
import { randomUUID } from "node:crypto";
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow, type PageQuery } from "@/server/input/page";
import { checkOutboundUrl } from "@/server/outbound/service";
import { sealedConfig } from "./config";
import {
  BATCH_EXPORT_LIMITS,
  type BackfillCreateBody,
  type BackfillResource,
  type BatchExportCreateBody,
  type BatchExportInterval,
  type BatchExportResource,
  type BatchExportRunResource,
  type BatchExportUpdateBody,
  type BatchExportModel,
  type DestinationInput,
} from "./contract";
import { INTERVAL_MS, intervalsBetween, intervalStart } from "./intervals";
import { presentBackfill, presentBatchExport, presentRun } from "./present";
import { kickBatchExports } from "./runner";
import * as store from "./store";

export { kickBatchExports, runBatchExportsPass, runnerOptions, startBatchExports, stopBatchExports } from "./runner";

const ACTIVITY_SCOPE = "BatchExport";
const LATEST_RUNS = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = () => new AppError("not_found", "Not found.");

async function rowOf(ctx: Context, id: string): Promise<store.BatchExportRow> {
  if (!UUID.test(id)) throw notFound();
  const row = await store.findBatchExport(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return row;
}

async function resourceOf(ctx: Context, row: store.BatchExportRow): Promise<BatchExportResource> {
  const runs = await store.latestRuns(ctx.db.prisma, [row.id], LATEST_RUNS);
  return presentBatchExport(row, runs.get(row.id) ?? []);
}

export async function getBatchExport(ctx: Context, id: string): Promise<BatchExportResource> {
  return resourceOf(ctx, await rowOf(ctx, id));
}

export async function listBatchExports(ctx: Context, query: PageQuery): Promise<{ count: number; results: BatchExportResource[] }> {
  const rows = await store.listBatchExportRows(ctx.db.prisma, ctx.project.id);
  const { take, skip } = pageWindow(query);
  const page = rows.slice(skip, skip + take);
  const runs = await store.latestRuns(ctx.db.prisma, page.map((r) => r.id), LATEST_RUNS);
  return { count: rows.length, results: page.map((row) => presentBatchExport(row, runs.get(row.id) ?? [])) };
}

/** What a model can be exported to here (the model is fixed at creation; the destination may change). */
function checkModel(model: BatchExportModel, destination: DestinationInput): void {
  if (model === "events") return;
  if (destination.type === "HTTP") throw new AppError("invalid_input", `The HTTP destination exports events only (PostHog's /batch): export ${model} to S3 or Postgres.`, "model");
  if (destination.type === "Postgres" && destination.config.table_name === "events") {
    throw new AppError("invalid_input", `table_name: choose a table for the ${model} model (events is the events model's default).`, "destination__config__table_name");
  }
}

/** The destination's address as written must pass the outbound check (it is checked again, resolved, at each connection). */
function checkDestination(destination: DestinationInput): void {
  const [url, field] =
    destination.type === "S3"
      ? [destination.config.endpoint_url, "endpoint_url"]
      : destination.type === "HTTP"
        ? [destination.config.url, "url"]
        : [`http://${destination.config.host.includes(":") ? `[${destination.config.host}]` : destination.config.host}/`, "host"];
  if (!url) return;
  const verdict = checkOutboundUrl(url);
  if (!verdict.ok) throw new AppError("invalid_input", `The ${field} ${verdict.reason}.`, `destination__config__${field}`);
}

function checkRange(startAt: Date | null, endAt: Date | null): void {
  if (startAt && endAt && endAt <= startAt) throw new AppError("invalid_input", "end_at must be after start_at.", "end_at");
}

const dateOf = (text: string | null | undefined) => (text ? new Date(text) : null);

function tracked(row: Pick<store.BatchExportWrite, "name" | "interval" | "paused" | "destinationType" | "startAt" | "endAt">) {
  return { name: row.name, interval: row.interval, paused: row.paused, destination: row.destinationType, start_at: row.startAt, end_at: row.endAt };
}

export async function createBatchExport(ctx: Context, body: BatchExportCreateBody): Promise<BatchExportResource> {
  checkModel(body.model, body.destination);
  checkDestination(body.destination);
  const write: store.BatchExportWrite = {
    name: body.name,
    model: body.model,
    destinationType: body.destination.type,
    destinationConfig: sealedConfig(body.destination.type, body.destination.config, null),
    interval: body.interval,
    paused: body.paused,
    startAt: dateOf(body.start_at),
    endAt: dateOf(body.end_at),
    lastPausedAt: body.paused ? new Date() : null,
  };
  checkRange(write.startAt, write.endAt);
  const id = randomUUID();
  await inTransaction(ctx.db, async (tx) => {
    await store.insertBatchExport(tx, id, ctx.project.id, write);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
  });
  kickBatchExports();
  return getBatchExport(ctx, id);
}

export async function updateBatchExport(ctx: Context, id: string, body: BatchExportUpdateBody): Promise<BatchExportResource> {
  const current = await rowOf(ctx, id);
  if (body.destination) {
    checkModel(current.model as BatchExportModel, body.destination);
    checkDestination(body.destination);
  }
  const previousConfig = current.destinationType === body.destination?.type ? (current.destinationConfig as Record<string, unknown>) : null;
  const paused = body.paused ?? current.paused;
  const next: store.BatchExportWrite = {
    name: body.name ?? current.name,
    model: current.model,
    destinationType: body.destination?.type ?? current.destinationType,
    destinationConfig: body.destination ? sealedConfig(body.destination.type, body.destination.config, previousConfig) : (current.destinationConfig as Record<string, unknown>),
    interval: body.interval ?? current.interval,
    paused,
    startAt: body.start_at === undefined ? current.startAt : dateOf(body.start_at),
    endAt: body.end_at === undefined ? current.endAt : dateOf(body.end_at),
    lastPausedAt: paused && !current.paused ? new Date() : current.lastPausedAt,
  };
  checkRange(next.startAt, next.endAt);
  const changes = changesBetween(tracked(current), tracked(next));
  await inTransaction(ctx.db, async (tx) => {
    await store.updateBatchExportRow(tx, id, next);
    if (changes.length > 0) await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "updated", name: next.name, changes });
  });
  if (!paused) kickBatchExports();
  return getBatchExport(ctx, id);
}

/** `POST …/:id/pause/` and `…/unpause/`: unpausing schedules the intervals missed meanwhile (PostHog's `backfill` on unpause, here always). */
export function setPaused(ctx: Context, id: string, paused: boolean): Promise<BatchExportResource> {
  return updateBatchExport(ctx, id, { paused });
}

/** `DELETE …/:id/`: gone from the API and the schedule; waiting runs are cancelled. */
export async function deleteBatchExport(ctx: Context, id: string): Promise<void> {
  const row = await rowOf(ctx, id);
  await inTransaction(ctx.db, async (tx) => {
    await store.markDeleted(tx, id);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "deleted", name: row.name });
  });
}

export async function listRuns(ctx: Context, id: string, query: PageQuery): Promise<{ count: number; results: BatchExportRunResource[] }> {
  await rowOf(ctx, id);
  const { take, skip } = pageWindow(query);
  const { count, rows } = await store.runPage(ctx.db.prisma, id, take, skip);
  return { count, results: rows.map(presentRun) };
}

async function runOf(ctx: Context, id: string, runId: string): Promise<store.RunRow> {
  await rowOf(ctx, id);
  if (!UUID.test(runId)) throw notFound();
  const run = await store.findRun(ctx.db.prisma, id, runId);
  if (!run) throw notFound();
  return run;
}

export async function getRun(ctx: Context, id: string, runId: string): Promise<BatchExportRunResource> {
  return presentRun(await runOf(ctx, id, runId));
}

/** `POST …/runs/:run_id/retry/`: the run's interval again, from its start (a finished run too: its file is rewritten, its rows upserted). */
export async function retryRun(ctx: Context, id: string, runId: string): Promise<BatchExportRunResource> {
  const run = await runOf(ctx, id, runId);
  if (run.status === "Running") throw new AppError("conflict", "This run is running: wait for it to finish.", "status");
  await inTransaction(ctx.db, (tx) => store.resetRun(tx, run.id));
  kickBatchExports();
  return getRun(ctx, id, runId);
}

export async function listBackfills(ctx: Context, id: string, query: PageQuery): Promise<{ count: number; results: BackfillResource[] }> {
  await rowOf(ctx, id);
  const { take, skip } = pageWindow(query);
  const { count, rows } = await store.backfillPage(ctx.db.prisma, id, take, skip);
  return { count, results: rows.map(presentBackfill) };
}

async function backfillOf(ctx: Context, id: string, backfillId: string): Promise<store.BackfillRow> {
  await rowOf(ctx, id);
  if (!UUID.test(backfillId)) throw notFound();
  const row = await store.findBackfill(ctx.db.prisma, id, backfillId);
  if (!row) throw notFound();
  return row;
}

export async function getBackfill(ctx: Context, id: string, backfillId: string): Promise<BackfillResource> {
  return presentBackfill(await backfillOf(ctx, id, backfillId));
}

/**
 * `POST …/:id/backfills/`: one run per interval in [start_at, end_at): the start floored and
 * the end rounded up to the interval, the end no later than the last completed interval.
 */
export async function createBackfill(ctx: Context, id: string, body: BackfillCreateBody, now = new Date()): Promise<BackfillResource> {
  const row = await rowOf(ctx, id);
  const interval = row.interval as BatchExportInterval;
  const start = intervalStart(new Date(body.start_at), interval);
  const asked = body.end_at ? new Date(body.end_at) : now;
  if (asked <= new Date(body.start_at)) throw new AppError("invalid_input", "end_at must be after start_at.", "end_at");
  if (new Date(body.start_at) > now) throw new AppError("invalid_input", "start_at must be in the past.", "start_at");
  const floored = intervalStart(asked, interval).getTime();
  const ceiled = floored === asked.getTime() ? floored : floored + INTERVAL_MS[interval];
  const endLimit = new Date(Math.min(ceiled, intervalStart(now, interval).getTime()));
  const intervals = intervalsBetween(start, endLimit, interval, BATCH_EXPORT_LIMITS.maxBackfillRuns + 1);
  if (intervals.length > BATCH_EXPORT_LIMITS.maxBackfillRuns) throw new AppError("invalid_input", `A backfill may hold at most ${BATCH_EXPORT_LIMITS.maxBackfillRuns} intervals: split the range.`, "start_at");
  const backfillId = randomUUID();
  await inTransaction(ctx.db, (tx) => store.insertBackfill(tx, { id: backfillId, batchExportId: id, startAt: start, endAt: endLimit }, intervals.map((i) => ({ id: randomUUID(), ...i }))));
  kickBatchExports();
  return getBackfill(ctx, id, backfillId);
}

/** `POST …/backfills/:id/cancel/`: its runs not yet done are cancelled. */
export async function cancelBackfill(ctx: Context, id: string, backfillId: string): Promise<BackfillResource> {
  const backfill = await backfillOf(ctx, id, backfillId);
  if (backfill.status === "Running") await inTransaction(ctx.db, (tx) => store.cancelBackfillRows(tx, backfillId));
  return getBackfill(ctx, id, backfillId);
}
