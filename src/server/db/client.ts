import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/generated/prisma/client";
import { PGLITE_CHUNK_ROWS, PostgresEventStore, type EventStore } from "@/server/db/events";
import type { EventStoreConfig } from "@/server/db/events/config";
import { localChangeFeed, postgresChangeFeed, type ChangeFeed } from "./changes";
import { ConfigError, type DbConfig } from "./config";
import { makeTreePrivate } from "./data-dir-mode";
import { pgPoolDriver, type SqlDriver, type WorkerSql } from "./driver";
import { lockDataDir, type DataDirLock } from "./lock";
import { openPgliteThread, type PgliteOnThread } from "./pglite-thread";
import { Statistics } from "./statistics";
import { embeddedAnalytics, postgresAnalytics, type Analytics } from "./analytics";
import type { Database } from "./database";

export type { Database };

export type { PrismaClient };


const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens the database the config names and checks that it answers. Configuration problems
 * (unreachable server, missing database, bad credentials, locked or unwritable DATA_DIR)
 * become a ConfigError with one line saying what to do. `onAccepted` is called once they are
 * ruled out (the server answered, or DATA_DIR is locked for this process), before the rest
 * of the opening (the embedded database's own start, about a second).
 */
export async function openDatabase(config: DbConfig, eventStore: EventStoreConfig = { kind: "postgres" }, onAccepted?: () => void): Promise<Database> {
  const db = config.kind === "postgres" ? await openPostgres(config.url, onAccepted) : await openPglite(config, onAccepted);
  if (eventStore.kind === "postgres") return db;
  let events: EventStore;
  try {
    // Loaded only when asked for: the ClickHouse client stays out of PostgreSQL-only processes.
    const { openClickHouseEventStore } = await import("@/server/db/events/clickhouse/open");
    events = await openClickHouseEventStore(eventStore, db.sql);
  } catch (error) {
    await db.close();
    throw error;
  }
  const wrapped: Database = {
    ...db,
    events,
    get analytics() {
      return analytics;
    },
    async close() {
      await events.close();
      await db.close();
    },
  };
  const analytics = db.analytics.over(wrapped);
  return wrapped;
}

/**
 * Our connections' own settings, whatever the server's defaults (bench/web.ts, 1M events):
 * - JIT off: the analytics reads cost enough to cross jit_above_cost, and compiling them
 *   took 300–470 ms each, more than their whole run without it;
 * - work_mem 64MB: grouping 300,000 sessions by (entry page, visitor) hashes in memory
 *   instead of sorting on disk;
 * - parallel workers priced at a fifth of the defaults: a breakdown of 560,000 page views
 *   by an event property then scans with the other cores (Page 720 → 520 ms, Country and
 *   Browser 510 → 350 ms on 2 cores); the 8MB min_parallel_table_scan_size still keeps
 *   small reads serial.
 * Startup options, not a SET on each new connection: that SET would overlap the caller's
 * first query (pg warns on stderr). Behind PgBouncer, which refuses startup options by
 * default, add `options` to its ignore_startup_parameters (the reads then run with the
 * server's settings, only slower).
 */
const SESSION_SETTINGS = "-c jit=off -c work_mem=64MB -c parallel_setup_cost=200 -c parallel_tuple_cost=0.02";

/**
 * Every statement of the main pool ends within this (`BURROW_STATEMENT_TIMEOUT_MS`, default
 * 2 min): no request holds a connection forever. Migrations lift it for themselves; the
 * analytical reads have their own, shorter budget (analytics.ts).
 */
function statementTimeoutMs(): number {
  const configured = Number(process.env.BURROW_STATEMENT_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : 120_000;
}

/** Analytical runs at once on PostgreSQL, each with a connection of its own (`DATABASE_ANALYTICS_POOL_SIZE`, default 4). */
const analyticsPoolSize = () => Number(process.env.DATABASE_ANALYTICS_POOL_SIZE) || 4;

async function openPostgres(url: string, onAccepted?: () => void): Promise<Database> {
  const poolSize = Number(process.env.DATABASE_POOL_SIZE) || 10;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Idle connections stay open: after a quiet spell (pg's default closes them after 10 s) the
    // next burst's first requests each waited tens of milliseconds for a new backend.
    min: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    options: `${SESSION_SETTINGS} -c statement_timeout=${statementTimeoutMs()}`,
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on("error", () => {});
  // The background workers' own connections (opened when first used): a cohort computation or
  // a deletion never takes one that ingestion or flags wait for.
  const workerPool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.DATABASE_WORKER_POOL_SIZE) || 2,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    // Told apart from the requests' connections in pg_stat_activity.
    application_name: "burrow-worker",
    options: SESSION_SETTINGS,
  });
  workerPool.on("error", () => {});
  const sql = pgPoolDriver(pool, { workerPool });
  try {
    await sql.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    await workerPool.end().catch(() => {});
    throw postgresConfigError(url, error);
  }
  onAccepted?.();
  const analyticsLimit = analyticsPoolSize();
  const analyticsPool = new pg.Pool({ connectionString: url, max: analyticsLimit, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, options: SESSION_SETTINGS });
  analyticsPool.on("error", () => {});
  let changes: ChangeFeed;
  try {
    changes = await postgresChangeFeed(url, pool);
  } catch (error) {
    await pool.end().catch(() => {});
    await workerPool.end().catch(() => {});
    throw postgresConfigError(url, error);
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const workerPrisma = new PrismaClient({ adapter: new PrismaPg(workerPool) });
  // ANALYZE in the background: on the workers' handle (their own connections on a server; timed on the embedded database).
  const statistics = new Statistics(sql.worker.as("statistics"));
  const events = new PostgresEventStore(sql, 4, undefined, statistics);
  const db: Database = {
    config: { kind: "postgres", url },
    prisma,
    workerPrisma,
    sql,
    worker: sql.worker,
    changes,
    events,
    statistics,
    get analytics() {
      return analytics;
    },
    async close() {
      await analytics.close();
      await statistics.close();
      await events.close();
      await changes.close();
      await prisma.$disconnect();
      await workerPrisma.$disconnect();
      await sql.close();
    },
  };
  const analytics = postgresAnalytics(db, analyticsPool, sql, analyticsLimit);
  return db;
}

function postgresConfigError(url: string, error: unknown): ConfigError {
  const parsed = new URL(url);
  const where = `${parsed.hostname}:${parsed.port || 5432}`;
  const code = (error as { code?: string }).code;
  const reason = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "3D000":
      return new ConfigError(
        `DATABASE_URL names database ${parsed.pathname.slice(1)}, which does not exist on ${where}; create it (createdb ${parsed.pathname.slice(1)}) or fix DATABASE_URL.`,
      );
    case "28P01":
    case "28000":
      return new ConfigError(`PostgreSQL at ${where} refused the credentials in DATABASE_URL: ${reason}`);
    default:
      return new ConfigError(
        `Cannot reach PostgreSQL at ${where} (${code ?? reason}); check DATABASE_URL and that the server is running.`,
      );
  }
}

