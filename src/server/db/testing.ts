/**
 * Databases for tests: the embedded one in memory, or a throwaway database on the
 * PostgreSQL server (BURROW_TEST_DB=postgres), migrated and dropped again on close.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase, type Database } from "./client";
import { migrate } from "./migrate";

export type TestDbKind = "pglite" | "postgres";

export const testDbKind: TestDbKind = process.env.BURROW_TEST_DB === "postgres" ? "postgres" : "pglite";

/** The server test databases are made on; CI has it at 127.0.0.1:5432, user root, trust auth. */
export const TEST_POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

export async function createTestDatabase(
  options: { migrated?: boolean; kind?: TestDbKind } = {},
): Promise<Database> {
  const { migrated = true, kind = testDbKind } = options;
  if (kind === "pglite") {
    const db = await openDatabase({ kind: "pglite-memory" });
    if (migrated) await migrate(db.sql);
    return db;
  }
  const database = await createEmptyPostgresDatabase();
  const db = await openDatabase({ kind: "postgres", url: database.url });
  if (migrated) await migrate(db.sql);
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
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
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
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(TEST_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
