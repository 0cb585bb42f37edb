/**
 * Planner statistics kept current. PostgreSQL plans every read from the statistics ANALYZE
 * gathers; PGlite has no autovacuum to gather them, and a table never analyzed is planned as
 * a few rows, so a breakdown of 8,000 page views by session nested its loops for 30 s where
 * it takes a fraction of a second with statistics. So the database is analyzed:
 * - after migrations (migrate.ts) and after bulk loads (`analyze(tables)` by whoever loaded);
 * - when a table has changed by more than a tenth of its rows (and at least `minRows`) since
 *   it was last analyzed, as autovacuum would: the events this process writes are counted
 *   here as they are written (`wrote`), so a big /batch is followed by an ANALYZE within
 *   seconds; every other table is read from the server's own counts
 *   (pg_stat_user_tables.n_mod_since_analyze) every `intervalMs`;
 * - a table's own `autovacuum_analyze_threshold` (which autovacuum honours too) replaces
 *   `minRows`: the queues set it out of reach (their rows live seconds, and no plan of theirs
 *   depends on statistics).
 * The schedule spaces a table's ANALYZEs by `spacing` times what its last one took: a table
 * growing fast from small (a fresh server taking a /batch/ load) was due again as soon as it
 * was done, and was analyzed back to back, 0.4–0.65 s every 1.5 s on PostgreSQL, a core's
 * third taken from ingestion. Stale statistics cost little meanwhile: the planner scales a
 * table's rows by its current size, not by the count ANALYZE saw. `check()` and
 * `analyze()` (warm-up, bulk loads, tests) run whatever is due now.
 * On the embedded database an ANALYZE holds the one connection, which a worker may hold for
 * ~50 ms at a time (issue 31): there it samples a tenth of PostgreSQL's default (`sampleTarget`
 * 10: 3,000 rows instead of 30,000), 15–31 ms instead of 142–178 ms over 190,000 events
 * (worker-holds.int.test.ts), with the same row count and the ten most common values of each
 * column, which is what plans are made from.
 * One ANALYZE at a time, in the background; a failure is logged and retried at the next turn.
 */
import type { SqlExecutor } from "./driver";

export interface StatisticsOptions {
  /** Changed rows below which a table is never re-analyzed (autovacuum's threshold is 50). */
  minRows?: number;
  /** Changed rows, as a fraction of the rows at the last ANALYZE, that make it due. */
  fraction?: number;
  /** How often the server's counts are read for the other tables; 0: never (tests). */
  intervalMs?: number;
  /** How long after a table became due its ANALYZE runs (writes of one burst go together). */
  delayMs?: number;
  /** The schedule's next ANALYZE of a table waits this many times its last one's duration (20: at most ~5 % of a core per table). */
  spacing?: number;
  /** `default_statistics_target` for these ANALYZEs (rows sampled: 300 times it); null: the server's (PostgreSQL's default is 100). */
  sampleTarget?: number | null;
}

const DEFAULTS: Required<StatisticsOptions> = { minRows: 1_000, fraction: 0.1, intervalMs: 60_000, delayMs: 1_000, spacing: 20, sampleTarget: null };

/** The table's own analyze threshold (a storage parameter), if it has one. */
function ownThreshold(options: readonly string[] | null): number | null {
  const setting = options?.find((option) => option.startsWith("autovacuum_analyze_threshold="));
  return setting ? Number(setting.slice("autovacuum_analyze_threshold=".length)) : null;
}

