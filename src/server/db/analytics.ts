/**
 * Analytical reads (insights, web analytics, HogQL) apart from everything else, so that
 * however many of them run, ingestion, flags and `/_ready` keep their connections (issue 32):
 *
 * - at most `limit` run at once; the others wait their turn, no longer than their budget;
 * - on PostgreSQL each run has a connection of its own from a pool of `limit` connections,
 *   its statements cut by `statement_timeout` at the run's budget, and cancelled
 *   (pg_cancel_backend) when its caller's AbortSignal fires (the HTTP client went away);
 * - on the embedded database, which has one connection and cannot interrupt a statement
 *   (PGlite has no timers inside a statement, so statement_timeout never fires), the limit
 *   is 1: one analytical run at a time, between whose statements ingestion's and flags'
 *   take their turns on the connection; a run past its budget answers its caller with the
 *   timeout error at the budget, and what it left running finishes before the next starts.
 *
 * Either way a run over budget is an AppError `throttled` (PostHog answers a query that ran
 * out of time 429), never an unhandled 500.
 */
import type pg from "pg";
import { AppError } from "@/server/errors";
import type { Analytics, AnalyticsRunOptions, Database } from "./database";

export type { Analytics, AnalyticsRunOptions };
import type { SqlDriver, SqlExecutor, WorkerSql } from "./driver";

/** `db` reading through `sql`: its event store re-pointed at the run's connection too. */
function runOn(db: Database, sql: SqlDriver): Database {
  return { ...db, sql, events: db.events.readingWith(sql) };
}

/** `BURROW_QUERY_TIMEOUT_MS`, else 30 s (PostHog's own query timeout is about as long). */
export function analyticsBudgetFromEnv(): number {
  const configured = Number(process.env.BURROW_QUERY_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : 30_000;
}

export function timeoutError(budgetMs: number): AppError {
  const seconds = budgetMs >= 1_000 ? `${Math.round(budgetMs / 100) / 10} s` : `${budgetMs} ms`;
  return new AppError(
    "throttled",
    `The query took longer than its limit of ${seconds} and was stopped. Narrow its date range, breakdown or filters and try again.`,
    null,
    { code: "query_timeout" },
  );
}

const busyError = (budgetMs: number) =>
  new AppError("throttled", `Too many queries are running; this one waited ${Math.round(budgetMs / 1000)} s for its turn. Try again shortly.`, null, { code: "query_timeout" });
const abortedError = () => new AppError("throttled", "The query was cancelled: its request was closed.", null, { code: "query_cancelled" });

/** A FIFO of `limit` slots; a waiter leaves when its signal fires or its deadline passes. */
class Slots {
  private running = 0;
  private readonly waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly limit: number) {}

  acquire(signal: AbortSignal | undefined, deadline: number, budgetMs: number): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortedError());
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (error: Error) => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      };
      const onAbort = () => leave(abortedError());
      const timer = setTimeout(() => leave(busyError(budgetMs)), Math.max(0, deadline - Date.now()));
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: leave,
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next.resolve();
    else this.running--;
  }

  rejectAll(error: Error): void {
    for (const waiter of [...this.waiting]) waiter.reject(error);
  }
}

/**
 * A driver over one checked-out client: the run's statements, in order, on its connection.
 * A kind may ask several at once (its series side by side): they wait their turn here, where
 * pg's own queue for a busy client is deprecated (pg@9 drops it).
 */
