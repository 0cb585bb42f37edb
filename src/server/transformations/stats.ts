/**
 * Run statistics of transformation configs: events seen, dropped and errors per config per
 * hour, counted in memory on the ingestion path and written to `plugin_config_metrics` in
 * one statement per flush (at most about once a second), never once per event. A flush also
 * records a config's latest error on the config (`error`) and, when it is a new one, in its
 * activity log.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { addRunCounts, recordRunErrors } from "./store";

const HOUR_MS = 3_600_000;
const FLUSH_DELAY_MS = 1_000;

export interface RunCounter {
  seen: number;
  dropped: number;
  errors: number;
  lastError: string | null;
}

interface PendingCount {
  configId: number;
  hour: number;
  counter: RunCounter;
}

export class RunStats {
  private pending = new Map<string, PendingCount>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly sql: SqlExecutor) {}

  /**
   * The counter of a config for the hour holding `at` (ms); created on first use. Count into
   * it before the next await: a flush takes the counters it finds, and keeps no link to them.
   */
  counter(configId: number, at: number): RunCounter {
    const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
    const key = `${configId}:${hour}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { configId, hour, counter: { seen: 0, dropped: 0, errors: 0, lastError: null } };
      this.pending.set(key, entry);
      this.schedule();
    }
    return entry.counter;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch((error: unknown) => console.error("burrow: writing transformation run stats failed", error));
    }, FLUSH_DELAY_MS);
    this.timer.unref?.();
  }

  /** Writes what was counted so far; flushes run one after another. */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.write());
    this.flushing = run.catch(() => {});
    return run;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const taken = [...this.pending.values()];
    this.pending = new Map();
    try {
      await addRunCounts(this.sql, taken);
    } catch (error) {
      // Keep the counts for the next flush rather than losing them.
      for (const entry of taken) {
        const again = this.counter(entry.configId, entry.hour);
        again.seen += entry.counter.seen;
        again.dropped += entry.counter.dropped;
        again.errors += entry.counter.errors;
        again.lastError ??= entry.counter.lastError;
      }
      throw error;
    }
    const failing = new Map<number, { message: string; errors: number }>();
    for (const entry of taken) {
      if (entry.counter.errors === 0 || entry.counter.lastError === null) continue;
      const seen = failing.get(entry.configId);
      failing.set(entry.configId, { message: entry.counter.lastError, errors: (seen?.errors ?? 0) + entry.counter.errors });
    }
    if (failing.size > 0) await recordRunErrors(this.sql, failing);
  }
}
