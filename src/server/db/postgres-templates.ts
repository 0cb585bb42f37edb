/**
 * Vitest's global setup for runs on PostgreSQL: migrating a throwaway database costs a second
 * or more of the server's time per test file, copying a migrated one (CREATE DATABASE …
 * TEMPLATE) about half of that. So the run migrates one template database first and
 * createTestDatabase (testing.ts) copies it for each migrated test database. Made anew every
 * run, so it always matches the migrations; tests of migrating itself start from empty
 * databases as before.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase } from "./client";
import { migrate } from "./migrate";

/** Names the migrated template database for the test processes. */
export const POSTGRES_TEMPLATE_ENV = "BURROW_TEST_POSTGRES_TEMPLATE";

/** The server test databases are made on; CI has it at 127.0.0.1:5432, user root, trust auth. */
export const TEST_POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";

export async function onPostgresAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function testDatabaseUrl(name: string): string {
  const url = new URL(TEST_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function setup(): Promise<() => Promise<void>> {
  const name = `burrow_test_template_${process.pid}_${randomBytes(4).toString("hex")}`;
  await onPostgresAdmin(`CREATE DATABASE "${name}"`);
  // No connection may stay open: PostgreSQL copies a template only while nobody is connected to it.
  const db = await openDatabase({ kind: "postgres", url: testDatabaseUrl(name) }, { kind: "postgres" });
  try {
    await migrate(db.sql);
  } finally {
    await db.close();
  }
  process.env[POSTGRES_TEMPLATE_ENV] = name;
  return () => onPostgresAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
