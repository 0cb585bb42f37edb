import type { PGlite, Transaction } from "@electric-sql/pglite";
import type pg from "pg";
import { noteHold } from "./holds";

export interface QueryOptions {
  /**
   * `prepare` names a statement the hot paths run all the time: PostgreSQL then parses and
   * plans it once per connection instead of on every call.
   */
  prepare?: string;
  /** Rows as arrays of the columns in order instead of objects: reads of hundreds of thousands of rows build no keyed objects. */
  rowMode?: "array";
}

/** Runs SQL on the connection (or transaction) it was given. */
export interface SqlExecutor {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], options?: QueryOptions): Promise<Row[]>;
  /** Runs a script of several statements (no parameters). */
  exec(script: string): Promise<void>;
}

/**
 * SQL for background work (cohort computations, person deletions, definitions flushes, the
 * sessions merge): on a PostgreSQL server its own small pool, so that a worker never takes a
 * connection ingestion or flags wait for; on the embedded database the one connection, each
 * checkout (a statement, or a transaction) timed and reported to holds.ts under its caller.
 * Workers keep each checkout short (~20 ms, at most ~50 ms) and yield between them.
 */
export interface WorkerSql extends SqlExecutor {
  readonly embedded: boolean;
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** The same handle, its holds recorded under `caller` (a handle of its own: its lastHoldMs is its caller's). */
  as(caller: string): WorkerSql;
  /** How long this handle's last checkout held the connection (ms; 0 before the first): what a chunk sizer steers by. */
  readonly lastHoldMs: number;
}

/**
 * Plain SQL next to Prisma, on the same connections Prisma's adapter uses: for migrations,
 * bulk writes and queries Prisma cannot express. Nothing outside src/server/db knows
 * whether it is PGlite or PostgreSQL underneath.
 */
export interface SqlDriver extends SqlExecutor {
  /**
   * The embedded database: one connection, statements on this process's own thread, and no
   * other process writing (caches of this process may trust their own writes).
   */
  readonly embedded: boolean;
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** SQL for background work (WorkerSql). */
  readonly worker: WorkerSql;
  /**
   * Opens every connection requests may use, ahead of them (the server's warm-up): a burst's
   * first requests otherwise each waited for a connection of its own to open.
   */
  openConnections(): Promise<void>;
  /**
   * Work that must reach the database before it closes (writes buffered in memory): `close()`
   * awaits each hook, in the order given, while the connection still answers.
   */
  beforeClose(hook: () => Promise<void>): void;
  /** Runs the beforeClose hooks, then closes the connection; later calls do nothing more. */
  close(): Promise<void>;
}

/** A driver's close(): its hooks first (a failing one does not keep the connection open), once. */
function closing(closeConnection: () => Promise<void>): Pick<SqlDriver, "beforeClose" | "close"> {
  const hooks: (() => Promise<void>)[] = [];
  let closed: Promise<void> | null = null;
  return {
    beforeClose(hook) {
      hooks.push(hook);
    },
    close() {
      closed ??= (async () => {
        try {
          for (const hook of hooks) await hook();
        } finally {
          await closeConnection();
        }
      })();
      return closed;
    },
  };
}

/** Runs SQL on a node-postgres pool or client. */
function pgExecutor(client: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    async query(text, params, options) {
      if (options?.rowMode) return (await client.query({ name: options.prepare, text, values: params, rowMode: options.rowMode })).rows;
      if (options?.prepare) return (await client.query({ name: options.prepare, text, values: params })).rows;
      return (await client.query(text, params)).rows;
    },
    async exec(script) {
      await client.query(script);
    },
  };
}

async function pgTransaction<T>(client: pg.PoolClient, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await fn(pgExecutor(client));
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** A worker handle over `pool`: every statement or transaction one checkout, timed from connect to release. */
function pgWorkerSql(pool: pg.Pool, embedded: boolean, caller = "worker"): WorkerSql {
  const held = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    const start = performance.now();
    try {
      return await work(client);
    } finally {
      client.release();
      handle.lastHoldMs = performance.now() - start;
      noteHold(caller, handle.lastHoldMs);
    }
  };
  const handle = {
    lastHoldMs: 0,
    embedded,
    query: (text, params, options) => held((client) => pgExecutor(client).query(text, params, options)),
    exec: (script) => held((client) => pgExecutor(client).exec(script)),
    transaction: (fn) => held((client) => pgTransaction(client, fn)),
    as: (tag: string) => pgWorkerSql(pool, embedded, tag),
  } satisfies WorkerSql;
  return handle;
}

/**
 * A node-postgres pool: a PostgreSQL server's, or the embedded database's one connection to
 * its thread (pglite-thread.ts: `embedded`, and `end` closes the thread after the pool).
 * `workerPool`: the PostgreSQL server's pool for background work (ended after `pool`); without
 * one, workers share `pool` (the embedded database's one connection).
 */
export function pgPoolDriver(pool: pg.Pool, options: { embedded?: boolean; end?: () => Promise<void>; workerPool?: pg.Pool } = {}): SqlDriver {
  const embedded = options.embedded ?? false;
  const end = options.end ?? (() => pool.end());
  const workerPool = options.workerPool;
  return {
    ...pgExecutor(pool),
    embedded,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        return await pgTransaction(client, fn);
      } finally {
        client.release();
      }
    },
    worker: pgWorkerSql(workerPool ?? pool, embedded),
    async openConnections() {
      const opened = await Promise.allSettled(Array.from({ length: pool.options.max }, () => pool.connect()));
      for (const result of opened) if (result.status === "fulfilled") result.value.release();
      const failed = opened.find((result) => result.status === "rejected");
      if (failed) throw failed.reason;
    },
    ...closing(async () => {
      try {
        await end();
      } finally {
        await workerPool?.end();
      }
    }),
  };
}

/** PGlite in this thread: for work that has the database to itself (the test templates' dumps). */
export function pgliteDriver(db: PGlite): SqlDriver {
  const over = (client: PGlite | Transaction): SqlExecutor => ({
    async query<Row>(text: string, params?: unknown[], options?: QueryOptions) {
      return (await client.query<Row>(text, params, options?.rowMode ? { rowMode: options.rowMode } : undefined)).rows;
    },
    async exec(script: string) {
      await client.exec(script);
    },
  });
  const transaction = <T>(fn: (tx: SqlExecutor) => Promise<T>) => db.transaction((tx) => fn(over(tx)));
  const worker: WorkerSql = { ...over(db), embedded: true, transaction, lastHoldMs: 0, as: () => worker };
  return {
    ...over(db),
    embedded: true,
    transaction,
    worker,
    // One connection, in this thread: open from the start.
    async openConnections() {},
    ...closing(() => db.close()),
  };
}
