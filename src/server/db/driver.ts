import type { PGlite, Transaction } from "@electric-sql/pglite";
import type pg from "pg";

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

/**
 * A node-postgres pool: a PostgreSQL server's, or the embedded database's one connection to
 * its thread (pglite-thread.ts: `embedded`, and `end` closes the thread after the pool).
 */
export function pgPoolDriver(pool: pg.Pool, options: { embedded?: boolean; end?: () => Promise<void> } = {}): SqlDriver {
  const over = (client: pg.Pool | pg.PoolClient): SqlExecutor => ({
    async query(text, params, options) {
      if (options?.rowMode) return (await client.query({ name: options.prepare, text, values: params, rowMode: options.rowMode })).rows;
      if (options?.prepare) return (await client.query({ name: options.prepare, text, values: params })).rows;
      return (await client.query(text, params)).rows;
    },
    async exec(script) {
      await client.query(script);
    },
  });
  return {
    ...over(pool),
    embedded: options.embedded ?? false,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(over(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    ...closing(options.end ?? (() => pool.end())),
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
  return {
    ...over(db),
    embedded: true,
    transaction: (fn) => db.transaction((tx) => fn(over(tx))),
    ...closing(() => db.close()),
  };
}
