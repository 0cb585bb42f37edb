/**
 * Vitest's global setup for runs on the embedded database: an in-memory PGlite starts with
 * initdb, over a second of CPU per test file, while one loaded from a dump of a fresh
 * database starts in about a third of a second. So the run makes two dumps first, of an
 * empty database and of a migrated one, and createTestDatabase (src/test-support/db.ts) starts each
 * test's database from one of them. Made anew every run: they always match the migrations.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pgliteDriver } from "./driver";
import { migrate } from "./migrate";

/** Names the folder holding `empty.tar` and `migrated.tar` for the test processes. */
export const PGLITE_TEMPLATES_ENV = "BURROW_TEST_PGLITE_TEMPLATES";

export const templateFile = (dir: string, migrated: boolean) => path.join(dir, migrated ? "migrated.tar" : "empty.tar");

export default async function setup(): Promise<() => void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-pglite-templates-"));
  for (const migrated of [false, true]) {
    const db = new PGlite();
    await db.waitReady;
    if (migrated) await migrate(pgliteDriver(db));
    const dump = await db.dumpDataDir("none");
    fs.writeFileSync(templateFile(dir, migrated), Buffer.from(await dump.arrayBuffer()));
    await db.close();
  }
  process.env[PGLITE_TEMPLATES_ENV] = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
