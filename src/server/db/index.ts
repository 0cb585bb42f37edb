import { eventStoreConfigFromEnv } from "@/server/db/events/config";
import { dbConfigFromEnv } from "./config";
import { openDatabase, type Database } from "./client";
import { migrate } from "./migrate";

export type { Database } from "./client";

// Modules load twice (in Next's bundle and in the custom server), and two PGlite instances
// on one DATA_DIR corrupt it, so the one open database lives on globalThis.
const DB_KEY = Symbol.for("burrow.db");
type Holder = { [DB_KEY]?: Promise<Database> };
const holder = globalThis as Holder;

/**
 * Makes `db` the process's database (the server does this before it listens, with the
 * database still opening: requests that need it wait for it, and none opens another).
 */
export function registerDb(db: Database | Promise<Database>): void {
  holder[DB_KEY] = Promise.resolve(db);
}

/**
 * The process's database. Under `npm start` the server opened it already; under `next dev`
 * the first call opens it from the environment and applies pending migrations.
 */
export function getDb(): Promise<Database> {
  holder[DB_KEY] ??= (async () => {
    const db = await openDatabase(dbConfigFromEnv(), eventStoreConfigFromEnv());
    try {
      await migrate(db.sql);
    } catch (error) {
      await db.close();
      throw error;
    }
    return db;
  })().catch((error: unknown) => {
    // Let the next call try again (e.g. once the database is reachable).
    delete holder[DB_KEY];
    throw error;
  });
  return holder[DB_KEY];
}

export async function getPrisma() {
  return (await getDb()).prisma;
}

/** Closes the process's database, if one was opened. */
export async function closeDb(): Promise<void> {
  const pending = holder[DB_KEY];
  delete holder[DB_KEY];
  if (pending) await (await pending).close();
}
