import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./client";
import { migrate, MigrationError, MIGRATIONS_DIR } from "./migrate";
import { createTestDatabase, testDbKind } from "@/test-support/db";

/** Prisma's own `_prisma_migrations` columns, as `prisma migrate deploy` creates them. */
const PRISMA_MIGRATION_COLUMNS = [
  "applied_steps_count",
  "checksum",
  "finished_at",
  "id",
  "logs",
  "migration_name",
  "rolled_back_at",
  "started_at",
];

interface MigrationRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

const dirs: string[] = [];

/** A migrations directory in Prisma's layout: `<dir>/<name>/migration.sql`. */
function migrationsDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-migrations-"));
  dirs.push(dir);
  writeMigrations(dir, files);
  return dir;
}

function writeMigrations(dir: string, files: Record<string, string>) {
  for (const [name, sql] of Object.entries(files)) {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, "migration.sql"), sql);
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function tableExists(db: Database, table: string): Promise<boolean> {
  const rows = await db.sql.query<{ name: string | null }>("SELECT to_regclass($1)::text AS name", [`public.${table}`]);
  return rows[0]?.name != null;
}

async function migrationRows(db: Database): Promise<MigrationRow[]> {
  return db.sql.query<MigrationRow>(`SELECT * FROM "_prisma_migrations" ORDER BY migration_name`);
}

