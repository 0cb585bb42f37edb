/**
 * How long the built server takes to start: from spawning `node dist/server.mjs` (with
 * `npm start`'s flags) to its "listening on" line, which it prints once /_ready would answer
 * 200 (database open and migrated, Next prepared, caches warm). On an embedded database and
 * on a PostgreSQL database, each bootstrapped once with the admin CLI; medians of `--runs`
 * starts, each stopped with SIGTERM before the next.
 *
 *   npm run bench:start [-- --runs 7]
 *
 * Needs a build (npm run build). The PostgreSQL database is a throwaway one on
 * TEST_POSTGRES_URL's server.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { admin } from "../e2e/support/server";
import { startServer, stop } from "./lib/server-process";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const RUNS = Number(values.runs);

async function startTimes(env: Record<string, string>): Promise<number[]> {
  const boot = admin(["bootstrap", "--email", "bench-start@example.com", "--password", "bench-password", "--json"], env);
  if (boot.code !== 0) throw new Error(`admin bootstrap failed:\n${boot.stderr}`);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const { child } = await startServer(env);
    times.push(performance.now() - started);
    await stop(child);
  }
  return times.sort((a, b) => a - b);
}

const show = (label: string, times: number[]) =>
  console.log(`${label.padEnd(12)} median ${times[Math.floor(times.length / 2)]!.toFixed(0).padStart(5)} ms   (${times.map((t) => t.toFixed(0)).join(", ")})`);

console.log(`start to "listening on" (ready), ${RUNS} starts each:`);
const embeddedDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-start-"));
const postgresDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-start-"));
const database = await createEmptyPostgresDatabase();
try {
  show("embedded", await startTimes({ DATA_DIR: embeddedDir }));
  show("PostgreSQL", await startTimes({ DATA_DIR: postgresDir, DATABASE_URL: database.url }));
} finally {
  await database.drop();
  for (const dir of [embeddedDir, postgresDir]) fs.rmSync(dir, { recursive: true, force: true });
}