/** An identifier for ANALYZE: a table name as pg_stat_user_tables gives it, quoted. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

export class Statistics {
  private readonly options: Required<StatisticsOptions>;
  /** Rows this process wrote per table since its last ANALYZE here. */
  private readonly written = new Map<string, number>();
  /** Rows per table at its last ANALYZE here (pg_class.reltuples). */
  private readonly rowsAtAnalyze = new Map<string, number>();
  /** When the schedule may next analyze each table (ms since the epoch), by the spacing. */
  private readonly notBefore = new Map<string, number>();
  private readonly timer: NodeJS.Timeout | null;
  private soonTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  /** ANALYZE statements run, for tests and logs. */
  analyzed = 0;

  constructor(
    private readonly sql: SqlExecutor,
    options: StatisticsOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.timer = this.options.intervalMs > 0 ? setInterval(() => void this.scheduledCheck(), this.options.intervalMs).unref() : null;
  }

  /** `rows` rows of `table` were written (inserted, updated or deleted) by this process. */
  wrote(table: string, rows: number): void {
    if (rows <= 0 || this.closed) return;
    const total = (this.written.get(table) ?? 0) + rows;
    this.written.set(table, total);
    const known = this.rowsAtAnalyze.get(table);
    // Unknown size: the check reads it (and analyzes only if due).
    if (total >= Math.max(this.options.minRows, this.options.fraction * (known ?? 0))) this.soon();
  }

  private soon(delayMs = this.options.delayMs): void {
    if (this.soonTimer || this.closed) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = null;
      void this.scheduledCheck();
    }, delayMs).unref();
  }

  /** Analyzes each table that is due (this process's counts, then the server's), now; resolves when done. */
  check(): Promise<void> {
    return this.checkDue(false);
  }

  /** The schedule's check: a due table analyzed too recently for the spacing is left for a later turn. */
  private scheduledCheck(): Promise<void> {
    return this.checkDue(true);
  }

  private checkDue(spaced: boolean): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return;
      try {
        // A table with pages that was never analyzed (a database from before this schedule,
        // its counts lost with a crash) is due whatever its counts say.
        const rows = await this.sql.query<{ table: string; changed: string; tuples: string; never: boolean; options: string[] | null }>(
          `SELECT s.relname AS table, s.n_mod_since_analyze AS changed, greatest(c.reltuples, 0) AS tuples, c.reloptions AS options,
                  (c.relpages > 0 AND s.last_analyze IS NULL AND s.last_autoanalyze IS NULL) AS never
             FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE s.schemaname = current_schema()`,
        );
        const due: string[] = [];
        for (const row of rows) {
          const tuples = Number(row.tuples);
          const changed = Math.max(Number(row.changed), this.written.get(row.table) ?? 0);
          const own = ownThreshold(row.options);
          if ((row.never && own === null) || changed >= Math.max(own ?? this.options.minRows, this.options.fraction * tuples)) due.push(row.table);
          else this.rowsAtAnalyze.set(row.table, tuples);
        }
        const now = Date.now();
        const waiting = spaced ? due.filter((table) => (this.notBefore.get(table) ?? 0) > now) : [];
        if (waiting.length > 0) this.soon(Math.min(...waiting.map((table) => this.notBefore.get(table)!)) - now);
        const ready = due.filter((table) => !waiting.includes(table));
        if (ready.length > 0) await this.analyzeTables(ready);
      } catch (error) {
        if (!this.closed) console.error("burrow: updating planner statistics failed (retried later)", error);
      }
    });
  }

  /** Analyzes `tables` now (every table when none are named): after a bulk load. */
  analyze(tables?: readonly string[]): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return;
      if (tables) await this.analyzeTables(tables);
      else {
        await this.sql.exec(this.analyzeStatement(""));
        this.analyzed++;
        this.written.clear();
      }
    });
  }

  /** One script (one implicit transaction, so SET LOCAL holds for its ANALYZE); `table` empty: every table. */
  private analyzeStatement(table: string): string {
    const analyze = table ? `ANALYZE ${table}` : "ANALYZE";
    const target = this.options.sampleTarget;
    return target === null ? analyze : `SET LOCAL default_statistics_target = ${Math.trunc(target)}; ${analyze}`;
  }

  /** Runs `work` after what is queued; a failure is the caller's, not the queue's. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    const done = this.running.then(work);
    this.running = done.catch(() => {});
    return done;
  }

  private async analyzeTables(tables: readonly string[]): Promise<void> {
    for (const table of tables) {
      if (this.closed) return;
      const started = performance.now();
      await this.sql.exec(this.analyzeStatement(quoted(table)));
      this.notBefore.set(table, Date.now() + this.options.spacing * (performance.now() - started));
      this.analyzed++;
      this.written.delete(table);
      const [row] = await this.sql.query<{ tuples: string }>(`SELECT greatest(reltuples, 0) AS tuples FROM pg_class WHERE oid = to_regclass($1)`, [quoted(table)]);
      if (row) this.rowsAtAnalyze.set(table, Number(row.tuples));
    }
  }

  /** Stops the schedule; an ANALYZE under way finishes first. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    await this.running;
  }
}
