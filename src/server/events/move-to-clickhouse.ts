/**
 * Moving an installation's events from PostgreSQL's `events` table to the ClickHouse event
 * store (the `move-events-to-clickhouse` admin command). Project by project, oldest first,
 * in batches read by keyset on (timestamp, uuid) — the (project_id, timestamp) index — and
 * written with the store's own insert (one ClickHouse insert per batch; uuids the project
 * already has there are skipped, so nothing is stored twice). After each batch ClickHouse
 * accepted, the position is saved: a run that stops (killed, a lost connection) is started
 * again and goes on from the last saved batch. PostgreSQL's rows are left as they are.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { SqlExecutor } from "@/server/db/driver";
import { AppError } from "@/server/errors";
import type { EventStore, StoredEventInput } from "./store";

export const DEFAULT_MOVE_BATCH_SIZE = 10_000;
export const MAX_MOVE_BATCH_SIZE = 100_000;

/** The last event moved: the next batch starts after it. */
const positionSchema = z.object({ projectId: z.number().int(), timestamp: z.iso.datetime(), uuid: z.uuid() });
export type MovePosition = z.infer<typeof positionSchema>;

const progressSchema = z.object({
  position: positionSchema.nullable(),
  /** Events read from PostgreSQL and handed to ClickHouse so far, over all runs. */
  moved: z.number().int().nonnegative(),
  /** Of those, how many ClickHouse did not have yet. */
  inserted: z.number().int().nonnegative(),
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

/** Copies the events (of one project or all) from PostgreSQL into the ClickHouse store `target`, resuming from the checkpoint. */
export async function moveEventsToClickHouse(sql: SqlExecutor, target: EventStore, options: MoveOptions): Promise<MoveResult> {
  if (target.kind !== "clickhouse") {
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
  const state: MoveState = saved ?? { position: null, moved: 0, inserted: 0 };
  const movedBefore = state.moved;
  const total = movedBefore + (await remainingCount(sql, projectIds, state.position));
  options.onProgress?.({ moved: state.moved, total });

  for (const projectId of projectIds) {
    if (state.position && projectId < state.position.projectId) continue;
    for (;;) {
      const after = state.position && state.position.projectId === projectId ? state.position : null;
      const rows = await sql.query<SourceRow>(
        `SELECT uuid::text AS uuid, project_id, event, distinct_id, properties, timestamp, person_id::text AS person_id, elements_chain, historical_migration
           FROM events
          WHERE project_id = $1 ${after ? "AND (timestamp, uuid) > ($3::timestamptz, $4::uuid)" : ""}
          ORDER BY timestamp, uuid
          LIMIT $2`,
        after ? [projectId, batchSize, after.timestamp, after.uuid] : [projectId, batchSize],
      );
      if (rows.length === 0) break;
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
      state.inserted += await target.insert(batch);
      state.moved += rows.length;
      const last = rows[rows.length - 1]!;
      state.position = { projectId, timestamp: last.timestamp.toISOString(), uuid: last.uuid };
      await options.checkpoint.save(state);
      options.onProgress?.({ moved: state.moved, total });
      options.afterBatch?.(state);
      if (rows.length < batchSize) break;
    }
  }
  return { ...state, total, movedNow: state.moved - movedBefore, resumed: saved !== null };
}
