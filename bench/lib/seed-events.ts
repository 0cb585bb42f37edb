/**
 * A throwaway PostgreSQL database (on TEST_POSTGRES_URL's server) with one project and
 * `events` synthetic events spread evenly over the last 90 days, written through the event
 * store (the path ingestion uses: PostgreSQL's events table, or ClickHouse when `eventStore`
 * says so) and analysed. For the benchmarks that read events.
 */
import { bootstrap } from "@/server/accounts/service";
import { registerDb } from "@/server/db";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import type { StoredEventInput } from "@/server/db/events";
import { ClickHouseEventStore } from "@/server/db/events/clickhouse/store";
import type { EventStoreConfig } from "@/server/db/events/config";
import { v7 as uuidv7 } from "uuid";

export const EVENT_NAMES = ["$pageview", "$pageleave", "$autocapture", "signed_up", "purchase", "$identify", "clicked_cta", "viewed_pricing"];
export const BROWSERS = ["Chrome", "Firefox", "Safari", "Edge"];
export const SEEDED_DAYS = 90;

export interface SeededDatabase {
  db: Database;
  projectId: number;
  personalApiKey: string;
  /** Seconds the store took to accept every event (batches of 10,000, one after another). */
  insertSeconds: number;
  /** The seed's "now": events span the SEEDED_DAYS before it. */
  seededAt: Date;
  /** Closes the connection and drops the database. */
  close(): Promise<void>;
}

/** Seeds `events` events; `eventStore` (default PostgreSQL) says where they go. The database is registered as the process's. */
export async function seedEvents(events: number, eventStore: EventStoreConfig = { kind: "postgres" }, seededAt = new Date()): Promise<SeededDatabase> {
  const database = await createEmptyPostgresDatabase();
  let db: Database;
  try {
    db = await openDatabase({ kind: "postgres", url: database.url }, eventStore);
  } catch (error) {
    await database.drop();
    throw error;
  }
  const close = async () => {
    await db.close();
    await database.drop();
  };
  try {
    await migrate(db.sql);
    registerDb(db);
    const boot = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
    const projectId = boot.project_id;

    const seedStarted = performance.now();
    let insertSeconds = 0;
    const span = SEEDED_DAYS * 24 * 3600 * 1000;
    const start = seededAt.getTime() - span;
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
      const insertStarted = performance.now();
      await db.events.insert(rows);
      insertSeconds += (performance.now() - insertStarted) / 1000;
    }
    if (db.events.kind === "postgres") await db.sql.exec("ANALYZE events");
    // ClickHouse merges the parts of the bulk load in the background; done now, as a settled installation has them.
    if (db.events instanceof ClickHouseEventStore) await db.events.settle();
    console.log(`seeded ${events} events over ${SEEDED_DAYS} days into ${db.events.kind} in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    return { db, projectId, personalApiKey: boot.personal_api_key, insertSeconds, seededAt, close };
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
  return p50AndMax(times);
}

/** p50 and max of some times (milliseconds). */
export function p50AndMax(times: readonly number[]): { p50: number; max: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)! };
}
