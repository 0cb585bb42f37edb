/**
 * How long a plain request waits while large `/batch/` bodies are ingested: `--requests`
 * clients each posting a body of `--events` posthog-js page views (5,000: 6.7 MB) over and
 * over, while `/_health` is asked every 5 ms for `--seconds`; prints its p50/p90/p99/max and
 * the events ingested per second. The steps a large body goes through (its decoding, the rows,
 * their sessions, the definitions) share the thread in time slices (src/server/event-loop.ts);
 * what one of them does in one turn shows here as `/_health`'s tail.
 *
 *   npm run bench:batch-stall [-- --db postgres|pglite --events 5000 --requests 4 --seconds 10]
 *
 * The built server (`npm run build`) on a throwaway database (TEST_POSTGRES_URL's server, or an
 * embedded one in a temporary directory), dropped at the end.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { posthogJsPageview } from "./lib/posthog-js-event";
import { startServer, stop, waitReady } from "./lib/server-process";

const { values } = parseArgs({
  options: { db: { type: "string", default: "postgres" }, events: { type: "string", default: "5000" }, requests: { type: "string", default: "4" }, seconds: { type: "string", default: "10" } },
});
const EVENTS = Number(values.events);
const REQUESTS = Number(values.requests);
const SECONDS = Number(values.seconds);
const VISITORS = 3_000;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-batch-stall-"));
const postgres = values.db === "postgres" ? await createEmptyPostgresDatabase() : null;
try {
  const db: Database = postgres ? await openDatabase({ kind: "postgres", url: postgres.url }) : await openDatabase({ kind: "pglite", dataDir });
  let token: string;
  try {
    await migrate(db.sql);
    const { project_id: projectId } = await bootstrap(db.prisma, { email: "bench-stall@example.com", password: "bench-password" });
    token = (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).apiToken;
  } finally {
    await db.close();
  }
  const server = await startServer(postgres ? { DATABASE_URL: postgres.url, DATA_DIR: dataDir } : { DATA_DIR: dataDir });
  try {
    await waitReady(server.url);
    const bodies = Array.from({ length: REQUESTS }, (_, r) =>
      JSON.stringify({ api_key: token, batch: Array.from({ length: EVENTS }, (_, i) => posthogJsPageview((r * EVENTS + i) % VISITORS, r * EVENTS + i)) }),
    );
    console.log(`${values.db}: ${REQUESTS} clients posting /batch/ bodies of ${EVENTS.toLocaleString("en")} events (${(bodies[0]!.length / 1e6).toFixed(1)} MB) over and over; /_health every 5 ms for ${SECONDS} s`);
    let running = true;
    let batches = 0;
    const loads = bodies.map(async (body) => {
      while (running) {
        const response = await fetch(`${server.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`/batch/ answered ${response.status}: ${text.slice(0, 200)}`);
        if (running) batches++;
      }
    });
    // The loads under way before the probe starts.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const latencies: number[] = [];
    const started = performance.now();
    while (performance.now() - started < SECONDS * 1000) {
      const begun = performance.now();
      const response = await fetch(`${server.url}/_health`);
      await response.text();
      latencies.push(performance.now() - begun);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const elapsed = (performance.now() - started) / 1000;
    running = false;
    await Promise.all(loads);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
    console.log(`/_health, ${latencies.length} probes: p50 ${at(0.5)} ms  p90 ${at(0.9)} ms  p99 ${at(0.99)} ms  max ${latencies[latencies.length - 1]!.toFixed(1)} ms`);
    console.log(`/batch/: ${Math.round((batches * EVENTS) / elapsed).toLocaleString("en")} events/s (${batches} bodies acknowledged while probed)`);
  } finally {
    await stop(server.child);
  }
} finally {
  await postgres?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
