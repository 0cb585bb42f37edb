/**
 * For tests of requests that must not stall the others: runs one (or several) while
 * probing what every other request needs — the event loop (`/_health`) and a plain query on
 * the database's main connections (`/_ready`) — and watching the process's memory.
 */
import { getDb } from "@/server/db";
import { checkDatabase } from "@/server/health/service";
import { handleHealth } from "@/server/http/health";

export interface Stall<T> {
  /** What the hostile work resolved to, or the error it threw. */
  outcome: { ok: true; value: T } | { ok: false; error: unknown };
  /** How long it ran. */
  ms: number;
  /** The slowest `/_health` answer while it ran. */
  healthMs: number;
  /** The slowest plain database query while it ran. */
  queryMs: number;
  /** Resident memory gained, at its highest, in MB. */
  rssMb: number;
}

const PROBE_EVERY_MS = 50;

async function timed(probe: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await probe();
  return performance.now() - started;
}

/** Runs `hostile` while probing the rest of the server every 50 ms until it settles. */
export async function duringStall<T>(hostile: () => Promise<T>): Promise<Stall<T>> {
  const db = await getDb();
  const rssBefore = process.memoryUsage().rss;
  let rssMax = rssBefore;
  let healthMs = 0;
  let queryMs = 0;
  let settled = false;
  const started = performance.now();
  const work = hostile().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  void work.finally(() => (settled = true));
  // Each probe is timed from when it was due: a blocked event loop delays the timer too.
  const probing = (async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    while (!settled) {
      const due = performance.now();
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
      const late = performance.now() - due - PROBE_EVERY_MS;
      const [health, query] = await Promise.all([timed(handleHealth), timed(() => checkDatabase(db).catch(() => {}))]);
      healthMs = Math.max(healthMs, late + health);
      queryMs = Math.max(queryMs, late + query);
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
    }
  })();
  const outcome = await work;
  const ms = performance.now() - started;
  await probing;
  return { outcome, ms, healthMs, queryMs, rssMb: (rssMax - rssBefore) / 1e6 };
}
