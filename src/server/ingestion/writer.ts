import type { EventStore, StoredEventInput } from "@/server/db/events";

interface Waiting {
  events: StoredEventInput[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the events of all requests that arrive within one event-loop turn, or while
 * every insert the store allows is running, go to the event store as one multi-row insert,
 * and each request's promise settles only once the store accepted its rows, so nothing is
 * acknowledged before it is durable.
 *
 * Inserts are pipelined: while one commits (waiting for the disk), the next turn's rows go in
 * another, up to the store's limit (one on the embedded database). Holding them back until
 * the first finished made single-event capture wait a whole commit for each group (the node
 * process sat half idle at 16 connections).
 */
export class EventWriter {
  private waiting: Waiting[] = [];
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
      this.schedule();
    });
    const tracked: Promise<void> = done.then(
      () => void this.unsettled.delete(tracked),
      () => void this.unsettled.delete(tracked),
    );
    this.unsettled.add(tracked);
    return done;
  }

  /** Time with an insert running, per window of about a quarter second: the writer's utilization. */
  private busySince = 0;
  private windowStart = performance.now();
  private busyInWindow = 0;
  private utilization = 0;

  /** Counts the time since the last look (an insert running through it, or up to its end) into the window, and closes a window that is long enough. */
  private measure(now: number): void {
    if (this.inFlight > 0) {
      this.busyInWindow += now - this.busySince;
      this.busySince = now;
    }
    const span = now - this.windowStart;
    if (span < 250) return;
    this.utilization = this.busyInWindow / span;
    this.windowStart = now;
    this.busyInWindow = 0;
  }

  /**
   * An insert was running nearly all of the last quarter second or so: the database is what
   * capture waits for. (Below saturation the writer idles between arrivals.)
   */
  get saturated(): boolean {
    this.measure(performance.now());
    return this.utilization > 0.8;
  }

  /** Resolves once every write handed over before this call has settled (later ones are not waited for). */
  settled(): Promise<void> {
    return Promise.all([...this.unsettled]).then(() => undefined);
  }

  private mayStartInsert(): boolean {
    return this.waiting.length > 0 && this.inFlight < this.maxInFlight;
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
    const now = performance.now();
    this.measure(now);
    if (this.inFlight === 0) this.busySince = now;
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
      this.measure(performance.now());
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
