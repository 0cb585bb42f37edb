/**
 * Moving an installation's events from PostgreSQL's `events` table to the ClickHouse event
 * store (the `move-events-to-clickhouse` admin command). Project by project, oldest first,
 * in batches read by keyset on (timestamp, uuid) — the (project_id, timestamp) index — and
 * written with the store's own insert (one ClickHouse insert per batch; uuids the project
 * already has there are skipped, so nothing is stored twice). After each batch ClickHouse
 * accepted, the position is saved: a run that stops (killed, a lost connection) is started
 * again and goes on from the last saved batch. PostgreSQL's rows are left as they are.
 *
 * The count of events new to ClickHouse stays exact across a kill: just before ClickHouse
 * writes a batch, the batch (its last position, how many of its events are new) is saved as
 * pending. A run that finds a pending batch moves exactly that range first and counts what
 * was recorded, whether or not the killed run's insert had gone through (the insert skips
 * what ClickHouse has, so it is not stored twice either way).
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { SqlExecutor } from "@/server/db/driver";
import { AppError } from "@/server/errors";
import type { EventStore, StoredEventInput } from "./contract";
import { ClickHouseEventStore } from "./clickhouse/store";

export const DEFAULT_MOVE_BATCH_SIZE = 10_000;
export const MAX_MOVE_BATCH_SIZE = 100_000;

/** The last event moved: the next batch starts after it. */
const positionSchema = z.object({ projectId: z.number().int(), timestamp: z.iso.datetime(), uuid: z.uuid() });
export type MovePosition = z.infer<typeof positionSchema>;

/** A batch about to be written: the range after `position` up to `through`, and how many of its events ClickHouse lacked. */
const pendingSchema = z.object({ through: positionSchema, fresh: z.number().int().nonnegative() });

const progressSchema = z.object({
  position: positionSchema.nullable(),
  /** Events read from PostgreSQL and handed to ClickHouse so far, over all runs. */
  moved: z.number().int().nonnegative(),
  /** Of those, how many ClickHouse did not have yet. */
  inserted: z.number().int().nonnegative(),
  /** Saved before each insert, cleared with the position after it (absent in files of older versions). */
  pending: pendingSchema.nullable().default(null),
});
export type MoveState = z.infer<typeof progressSchema>;

/** Where a move keeps its position between runs. */
export interface MoveCheckpoint {
  load(): Promise<MoveState | null>;
  save(state: MoveState): Promise<void>;
  readonly description: string;
}

const checkpointFileSchema = z.record(z.string(), progressSchema);

/**
 * A JSON file holding one position per move (target and scope: moving project 1 and later
 * all projects, or to another ClickHouse, are separate moves). Written to a temporary file
 * and renamed, so a run killed while saving leaves the previous position intact.
 */
export function fileCheckpoint(file: string, moveKey: string): MoveCheckpoint {
  const read = (): Record<string, MoveState> => {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw error;
    }
    const parsed = checkpointFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new AppError("invalid_input", `The checkpoint file ${file} is not one this command wrote; move it away to start over.`);
    return parsed.data;
  };
  return {
    description: file,
    async load() {
      return read()[moveKey] ?? null;
    },
    async save(state) {
      const all = { ...read(), [moveKey]: state };
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, `${JSON.stringify(all, null, 2)}\n`);
      fs.renameSync(temporary, file);
    },
  };
}

export interface MoveProgress {
  /** Moved so far (all runs). */
  moved: number;
  /** Events the move covers: moved before plus what is left now. */
  total: number;
}

export interface MoveOptions {
  /** One project; all when absent. */
  projectId?: number;
  batchSize?: number;
  checkpoint: MoveCheckpoint;
  onProgress?: (progress: MoveProgress) => void;
  /** Called after each batch was saved; throwing stops the move there (tests interrupt a move so). */
  afterBatch?: (state: MoveState) => void;
  /** Called after ClickHouse took a batch, before its position is saved; tests stop a move there as a kill would. */
  afterInsert?: (state: MoveState) => void;
}

export interface MoveResult extends MoveState {
  /** Events the move covers (moved in earlier runs plus this one). */
  total: number;
  /** Moved by this run. */
  movedNow: number;
  /** Whether this run went on from an earlier run's position. */
  resumed: boolean;
}

interface SourceRow {
  uuid: string;
  project_id: number;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown> | string;
  timestamp: Date;
  person_id: string | null;
  elements_chain: string;
  historical_migration: boolean;
}

