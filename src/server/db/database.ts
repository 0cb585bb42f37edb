/**
 * What a database is to the rest of the server (client.ts opens one) and where its
 * analytical reads run (analytics.ts implements it): types only, apart from both so that
 * neither imports the other.
 */
import type { PrismaClient } from "@/generated/prisma/client";
import type { EventStore } from "@/server/db/events";
import type { ChangeFeed } from "./changes";
import type { DbConfig } from "./config";
import type { SqlDriver, WorkerSql } from "./driver";
import type { Statistics } from "./statistics";

export interface Database {
  readonly config: DbConfig;
  readonly prisma: PrismaClient;
  /**
   * Prisma for background workers (alert checks, subscriptions): over the workers' pool on a
   * PostgreSQL server, so that a pass never takes a connection requests wait for; the same
   * client as `prisma` on the embedded database (its one connection). See onWorkerConnections.
   */
  readonly workerPrisma: PrismaClient;
  readonly sql: SqlDriver;
  /**
   * SQL for background workers (driver.ts WorkerSql, the same as `sql.worker`): their own
   * small pool on a PostgreSQL server; on the embedded database its one connection, each
   * checkout timed (holds.ts).
   */
  readonly worker: WorkerSql;
  /** Cache invalidation across the nodes that share this database. */
  readonly changes: ChangeFeed;
  /** Where events are written and read: this database's events table, or ClickHouse. */
  readonly events: EventStore;
  /** Planner statistics: ANALYZE on a schedule proportional to writes, and after bulk loads (statistics.ts). */
  readonly statistics: Statistics;
  /**
   * Where analytical reads run (insights, web analytics, HogQL): connections of their own,
   * a limit on how many at once, a budget per run and cancellation (analytics.ts).
   */
  readonly analytics: Analytics;
  close(): Promise<void>;
}

export interface AnalyticsRunOptions {
  /** The caller went away: its waiting run is dropped, its running statement cancelled. */
  signal?: AbortSignal;
  /** How long the run may take, waiting for its turn included (default: the database's budget). */
  budgetMs?: number;
}

export interface Analytics {
  /** At most this many runs at once. */
  readonly limit: number;
  /** A run's budget when it names none. */
  readonly budgetMs: number;
  /** Runs `fn` with the database as analytical reads see it (their connection, their budget). */
  run<T>(fn: (db: Database) => Promise<T>, options?: AnalyticsRunOptions): Promise<T>;
  /** The same connections and limit, running on `db` (a database wrapped around this one: another event store). */
  over(db: Database): Analytics;
  close(): Promise<void>;
}

/**
 * `db` as a background pass uses it: Prisma on the workers' connections, also inside its
 * analytical runs (whose SQL keeps the analytical connections), so that a pass never waits
 * for a connection requests hold, nor takes one they wait for. A new object: what is kept per
 * database object (the result cache, flag definitions…) is the view's own, so a pass
 * that changes what requests have cached must not use it (alert checks and subscriptions
 * only record their own rows; their computed answers no longer refresh the requests' cache).
 */
export function onWorkerConnections(db: Database): Database {
  if (db.workerPrisma === db.prisma) return db;
  const view: Database = {
    ...db,
    prisma: db.workerPrisma,
    get analytics() {
      return analytics;
    },
  };
  const analytics = db.analytics.over(view);
  return view;
}
