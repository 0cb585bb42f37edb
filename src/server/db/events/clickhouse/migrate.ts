/**
 * ClickHouse migrations: the SQL files in clickhouse/migrations/ (beside prisma/), applied
 * in name order at start and recorded in `<database>._burrow_migrations`, as Prisma's are
 * in `_prisma_migrations`. A file holds statements separated by `;` at a line end; the
 * token `{database}` stands for the database's (quoted) name. ClickHouse has no DDL
 * transactions: every statement is written to be re-run safely (`IF NOT EXISTS`), so a run
 * that stopped halfway completes on the next start.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ClickHouseClient } from "@clickhouse/client";
import { MigrationError } from "@/server/db/migrate";

export const CLICKHOUSE_MIGRATIONS_DIR = path.resolve(/* turbopackIgnore: true */ process.cwd(), "clickhouse/migrations");

interface MigrationFile {
  name: string;
  statements: string[];
  checksum: string;
}

function readMigrations(dir: string, database: string): MigrationFile[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => {
      const text = fs.readFileSync(path.join(dir, name), "utf8");
      const statements = text
        .replace(/^\s*--.*$/gm, "")
        .split(/;\s*$/m)
        .map((statement) => statement.trim())
        .filter((statement) => statement !== "")
        .map((statement) => statement.replaceAll("{database}", database));
      return { name: name.replace(/\.sql$/, ""), statements, checksum: createHash("sha256").update(text).digest("hex") };
    });
}

/** Creates the database if needed and applies pending migrations; returns the names applied. */
export async function migrateClickHouse(client: ClickHouseClient, databaseName: string, dir: string = CLICKHOUSE_MIGRATIONS_DIR): Promise<string[]> {
  const database = `\`${databaseName}\``;
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${database}._burrow_migrations (name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
            ENGINE = MergeTree ORDER BY name`,
  });
  const done = new Map(
    (await (await client.query({ query: `SELECT name, checksum FROM ${database}._burrow_migrations`, format: "JSONEachRow" })).json<{ name: string; checksum: string }>()).map(
      (row) => [row.name, row.checksum],
    ),
  );
  const applied: string[] = [];
  for (const migration of readMigrations(dir, database)) {
    const checksum = done.get(migration.name);
    if (checksum !== undefined) {
      if (checksum !== migration.checksum) {
        throw new MigrationError(`ClickHouse migration ${migration.name} was changed after it was applied; restore the original file and add a new migration instead.`);
      }
      continue;
    }
    try {
      for (const statement of migration.statements) await client.command({ query: statement });
    } catch (error) {
      throw new MigrationError(`ClickHouse migration ${migration.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    await client.insert({ table: `${database}._burrow_migrations`, values: [{ name: migration.name, checksum: migration.checksum }], format: "JSONEachRow" });
    applied.push(migration.name);
  }
  return applied;
}