describe(`migrate (${testDbKind})`, () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
  });
  afterEach(async () => {
    // Each test starts from an empty schema.
    await db.sql.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;`);
  });
  afterAll(async () => {
    await db?.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("applies migrations in name order, returns their names, and applies nothing the second time", async () => {
    // Written out of order; the second depends on the first, the third on the second.
    const dir = migrationsDir({
      "20240103000000_third": `INSERT INTO b (a_id) SELECT id FROM a;`,
      "20240101000000_first": `CREATE TABLE a (id integer PRIMARY KEY); INSERT INTO a VALUES (1), (2);`,
      "20240102000000_second": `CREATE TABLE b (a_id integer REFERENCES a (id));`,
    });
    fs.mkdirSync(path.join(dir, "not_a_migration")); // a folder without migration.sql is ignored
    fs.writeFileSync(path.join(dir, "migration_lock.toml"), 'provider = "postgresql"\n');

    expect(await migrate(db.sql, dir)).toEqual(["20240101000000_first", "20240102000000_second", "20240103000000_third"]);
    expect(await db.sql.query("SELECT a_id FROM b ORDER BY a_id")).toEqual([{ a_id: 1 }, { a_id: 2 }]);

    expect(await migrate(db.sql, dir)).toEqual([]);
    expect(await db.sql.query("SELECT count(*)::int AS n FROM b")).toEqual([{ n: 2 }]);
    expect((await migrationRows(db)).map((row) => row.migration_name)).toEqual([
      "20240101000000_first",
      "20240102000000_second",
      "20240103000000_third",
    ]);
  });

  it("applies only the migrations added since the last run", async () => {
    const dir = migrationsDir({ "001_a": "CREATE TABLE a (id integer);" });
    expect(await migrate(db.sql, dir)).toEqual(["001_a"]);
    writeMigrations(dir, { "002_b": "CREATE TABLE b (id integer);" });
    expect(await migrate(db.sql, dir)).toEqual(["002_b"]);
    expect(await tableExists(db, "b")).toBe(true);
  });

  it("records each migration in _prisma_migrations exactly as Prisma does", async () => {
    const sql = "CREATE TABLE widgets (id serial PRIMARY KEY, name text NOT NULL);\n-- a comment\n";
    const dir = migrationsDir({ "20240101000000_widgets": sql });
    const before = Date.now();
    await migrate(db.sql, dir);

    const columns = await db.sql.query<{ column_name: string; data_type: string; is_nullable: string }>(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = '_prisma_migrations' ORDER BY column_name`,
    );
    expect(columns.map((c) => c.column_name)).toEqual(PRISMA_MIGRATION_COLUMNS);
    const nullable = Object.fromEntries(columns.map((c) => [c.column_name, c.is_nullable === "YES"]));
    expect(nullable).toEqual({
      applied_steps_count: false,
      checksum: false,
      finished_at: true,
      id: false,
      logs: true,
      migration_name: false,
      rolled_back_at: true,
      started_at: false,
    });

    const [row, ...others] = await migrationRows(db);
    expect(others).toEqual([]);
    expect(row!.migration_name).toBe("20240101000000_widgets");
    expect(row!.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.checksum).toBe(sha256(fs.readFileSync(path.join(dir, "20240101000000_widgets", "migration.sql"), "utf8")));
    expect(row!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(row!.applied_steps_count).toBe(1);
    expect(row!.logs).toBeNull();
    expect(row!.rolled_back_at).toBeNull();
    expect(row!.finished_at).toBeInstanceOf(Date);
    expect(row!.started_at).toBeInstanceOf(Date);
    expect(row!.finished_at!.getTime()).toBeGreaterThanOrEqual(row!.started_at.getTime());
    expect(row!.started_at.getTime()).toBeGreaterThanOrEqual(before - 5_000);
    expect(row!.finished_at!.getTime()).toBeLessThanOrEqual(Date.now() + 5_000);
  });

  it("rolls a failing migration back completely, names it, and keeps the earlier ones applied", async () => {
    const dir = migrationsDir({
      "001_good": "CREATE TABLE good (id integer);",
      "002_bad": "CREATE TABLE half_done (id integer);\nINSERT INTO good VALUES (1);\nSELECT * FROM no_such_table;",
      "003_after": "CREATE TABLE after_bad (id integer);",
    });
    const error = await migrate(db.sql, dir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toContain("002_bad");
    expect((error as Error).message).toContain("no_such_table");

    expect(await tableExists(db, "good")).toBe(true);
    expect(await db.sql.query("SELECT count(*)::int AS n FROM good")).toEqual([{ n: 0 }]);
    expect(await tableExists(db, "half_done")).toBe(false);
    expect(await tableExists(db, "after_bad")).toBe(false);
    expect((await migrationRows(db)).map((row) => row.migration_name)).toEqual(["001_good"]);

    // Once the migration is fixed, the run resumes where it stopped.
    writeMigrations(dir, { "002_bad": "CREATE TABLE half_done (id integer);" });
    expect(await migrate(db.sql, dir)).toEqual(["002_bad", "003_after"]);
  });

  it("refuses to run when an applied migration's file was changed, and applies nothing after it", async () => {
    const dir = migrationsDir({ "001_a": "CREATE TABLE a (id integer);" });
    await migrate(db.sql, dir);
    writeMigrations(dir, { "001_a": "CREATE TABLE a (id bigint);", "002_b": "CREATE TABLE b (id integer);" });
    const error = await migrate(db.sql, dir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toContain("001_a");
    expect(await tableExists(db, "b")).toBe(false);
    expect((await migrationRows(db)).map((row) => row.migration_name)).toEqual(["001_a"]);
  });

  // Concurrent first runs used to collide on CREATE TABLE IF NOT EXISTS "_prisma_migrations"
  // ("duplicate key value violates unique constraint pg_type_typname_nsp_index").
  it(
    "concurrent runs against one fresh database apply each migration exactly once",
    async () => {
      const dir = migrationsDir({ "001_a": "CREATE TABLE a (id integer);", "002_b": "CREATE TABLE b (id integer);" });
      // Separate connections on PostgreSQL (as separate processes would have); PGlite has one.
      const others = testDbKind === "postgres" ? await Promise.all([1, 2, 3].map(() => openDatabase(db.config))) : [db, db, db];
      try {
        // allSettled: every run has finished before the next test resets the schema.
        const settled = await Promise.allSettled([db, ...others].map((d) => migrate(d.sql, dir)));
        expect(settled.filter((r) => r.status === "rejected")).toEqual([]);
        expect(settled.flatMap((r) => (r.status === "fulfilled" ? r.value : [])).sort()).toEqual(["001_a", "002_b"]);
        expect((await migrationRows(db)).map((row) => row.migration_name)).toEqual(["001_a", "002_b"]);
      } finally {
        if (testDbKind === "postgres") await Promise.all(others.map((d) => d.close()));
      }
    },
  );

  it("applies the project's own migrations (prisma/migrations) cleanly, once", async () => {
    const names = fs
      .readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(names.length).toBeGreaterThan(0);
    expect(await migrate(db.sql)).toEqual(names);
    expect(await migrate(db.sql)).toEqual([]);
    const rows = await migrationRows(db);
    expect(rows.map((row) => row.migration_name)).toEqual(names);
    for (const row of rows) {
      expect(row.checksum).toBe(sha256(fs.readFileSync(path.join(MIGRATIONS_DIR, row.migration_name, "migration.sql"), "utf8")));
    }
    expect(await tableExists(db, "users")).toBe(true);
    expect(await tableExists(db, "personal_api_keys")).toBe(true);
  });
});