async function openPglite(config: DbConfig & { kind: "pglite" | "pglite-memory" }, onAccepted?: () => void): Promise<Database> {
  let lock: DataDirLock | undefined;
  let thread: PgliteOnThread;
  if (config.kind === "pglite") {
    lock = await lockDataDir(config.dataDir);
    onAccepted?.();
    try {
      thread = await openPgliteThread({ dataDir: `${config.dataDir}/pgdata` });
      makeTreePrivate(config.dataDir);
    } catch (error) {
      lock.release();
      throw new ConfigError(
        `The embedded database in ${config.dataDir}/pgdata could not be opened (${error instanceof Error ? error.message : String(error)}); restore it from a backup or point DATA_DIR elsewhere.`,
      );
    }
  } else {
    onAccepted?.();
    thread = config.thread ? await config.thread() : await openPgliteThread(config.from ? { loadDataDir: await config.from.arrayBuffer() } : {});
  }
  const sql = pgPoolDriver(thread.pool, { embedded: true, end: thread.close });
  const prisma = new PrismaClient({ adapter: new PrismaPg(thread.pool) });
  // One connection: inserts take turns, in statements short enough to let other requests in.
  // ANALYZE in the background: on the workers' handle, timed, and sampling few enough rows to hold the one connection briefly.
  const statistics = new Statistics(sql.worker.as("statistics"), { sampleTarget: 10 });
  const events = new PostgresEventStore(sql, 1, PGLITE_CHUNK_ROWS, statistics);
  const db: Database = {
    config,
    prisma,
    workerPrisma: prisma,
    sql,
    worker: sql.worker,
    changes: localChangeFeed(),
    events,
    statistics,
    get analytics() {
      return analytics;
    },
    async close() {
      await analytics.close();
      await statistics.close();
      await events.close();
      await prisma.$disconnect();
      await sql.close();
      lock?.release();
    },
  };
  const analytics = embeddedAnalytics(db);
  return db;
}
