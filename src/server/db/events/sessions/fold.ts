/**
 * Merging the session deltas inserts write into the sessions table (foldSessionDeltas), off the
 * acknowledgement path: soon after inserts (in the background, a fraction of a second later,
 * so that many inserts' deltas go in one statement), and at once before anything reads
 * sessions, so that a read sees every event acknowledged before it. Deltas are durable (written
 * with their events): what a crash leaves is merged by the next insert or read, on any node.
 */
import { ChunkSizer, yieldToRequests } from "@/server/db/chunks";
import type { SqlDriver, SqlExecutor, WorkerSql } from "@/server/db/driver";
import { foldSessionDeltas } from "./postgres";

/** Deltas per statement on a PostgreSQL server; the embedded database's follow what they take (ChunkSizer, up to this). */
const FOLD_BATCH = 2_000;
/** A read waits for at most this many deltas (50 statements on a server): deltas written while it waits are for the next one. */
const MAX_DELTAS_PER_READ = 50 * FOLD_BATCH;
const FOLD_DELAY_MS = 200;

export class SessionFolder {
  private timer: NodeJS.Timeout | null = null;
  // One merge at a time, in the order asked: a read waits for one that starts after it asked.
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  /** The background merges' handle: the workers' own connections on a server, short turns of the embedded database's one. */
  private readonly worker: WorkerSql;
  private readonly sizer: ChunkSizer;

  constructor(
    private readonly sql: SqlDriver,
    private readonly delayMs = FOLD_DELAY_MS,
  ) {
    this.worker = sql.worker.as("sessions");
    this.sizer = this.worker.embedded ? new ChunkSizer(200, 20, FOLD_BATCH) : new ChunkSizer(FOLD_BATCH, FOLD_BATCH, FOLD_BATCH);
  }

  /** After an insert: merge in the background, soon. */
  soon(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.merge(this.worker).catch((error: unknown) => console.error("burrow: merging session deltas failed (the next insert or read retries)", error));
    }, this.delayMs);
    this.timer.unref();
  }

  /**
   * Before a read of sessions: every delta written so far, merged on the reader's connection
   * (an analytical run's, or a background pass's, never one requests wait for in their place).
   */
  now(sql: SqlExecutor = this.sql): Promise<void> {
    return this.merge(sql);
  }

  /** Merges what is there, in statements of a few milliseconds each (on the embedded database, letting requests in between). */
  private merge(sql: SqlExecutor): Promise<void> {
    const run = this.queue.then(async () => {
      for (let total = 0; total < MAX_DELTAS_PER_READ; ) {
        const size = this.sizer.size;
        const start = performance.now();
        const [merged] = await sql.query<{ n: number }>(foldSessionDeltas(), [size], { prepare: "burrow_fold_session_deltas" });
        this.sizer.took(sql === this.worker ? this.worker.lastHoldMs : performance.now() - start, merged!.n);
        if (merged!.n < size) return;
        total += merged!.n;
        if (this.worker.embedded) await yieldToRequests();
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** Stops the background merges (what is left stays for the next start). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.queue;
  }
}
