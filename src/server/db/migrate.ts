import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { SqlDriver } from "./driver";

export const MIGRATIONS_DIR = path.resolve(/* turbopackIgnore: true */ process.cwd(), "prisma/migrations");

/** Any constant; serialises migration runs of several processes on one PostgreSQL. */
const ADVISORY_LOCK_KEY = 4_242_001;

export class MigrationError extends Error {
  override name = "MigrationError";
}

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

function readMigrations(dir: string): MigrationFile[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/**
 * Applies pending migrations, each in its own transaction, and records them in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does, so Prisma's own tooling
 * sees them as applied. A failing migration rolls back completely and stops the run.
 * Returns the names applied.
 */
export async function migrate(sql: SqlDriver, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  // Under the same lock as the migrations: concurrent CREATE TABLE IF NOT EXISTS of one
  // table collide in PostgreSQL's catalog when several processes start together.
  await sql.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [ADVISORY_LOCK_KEY]);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum"            VARCHAR(64) NOT NULL,
        "finished_at"         TIMESTAMPTZ,
        "migration_name"      VARCHAR(255) NOT NULL,
        "logs"                TEXT,
        "rolled_back_at"      TIMESTAMPTZ,
        "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      );`);
  });
  const applied: string[] = [];
  for (const migration of readMigrations(dir)) {
    const done = await sql.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1)", [ADVISORY_LOCK_KEY]);
      const rows = await tx.query<{ checksum: string }>(
        `SELECT checksum FROM "_prisma_migrations"
          WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        [migration.name],
      );
      if (rows.length > 0) {
        if (rows[0]!.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration ${migration.name} was changed after it was applied; restore the original file and add a new migration instead.`,
          );
        }
        return false;
      }
      try {
        // A migration of a big table may take longer than the pool's statement budget.
        await tx.exec("SET LOCAL statement_timeout = 0");
        await tx.exec(migration.sql);
      } catch (error) {
        throw new MigrationError(
          `Migration ${migration.name} failed and was rolled back: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      return true;
    });
    if (done) applied.push(migration.name);
  }
  // New tables and columns start without planner statistics (PGlite has no autovacuum to
  // gather them): gathered now, while the tables are small, instead of planned blind.
  if (applied.length > 0) await sql.transaction(async (tx) => tx.exec("SET LOCAL statement_timeout = 0; ANALYZE"));
  return applied;
}
