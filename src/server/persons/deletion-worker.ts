/**
 * Deleting events of deleted persons: in batches, off the request path, resumable. The
 * management API (`service.ts`) queues a deletion in its transaction and kicks the worker the
 * server started.
 */
import type { Database } from "@/server/db";
import { ChunkSizer, yieldToRequests } from "@/server/db/chunks";
import { addDeletedEvents, failDeletion, finishDeletion, markDeletionAttempt, unfinishedDeletions } from "./store";

/** What another domain deletes with a person's events, by the person's distinct ids. */
export type PersonDataDeletion = (db: Database, projectId: number, distinctIds: readonly string[]) => Promise<unknown>;

// On globalThis: Next's copy of a module and the server's register into one list.
const HOOKS_KEY = Symbol.for("burrow.personDeletionHooks");
function deletionHooks(): Map<string, PersonDataDeletion> {
  const holder = globalThis as { [HOOKS_KEY]?: Map<string, PersonDataDeletion> };
  return (holder[HOOKS_KEY] ??= new Map());
}

/**
 * Registers `deletion` under `name` (once; again replaces it): every deletion of a person's
 * events runs it too, before the deletion is closed, so a crash retries it. Domains that
 * depend on persons register here instead of persons importing them.
 */
export function alsoDeleteWithPersonEvents(name: string, deletion: PersonDataDeletion): void {
  deletionHooks().set(name, deletion);
}

/**
 * Events per batch. On the embedded database every request shares the one connection: a
 * batch starts at 1,000 and follows what the last one took (ChunkSizer, ~20 ms each); a
 * PostgreSQL server's workers have connections of their own.
 */
function batchSizerFor(db: Database, batchSize: number | undefined): ChunkSizer {
  if (batchSize !== undefined) return new ChunkSizer(batchSize, batchSize, batchSize);
  if (db.events.kind === "clickhouse") return new ChunkSizer(20_000, 20_000, 20_000);
  return db.worker.embedded ? new ChunkSizer(1_000, 50, 20_000) : new ChunkSizer(10_000, 10_000, 10_000);
}

/** Deletions looked at per pass. */
const DELETIONS_PER_PASS = 100;

export interface DeletionPass {
  /** Deletions finished in this pass. */
  finished: number;
  /** Events deleted in this pass. */
  deletedEvents: number;
  /** Deletions that failed in this pass (left for the next one). */
  failed: number;
  /** Deletions with nothing left to delete but too young to close (see `settleMs`). */
  settling: number;
}

/**
 * How long after a deletion its events may still arrive: ingestion may have resolved an
 * event to the person just before the delete and write it just after (its group commit,
 * its distinct-id cache until the change feed is heard). The worker closes a deletion only
 * once it is this old, and looks again then.
 */
const DELETION_SETTLE_MS = 2_000;

/**
 * One pass over the unfinished deletions: each one's events are deleted batch by batch, its
 * count raised after every batch, and it is finished once a batch finds nothing. A crash
 * between batches loses nothing: the next pass (at the next start at the latest) goes on
 * from what is left. Two nodes on one deletion only share the work: each batch deletes and
 * counts what is still there.
 */
export async function runPersonDeletions(
  db: Database,
  options: { batchSize?: number; shouldStop?: () => boolean; settleMs?: number } = {},
): Promise<DeletionPass> {
  const sizer = batchSizerFor(db, options.batchSize);
  // The workers' handle: its own connections on a server, short turns of the embedded database's one.
  const sql = db.worker.as("person-deletions");
  const settleMs = options.settleMs ?? 0;
  const pass: DeletionPass = { finished: 0, deletedEvents: 0, failed: 0, settling: 0 };
  for (const deletion of await unfinishedDeletions(sql, DELETIONS_PER_PASS)) {
    if (options.shouldStop?.()) break;
    await markDeletionAttempt(sql, deletion.id);
    try {
      const person = { uuid: deletion.personUuid, distinctIds: deletion.distinctIds };
      for (;;) {
        if (options.shouldStop?.()) return pass;
        const size = sizer.size;
        const deleted = await db.events.deletePersonEvents(deletion.projectId, person, size, sql);
        if (deleted === 0) break;
        sizer.took(sql.lastHoldMs, deleted);
        await addDeletedEvents(sql, deletion.id, deleted);
        pass.deletedEvents += deleted;
        // Let requests in between batches.
        await yieldToRequests();
      }
      // What other domains keep of the person goes with their events (session recordings).
      for (const hook of deletionHooks().values()) await hook(db, deletion.projectId, deletion.distinctIds);
      if (Date.now() - deletion.createdAt.getTime() < settleMs) {
        pass.settling++;
        continue;
      }
      await finishDeletion(sql, deletion.id);
      pass.finished++;
    } catch (error) {
      pass.failed++;
      await failDeletion(sql, deletion.id, error instanceof Error ? error.message : String(error)).catch(() => {});
      console.error(`burrow: deleting the events of person ${deletion.personUuid} failed (will retry)`, error);
    }
  }
  return pass;
}

interface DeletionWorker {
  db: Database;
  timer: NodeJS.Timeout;
  running: Promise<void> | null;
  again: boolean;
  stopped: boolean;
}

// One worker per process, on globalThis: the server starts it, and the API (in Next's copy of this module) kicks it.
const WORKER_KEY = Symbol.for("burrow.personDeletions");
type WorkerHolder = { [WORKER_KEY]?: DeletionWorker };

/** How often the worker looks for deletions it was not told about (another node's, or failed ones). */
const DELETION_INTERVAL_MS = 30_000;

/**
 * Starts the background deletion of deleted persons' events: a pass now (which picks up any
 * left unfinished by a crash), one whenever a deletion is queued in this process, and one
 * every `intervalMs`.
 */
export function startPersonDeletions(db: Database, options: { intervalMs?: number } = {}): void {
  const holder = globalThis as WorkerHolder;
  if (holder[WORKER_KEY] && !holder[WORKER_KEY].stopped) return;
  const worker: DeletionWorker = {
    db,
    running: null,
    again: false,
    stopped: false,
    timer: setInterval(() => kickPersonDeletions(db), options.intervalMs ?? DELETION_INTERVAL_MS),
  };
  worker.timer.unref();
  holder[WORKER_KEY] = worker;
  kickPersonDeletions(db);
}

/** Stops the worker, waiting for the batch under way (graceful shutdown). */
export async function stopPersonDeletions(): Promise<void> {
  const holder = globalThis as WorkerHolder;
  const worker = holder[WORKER_KEY];
  if (!worker) return;
  worker.stopped = true;
  clearInterval(worker.timer);
  await worker.running;
  if (holder[WORKER_KEY] === worker) delete holder[WORKER_KEY];
}

/** Asks the worker for a pass now (a pass under way is followed by another). Without a started worker, nothing happens. */
export function kickPersonDeletions(db: Database): void {
  const worker = (globalThis as WorkerHolder)[WORKER_KEY];
  if (!worker || worker.stopped || worker.db !== db) return;
  if (worker.running) {
    worker.again = true;
    return;
  }
  worker.running = (async () => {
    do {
      worker.again = false;
      try {
        const pass = await runPersonDeletions(db, { shouldStop: () => worker.stopped, settleMs: DELETION_SETTLE_MS });
        if (pass.settling > 0) setTimeout(() => kickPersonDeletions(db), DELETION_SETTLE_MS).unref();
      } catch (error) {
        console.error("burrow: a person-deletion pass failed", error);
      }
    } while (worker.again && !worker.stopped);
  })().finally(() => {
    worker.running = null;
  });
}
