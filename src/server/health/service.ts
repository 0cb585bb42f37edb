import type { Database } from "@/server/db";
import { warmDestinations } from "@/server/destinations/service";
import { warmFlags } from "@/server/flags/service";
import { warmGeoIp } from "@/server/geoip/lookup";
import { warmProjectKeys } from "@/server/ingestion/service";
import { warmPersonPropertiesForFlags } from "@/server/persons/service";
import { ping } from "./store";

const READY_TIMEOUT_MS = 2_000;

/** Resolves once the database answers; rejects if it fails or takes more than two seconds. */
export async function checkDatabase(db: Database): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the database did not answer within 2 s")), READY_TIMEOUT_MS);
  });
  await Promise.race([ping(db), timeout]).finally(() => clearTimeout(timer));
}

// On globalThis: the server warms up, and both copies of this module (Next's and the server's) answer /_ready.
const WARMING = Symbol.for("burrow.warming");
type Holder = { [WARMING]?: { done: boolean } };

/**
 * What the hot paths would otherwise pay for on their first requests, done before the server
 * says ready (/_ready answers 503 until then): the GeoIP databases read, the database's
 * connections opened, every project's key,
 * every person's properties in memory for flags (embedded database), every project's flag
 * definitions loaded with their cohorts compiled. A failure is logged and the server becomes ready anyway:
 * each of these also loads on first use.
 */
export async function warmUp(db: Database): Promise<void> {
  const state = { done: false };
  (globalThis as Holder)[WARMING] = state;
  const started = performance.now();
  // The GeoIP databases are read off the main thread meanwhile; ready once both are done.
  const failed = (await Promise.allSettled([warmGeoIp(), warmCaches(db)])).find((result) => result.status === "rejected");
  if (failed) console.error("burrow: warming up failed (the caches will load on first use)", failed.reason);
  state.done = true;
  return void console.log(`burrow: warmed up in ${Math.round(performance.now() - started)} ms`);
}

async function warmCaches(db: Database): Promise<void> {
  await db.sql.openConnections();
  // Tables never analyzed (a database from before the schedule, or loaded by another
  // process) before the first request: on the embedded database an ANALYZE holds the one
  // connection for up to a second, which the first requests would otherwise wait for.
  await db.statistics.check();
  await warmProjectKeys(db);
  await warmPersonPropertiesForFlags(db);
  await warmFlags(db);
  await warmDestinations(db);
}

/**
 * /_ready answers 503 from now until a warm-up has run: the server calls this before it
 * listens, as the database it will warm is still opening.
 */
export function holdReadiness(): void {
  (globalThis as Holder)[WARMING] = { done: false };
}

/** False while a warm-up is under way (a process that never warms up, `next dev`, is warm). */
export function isWarm(): boolean {
  return (globalThis as Holder)[WARMING]?.done ?? true;
}
