import type { SqlExecutor } from "@/server/db/driver";
import { insertEvents, type StoredEventInput } from "@/server/events/store";

interface Waiting {
  events: StoredEventInput[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: events of all requests that arrive while the previous write is running
 * (or within one event-loop turn) go to the database as one multi-row insert, and each
 * request's promise settles only once its rows are committed, so nothing is acknowledged
 * before it is durable.
 */
export class EventWriter {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly sql: SqlExecutor,
    /** Concurrent inserts: 1 for PGlite (one connection), more for a PostgreSQL pool. */
    private readonly maxInFlight = 1,
  ) {}

  write(events: StoredEventInput[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ events, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush() {
    if (this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.inFlight++;
    try {
      await insertEvents(this.sql, batch.flatMap((w) => w.events));
      for (const w of batch) w.resolve();
    } catch (error) {
      for (const w of batch) w.reject(error);
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