/** Events of `projectIds` after `position` (all of a later project, those after the position in its project). */
async function remainingCount(sql: SqlExecutor, projectIds: number[], position: MovePosition | null): Promise<number> {
  let count = 0;
  for (const projectId of projectIds) {
    if (position && projectId < position.projectId) continue;
    const after = position && projectId === position.projectId ? position : null;
    const rows = await sql.query<{ n: number }>(
      after
        ? `SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND (timestamp, uuid) > ($2::timestamptz, $3::uuid)`
        : `SELECT count(*)::int AS n FROM events WHERE project_id = $1`,
      after ? [projectId, after.timestamp, after.uuid] : [projectId],
    );
    count += rows[0]!.n;
  }
  return count;
}

/** One batch of a project's events after `after`, oldest first: `limit` of them, or all up to `through`. */
function readBatch(sql: SqlExecutor, projectId: number, after: MovePosition | null, range: { limit: number } | { through: MovePosition }): Promise<SourceRow[]> {
  const params: unknown[] = [projectId];
  const where = [`project_id = $1`];
  if (after) where.push(`(timestamp, uuid) > ($${params.push(after.timestamp)}::timestamptz, $${params.push(after.uuid)}::uuid)`);
  if ("through" in range) where.push(`(timestamp, uuid) <= ($${params.push(range.through.timestamp)}::timestamptz, $${params.push(range.through.uuid)}::uuid)`);
  const limit = "limit" in range ? `LIMIT $${params.push(range.limit)}` : "";
  return sql.query<SourceRow>(
    `SELECT uuid::text AS uuid, project_id, event, distinct_id, properties, timestamp, person_id::text AS person_id, elements_chain, historical_migration
       FROM events
      WHERE ${where.join(" AND ")}
      ORDER BY timestamp, uuid
      ${limit}`,
    params,
  );
}

/** Copies the events (of one project or all) from PostgreSQL into the ClickHouse store `target`, resuming from the checkpoint. */
export async function moveEventsToClickHouse(sql: SqlExecutor, target: EventStore, options: MoveOptions): Promise<MoveResult> {
  if (!(target instanceof ClickHouseEventStore)) {
    throw new AppError("invalid_input", "CLICKHOUSE_URL is not set: events are already in PostgreSQL. Set CLICKHOUSE_URL to the ClickHouse to move them to.");
  }
  const batchSize = options.batchSize ?? DEFAULT_MOVE_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_MOVE_BATCH_SIZE) {
    throw new AppError("invalid_input", `The batch size must be between 1 and ${MAX_MOVE_BATCH_SIZE}.`);
  }
  const projects = await sql.query<{ id: number }>(
    options.projectId === undefined ? `SELECT id FROM projects ORDER BY id` : `SELECT id FROM projects WHERE id = $1`,
    options.projectId === undefined ? [] : [options.projectId],
  );
  if (options.projectId !== undefined && projects.length === 0) throw new AppError("not_found", `There is no project ${options.projectId}.`);
  const projectIds = projects.map((project) => project.id);

  const saved = await options.checkpoint.load();
  const state: MoveState = saved ?? { position: null, moved: 0, inserted: 0, pending: null };
  const movedBefore = state.moved;
  const total = movedBefore + (await remainingCount(sql, projectIds, state.position));
  options.onProgress?.({ moved: state.moved, total });

  for (const projectId of projectIds) {
    if (state.position && projectId < state.position.projectId) continue;
    for (;;) {
      const after = state.position && state.position.projectId === projectId ? state.position : null;
      // A batch a killed run had recorded as pending: that very range again, counted as recorded.
      const replay = state.pending && state.pending.through.projectId === projectId ? state.pending : null;
      const rows = await readBatch(sql, projectId, after, replay ? { through: replay.through } : { limit: batchSize });
      if (rows.length === 0 && !replay) break;
      const batch: StoredEventInput[] = rows.map((row) => ({
        uuid: row.uuid,
        projectId: row.project_id,
        event: row.event,
        distinctId: row.distinct_id,
        properties: typeof row.properties === "string" ? (JSON.parse(row.properties) as Record<string, unknown>) : row.properties,
        timestamp: row.timestamp,
        personId: row.person_id,
        elementsChain: row.elements_chain,
        historicalMigration: row.historical_migration,
      }));
      const last = rows.at(-1);
      const through = replay?.through ?? { projectId, timestamp: last!.timestamp.toISOString(), uuid: last!.uuid };
      const written = await target.insert(batch, {
        beforeWrite: async (fresh) => {
          if (replay) return;
          state.pending = { through, fresh };
          await options.checkpoint.save(state);
        },
      });
      options.afterInsert?.(state);
      state.inserted += replay ? replay.fresh : written;
      state.moved += rows.length;
      state.position = through;
      state.pending = null;
      await options.checkpoint.save(state);
      options.onProgress?.({ moved: state.moved, total });
      options.afterBatch?.(state);
      if (!replay && rows.length < batchSize) break;
    }
  }
  return { ...state, total, movedNow: state.moved - movedBefore, resumed: saved !== null };
}