function clientDriver(client: pg.PoolClient, embedded: boolean, worker: WorkerSql): SqlDriver {
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(statement: () => Promise<T>): Promise<T> => {
    const run = turn.then(statement, statement);
    turn = run.catch(() => {});
    return run;
  };
  const executor: SqlExecutor = {
    async query(text, params, options) {
      const name = options?.prepare;
      const rowMode = options?.rowMode;
      if (rowMode) return (await inTurn(() => client.query({ name, text, values: params, rowMode }))).rows;
      if (name) return (await inTurn(() => client.query({ name, text, values: params }))).rows;
      return (await inTurn(() => client.query(text, params))).rows;
    },
    async exec(script) {
      await inTurn(() => client.query(script));
    },
  };
  return {
    ...executor,
    embedded,
    worker,
    async transaction(fn) {
      await executor.exec("BEGIN");
      try {
        const result = await fn(executor);
        await executor.exec("COMMIT");
        return result;
      } catch (error) {
        await executor.exec("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    // The run's connection is checked out already.
    async openConnections() {},
    beforeClose() {},
    async close() {},
  };
}

/** `sql`, refusing each statement once `stopped()` names why. */
function guardedDriver(sql: SqlDriver, stopped: () => AppError | null): SqlDriver {
  const check = () => {
    const reason = stopped();
    if (reason) throw reason;
  };
  const guard = (executor: SqlExecutor): SqlExecutor => ({
    async query(text, params, options) {
      check();
      return executor.query(text, params, options);
    },
    async exec(script) {
      check();
      return executor.exec(script);
    },
  });
  return {
    ...guard(sql),
    embedded: sql.embedded,
    worker: sql.worker,
    async transaction(fn) {
      check();
      return sql.transaction((tx) => fn(guard(tx)));
    },
    openConnections: () => sql.openConnections(),
    beforeClose() {},
    async close() {},
  };
}

const isCancel = (error: unknown) => (error as { code?: string } | null)?.code === "57014";

/**
 * PostgreSQL: `pool` holds the analytical connections (`limit` of them); `main` is the
 * database's own, used to cancel a run's statement. The run's Database reads through its
 * connection (`sql`, the event store's reads); Prisma stays on the main pool.
 */
export function postgresAnalytics(db: Database, pool: pg.Pool, main: SqlExecutor, limit: number, budgetMs = analyticsBudgetFromEnv()): Analytics {
  const slots = new Slots(limit);
  let closed = false;
  const over = (db: Database): Analytics => ({
    limit,
    budgetMs,
    async run(fn, options = {}) {
      const budget = options.budgetMs ?? budgetMs;
      const deadline = Date.now() + budget;
      await slots.acquire(options.signal, deadline, budget);
      let client: pg.PoolClient | undefined;
      let cancelled: "timeout" | "abort" | null = null;
      const cancel = (why: "timeout" | "abort") => {
        if (cancelled || !client) return;
        cancelled = why;
        const pid = (client as unknown as { processID?: number }).processID;
        if (pid) void main.query("SELECT pg_cancel_backend($1)", [pid]).catch(() => {});
      };
      const onAbort = () => cancel("abort");
      try {
        if (closed) throw new Error("the database is closed");
        client = await pool.connect();
        const remaining = Math.max(1, deadline - Date.now());
        // The statements' budget on the server; the timer below also cuts a run of many short ones.
        await client.query(`SET statement_timeout = ${Math.ceil(remaining)}`);
        options.signal?.addEventListener("abort", onAbort, { once: true });
        if (options.signal?.aborted) throw abortedError();
        const timer = setTimeout(() => cancel("timeout"), remaining);
        try {
          const sql = clientDriver(client, false, db.sql.worker);
          return await fn(runOn(db, sql));
        } finally {
          clearTimeout(timer);
        }
      } catch (error) {
        if (cancelled === "abort" || options.signal?.aborted) throw abortedError();
        if (cancelled === "timeout" || isCancel(error)) throw timeoutError(budget);
        throw error;
      } finally {
        options.signal?.removeEventListener("abort", onAbort);
        if (client) {
          // A connection whose statement was being cancelled may still get the cancel: not reused.
          const reusable = cancelled === null && !closed;
          if (reusable) await client.query("RESET statement_timeout").catch(() => {});
          client.release(!reusable);
        }
        slots.release();
      }
    },
    over,
    async close() {
      closed = true;
      slots.rejectAll(new Error("the database is closed"));
      await pool.end().catch(() => {});
    },
  });
  return over(db);
}

/**
 * The embedded database: one run at a time on the one connection. A run over budget answers
 * its caller then; its statements, which PGlite cannot interrupt, finish before the next run.
 */
export function embeddedAnalytics(db: Database, budgetMs = analyticsBudgetFromEnv()): Analytics {
  const slots = new Slots(1);
  const over = (db: Database): Analytics => ({
    limit: 1,
    budgetMs,
    async run(fn, options = {}) {
      const budget = options.budgetMs ?? budgetMs;
      const deadline = Date.now() + budget;
      await slots.acquire(options.signal, deadline, budget);
      // Past its budget or abandoned, the run's next statement is refused: a computation of
      // many statements stops at the next one (the one running cannot be interrupted).
      let stop: AppError | null = null;
      const sql = guardedDriver(db.sql, () => stop);
      let work: Promise<unknown>;
      try {
        work = fn(runOn(db, sql));
      } catch (error) {
        slots.release();
        throw error;
      }
      // The slot is held until the work ends, whenever its caller stops waiting.
      void work.then(
        () => slots.release(),
        () => slots.release(),
      );
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const stopped = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject((stop = timeoutError(budget))), Math.max(1, deadline - Date.now()));
        onAbort = () => reject((stop = abortedError()));
        options.signal?.addEventListener("abort", onAbort, { once: true });
      });
      stopped.catch(() => {});
      try {
        return (await Promise.race([work, stopped])) as Awaited<ReturnType<typeof fn>>;
      } finally {
        clearTimeout(timer);
        if (onAbort) options.signal?.removeEventListener("abort", onAbort);
      }
    },
    over,
    async close() {
      slots.rejectAll(new Error("the database is closed"));
    },
  });
  return over(db);
}
