import type { EventStore, StoredEventInput } from "@/server/db/events";

/**
 * A second insert starts while one is running only for this many waiting rows. Small inserts
 * side by side cost the database a statement and a commit each; held back, they join one
 * larger insert, which is what lets single-event capture keep up. Bulk loads (`/batch/`)
 * still use every connection the store allows.
 */
const PARALLEL_INSERT_MIN_ROWS = 500;

interface Waiting {
  events: StoredEventInput[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: events of all requests that arrive while the previous write is running
 * (or within one event-loop turn) go to the event store as one multi-row insert, and each
 * request's promise settles only once the store accepted its rows, so nothing is
 * acknowledged before it is durable.
 */
export class EventWriter {
  private waiting: Waiting[] = [];
  private waitingRows = 0;
  private inFlight = 0;
  private scheduled = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly store: EventStore,
    /** Concurrent inserts: the store's own (1 for PGlite's one connection, more for a pool). */
    private readonly maxInFlight = store.maxConcurrentInserts,
  ) {}

  /** Writes handed over and not yet committed or failed. */
  private readonly unsettled = new Set<Promise<void>>();

  write(events: StoredEventInput[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => {
      this.waiting.push({ events, resolve, reject });
      this.waitingRows += events.length;
      this.schedule();
    });
    const tracked: Promise<void> = done.then(
      () => void this.unsettled.delete(tracked),
      () => void this.unsettled.delete(tracked),
    );
    this.unsettled.add(tracked);
    return done;
  }

  /** Resolves once every write handed over before this call has settled (later ones are not waited for). */
  settled(): Promise<void> {
    return Promise.all([...this.unsettled]).then(() => undefined);
  }

  private mayStartInsert(): boolean {
    if (this.waiting.length === 0 || this.inFlight >= this.maxInFlight) return false;
    return this.inFlight === 0 || this.waitingRows >= PARALLEL_INSERT_MIN_ROWS;
  }

  private schedule() {
    if (this.scheduled || !this.mayStartInsert()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush() {
    if (!this.mayStartInsert()) return;
    const batch = this.waiting;
    this.waiting = [];
    this.waitingRows = 0;
    this.inFlight++;
    try {
      await this.store.insert(batch.flatMap((w) => w.events));
      for (const w of batch) w.resolve();
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else {
        // One request's bad rows must not fail the others that shared the insert: retry
        // each request on its own, so only the culprit gets the error.
        for (const w of batch) {
          try {
            await this.store.insert(w.events);
            w.resolve();
          } catch (own) {
            w.reject(own);
          }
        }
      }
    } finally {
      this.inFlight--;
      if (this.waiting.length > 0) this.schedule();
      else if (this.inFlight === 0) for (const done of this.idle.splice(0)) done();
    }
  }

  /** Resolves once everything handed to `write` so far has been written (or failed). */
  drain(): Promise<void> {
    if (this.inFlight === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
