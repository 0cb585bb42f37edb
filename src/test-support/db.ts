/**
 * Databases for tests: the embedded one in memory, or a throwaway database on the
 * PostgreSQL server (BURROW_TEST_DB=postgres), migrated and dropped again on close.
 * With BURROW_TEST_EVENTS=clickhouse the events go to a throwaway ClickHouse database:
 * on the server CLICKHOUSE_URL names, else in chdb (ClickHouse in the test process).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { eventStoreConfigFromEnv, type EventStoreConfig } from "@/server/db/events/config";
import type { EventStoreKind } from "@/server/db/events";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { PGLITE_TEMPLATES_ENV, templateFile } from "@/server/db/pglite-templates";
import { leaseMigratedPglite } from "./kept-pglite";

export type TestDbKind = "pglite" | "postgres";

export const testDbKind: TestDbKind = process.env.BURROW_TEST_DB === "postgres" ? "postgres" : "pglite";

/** Where test events go: PostgreSQL (the database above) unless BURROW_TEST_EVENTS=clickhouse. */
export const testEventStoreKind: EventStoreKind = process.env.BURROW_TEST_EVENTS === "clickhouse" ? "clickhouse" : "postgres";

/** Names the databases a test run uses, for describe() titles: `pglite`, `postgres+clickhouse`, … */
export const testStoresName = testEventStoreKind === "clickhouse" ? `${testDbKind}+clickhouse` : testDbKind;

/** A throwaway ClickHouse database: on CLICKHOUSE_URL's server, else in chdb's in-memory engine. */
function testClickHouseConfig(): Exclude<EventStoreConfig, { kind: "postgres" }> {
  const database = `burrow_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const configured = eventStoreConfigFromEnv();
  if (configured.kind === "clickhouse") return { ...configured, database };
  return { kind: "chdb", path: ":memory:", database };
}

/** Opens (migrated) and closes, then drops, a database; with its events where `events` says. */
async function withEventStore(open: (events: EventStoreConfig) => Promise<Database>, events: EventStoreKind): Promise<Database> {
  if (events === "postgres") return open({ kind: "postgres" });
  const config = testClickHouseConfig();
  const db = await open(config);
  return {
    ...db,
    async close() {
      await db.close();
      const { dropClickHouseDatabase } = await import("@/server/db/events/clickhouse/open");
      await dropClickHouseDatabase(config);
    },
  };
}

/** The dump an embedded test database starts from, when vitest's global setup made them (pglite-templates.ts). */
async function pgliteTemplate(migrated: boolean): Promise<Blob | undefined> {
  const dir = process.env[PGLITE_TEMPLATES_ENV];
  return dir ? new Blob([await fs.promises.readFile(templateFile(dir, migrated))]) : undefined;
}

/** The server test databases are made on; CI has it at 127.0.0.1:5432, user root, trust auth. */
export const TEST_POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

export async function createTestDatabase(
  options: { migrated?: boolean; kind?: TestDbKind; events?: EventStoreKind } = {},
): Promise<Database> {
  const { migrated = true, kind = testDbKind, events = testEventStoreKind } = options;
  if (kind === "pglite") {
    return withEventStore(async (eventStore) => {
      // A migrated database from the run's template: on a thread kept from an earlier test when one is idle (kept-pglite.ts).
      if (migrated && process.env[PGLITE_TEMPLATES_ENV]) {
        return openDatabase({ kind: "pglite-memory", thread: () => leaseMigratedPglite(async () => (await pgliteTemplate(true))!) }, eventStore);
      }
      const from = await pgliteTemplate(migrated);
      const db = await openDatabase({ kind: "pglite-memory", from }, eventStore);
      if (migrated && !from) await migrate(db.sql);
      return db;
    }, events);
  }
  return withEventStore((eventStore) => openMigratedPostgres(migrated, eventStore), events);
}

/** Names the migrated database PostgreSQL test databases are copied from (postgres-template.ts, vitest's global setup). */
export const POSTGRES_TEMPLATE_ENV = "BURROW_TEST_POSTGRES_TEMPLATE";

async function openMigratedPostgres(migrated: boolean, eventStore: EventStoreConfig): Promise<Database> {
  // A copy of the run's migrated template when vitest's global setup made one.
  const template = migrated ? process.env[POSTGRES_TEMPLATE_ENV] : undefined;
  const database = await throwawayPostgresDatabase(template);
  const db = await openDatabase({ kind: "postgres", url: database.url }, eventStore);
  if (migrated && !template) await migrate(db.sql);
  return {
    ...db,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}

/**
 * An empty, unmigrated database on the test PostgreSQL server, for tests that hand a
 * DATABASE_URL to another process (the admin CLI). `drop()` removes it again.
 */
export function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return throwawayPostgresDatabase();
}

/** A new database on the test PostgreSQL server: empty, or a copy of `template`. `drop()` removes it again. */
async function throwawayPostgresDatabase(template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `burrow_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
  const url = new URL(TEST_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/**
 * Holds every connection of a PostgreSQL database's requests' pool (`size`, the pool's default)
 * in an open transaction, as a load of slow requests would, until the returned release is
 * called; throws unless a statement through Prisma then waits for a connection.
 */
export async function holdRequestConnections(db: Database, size = 10): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  const holders = Array.from({ length: size }, () =>
    db.sql.transaction(async (tx) => {
      await tx.query("SELECT 1");
      held++;
      await released;
    }),
  );
  const end = async () => {
    release();
    await Promise.all(holders);
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  for (let waited = 0; held < size; waited += 10) {
    if (waited > 10_000) {
      await end();
      throw new Error(`only ${held} of ${size} connections could be held`);
    }
    await pause(10);
  }
  const probe = await Promise.race([db.prisma.$queryRaw`SELECT 1`.then(() => "answered", () => "failed"), pause(300).then(() => "waiting")]);
  if (probe !== "waiting") {
    await end();
    throw new Error(`a statement through Prisma ${probe} while every connection was held: the pool is larger than ${size}`);
  }
  return end;
}

/** Runs `work` while every request connection is held (above): its answer, or "stalled" when it has none within `ms`. */
export async function whileRequestConnectionsHeld<T>(db: Database, work: () => Promise<T>, ms = 20_000): Promise<T | "stalled"> {
  const release = await holdRequestConnections(db);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work(), new Promise<"stalled">((resolve) => (timer = setTimeout(() => resolve("stalled"), ms)))]);
  } finally {
    clearTimeout(timer);
    await release();
  }
}
