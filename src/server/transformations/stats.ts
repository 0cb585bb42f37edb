/**
 * Run statistics of transformation configs: events seen, dropped and errors per config per
 * hour, counted in memory on the ingestion path and written to `plugin_config_metrics` in
 * one statement per flush (at most about once a second), never once per event. A flush also
 * records a config's latest error on the config (`error`) and, when it is a new one, in its
 * activity log.
 */
import type { SqlExecutor } from "@/server/db/driver";

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
      await this.sql.query(
        `INSERT INTO plugin_config_metrics (plugin_config_id, hour, events_seen, events_dropped, errors, last_error)
         SELECT m.config_id, m.hour, m.seen, m.dropped, m.errors, m.last_error
           FROM unnest($1::int[], $2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::text[])
                  AS m(config_id, hour, seen, dropped, errors, last_error)
           JOIN plugin_configs c ON c.id = m.config_id
         ON CONFLICT (plugin_config_id, hour) DO UPDATE SET
           events_seen = plugin_config_metrics.events_seen + EXCLUDED.events_seen,
           events_dropped = plugin_config_metrics.events_dropped + EXCLUDED.events_dropped,
           errors = plugin_config_metrics.errors + EXCLUDED.errors,
           last_error = COALESCE(EXCLUDED.last_error, plugin_config_metrics.last_error)`,
        [
          taken.map((e) => e.configId),
          taken.map((e) => new Date(e.hour).toISOString()),
          taken.map((e) => e.counter.seen),
          taken.map((e) => e.counter.dropped),
          taken.map((e) => e.counter.errors),
          taken.map((e) => e.counter.lastError),
        ],
      );
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
    if (failing.size > 0) await recordErrors(this.sql, failing);
  }
}

/** The config's `error` becomes the latest message; a message it did not already show is logged as activity. */
async function recordErrors(sql: SqlExecutor, failing: Map<number, { message: string; errors: number }>): Promise<void> {
  const ids = [...failing.keys()];
  await sql.query(
    `WITH changed AS (
       UPDATE plugin_configs c SET error = e.message
         FROM unnest($1::int[], $2::text[], $3::int[]) AS e(id, message, errors)
        WHERE c.id = e.id AND c.error IS DISTINCT FROM e.message
       RETURNING c.id, c.project_id, c.name, e.message, e.errors
     )
     INSERT INTO activity_logs (id, project_id, scope, item_id, activity, detail)
     SELECT gen_random_uuid(), project_id, 'PluginConfig', id::text, 'error',
            jsonb_build_object('name', name, 'changes', '[]'::jsonb, 'message', message, 'errors', errors)
       FROM changed`,
    [ids, ids.map((id) => failing.get(id)!.message), ids.map((id) => failing.get(id)!.errors)],
  );
}
