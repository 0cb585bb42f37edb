/**
 * A throwaway PostgreSQL database (on TEST_POSTGRES_URL's server) with one project and
 * `events` synthetic events spread evenly over the last 90 days, written through the events
 * store (the path ingestion uses) and analysed. For the benchmarks that read events.
 */
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/server/db/testing";
import { insertEvents, type StoredEventInput } from "@/server/events/store";
import { v7 as uuidv7 } from "uuid";

export const EVENT_NAMES = ["$pageview", "$pageleave", "$autocapture", "signed_up", "purchase", "$identify", "clicked_cta", "viewed_pricing"];
export const BROWSERS = ["Chrome", "Firefox", "Safari", "Edge"];
export const SEEDED_DAYS = 90;

export interface SeededDatabase {
  db: Database;
  projectId: number;
  personalApiKey: string;
  /** Closes the connection and drops the database. */
  close(): Promise<void>;
}

export async function seedEvents(events: number): Promise<SeededDatabase> {
  const database = await createEmptyPostgresDatabase();
  const db = await openDatabase({ kind: "postgres", url: database.url });
  const close = async () => {
    await closeDb();
    await database.drop();
  };
  try {
    await migrate(db.sql);
    registerDb(db);
    const boot = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
    const projectId = boot.project_id;

    const seedStarted = performance.now();
    const span = SEEDED_DAYS * 24 * 3600 * 1000;
    const start = Date.now() - span;
    const CHUNK = 10_000;
    for (let done = 0; done < events; done += CHUNK) {
      const rows: StoredEventInput[] = [];
      for (let i = done; i < Math.min(events, done + CHUNK); i++) {
        rows.push({
          uuid: uuidv7(),
          projectId,
          event: EVENT_NAMES[i % EVENT_NAMES.length]!,
          distinctId: `user-${i % 50_000}`,
          properties: { $browser: BROWSERS[i % BROWSERS.length], $current_url: `https://example.com/p/${i % 500}`, plan: i % 10 === 0 ? "enterprise" : "free", amount: i % 1000 },
          timestamp: new Date(start + Math.floor((i / events) * span)),
        });
      }
      await insertEvents(db.sql, rows);
    }
    await db.sql.exec("ANALYZE events");
    console.log(`seeded ${events} events over ${SEEDED_DAYS} days in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    return { db, projectId, personalApiKey: boot.personal_api_key, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs `work` once to warm up, then `runs` times; p50 and max in milliseconds. */
export async function timeRuns(runs: number, work: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await work();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, max: times.at(-1)! };
}
