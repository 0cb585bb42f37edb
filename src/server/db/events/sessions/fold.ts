/**
 * Merging the session deltas inserts write into the sessions table (foldSessionDeltas), off the
 * acknowledgement path: soon after inserts (in the background, a fraction of a second later,
 * so that many inserts' deltas go in one statement), and at once before anything reads
 * sessions, so that a read sees every event acknowledged before it. Deltas are durable (written
 * with their events): what a crash leaves is merged by the next insert or read, on any node.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { foldSessionDeltas } from "./postgres";

/** Deltas per statement: a few milliseconds of the (embedded database's one) connection. */
const FOLD_BATCH = 2_000;
/** A read waits for at most this many statements: deltas written while it waits are for the next one. */
const MAX_STATEMENTS_PER_READ = 50;
const FOLD_DELAY_MS = 200;

export class SessionFolder {
  private timer: NodeJS.Timeout | null = null;
  // One merge at a time, in the order asked: a read waits for one that starts after it asked.
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly sql: SqlExecutor,
    private readonly delayMs = FOLD_DELAY_MS,
  ) {}

  /** After an insert: merge in the background, soon. */
  soon(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.now().catch((error: unknown) => console.error("burrow: merging session deltas failed (the next insert or read retries)", error));
    }, this.delayMs);
    this.timer.unref();
  }

  /** Before a read of sessions: every delta written so far, merged. */
  now(): Promise<void> {
    const run = this.queue.then(async () => {
      for (let statement = 0; statement < MAX_STATEMENTS_PER_READ; statement++) {
        const [merged] = await this.sql.query<{ n: number }>(foldSessionDeltas(), [FOLD_BATCH], { prepare: "burrow_fold_session_deltas" });
        if (merged!.n < FOLD_BATCH) return;
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
