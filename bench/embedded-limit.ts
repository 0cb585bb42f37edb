/**
 * Where the embedded database stops being enough: a 30-day trend and the `/web` overview timed
 * as one project's event table grows (issue 31, item 6). The events are a web site's sessions
 * (bench/lib/web-events.ts) spread over the last 30 days, written through the event store's own
 * insert (so sessions are kept as ingestion keeps them) into PGlite on disk, in steps; after
 * each step the tables are analysed (as Burrow does after bulk loads) and each query runs
 * uncached through `computeQuery` (`refresh: "force"`) once to warm and `--runs` times,
 * printing the median. Stops after the step where both pass `--limit-ms` (default 1,000), or at
 * `--max` events.
 *
 *   npm run bench:embedded-limit [-- --steps 100000,300000,1000000,3000000,10000000 --runs 3 --limit-ms 1000]
 *
 * Also prints the data directory's size at each step. Everything is deleted at the end.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { registerDb } from "@/server/db";
import { openDatabase } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { computeQuery } from "@/server/query/service";
import { overviewQuery, trendQuery } from "@/components/web/web-query";
import type { WebFilters } from "@/components/web/web-filters";
import { seededRandom } from "./lib/product-events";
import { dayOfEvents } from "./lib/web-events";

const { values } = parseArgs({
  options: {
    start: { type: "string", default: "100000" },
    max: { type: "string", default: "13000000" },
    runs: { type: "string", default: "3" },
    "limit-ms": { type: "string", default: "1000" },
  },
});
const START = Number(values.start);
const MAX = Number(values.max);
const RUNS = Number(values.runs);
const LIMIT_MS = Number(values["limit-ms"]);
const DAYS = 30;
/** Events per session of the generator, on average (1.875 views, a click on a quarter of them, one leave). */
const EVENTS_PER_SESSION = 3.3;

const filters: WebFilters = { host: null, path: null, dateFrom: "-30d", order: null, goal: null, filterTestAccounts: false };
const MEASURES = [
  {
    label: "30-day trend",
    query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "total" }], interval: "day", dateRange: { date_from: "-30d" } },
  },
  { label: "/web overview", query: overviewQuery(filters) },
  { label: "/web graph", query: trendQuery(filters) },
];

/** Copies every event and session under a new session id (suffix `-<step>`); returns the events added. */
async function doubleEvents(step: number): Promise<number> {
  await db.sql.exec(`
    CREATE TEMP TABLE copied_events AS SELECT * FROM events;
    UPDATE copied_events SET uuid = gen_random_uuid(), properties = jsonb_set(properties, '{$session_id}', to_jsonb((properties->>'$session_id') || '-${step}'));
    INSERT INTO events SELECT * FROM copied_events;
    DROP TABLE copied_events;
    CREATE TEMP TABLE copied_sessions AS SELECT * FROM sessions;
    UPDATE copied_sessions SET session_id = session_id || '-${step}';
    INSERT INTO sessions SELECT * FROM copied_sessions;
    DROP TABLE copied_sessions;
  `);
  const [row] = await db.sql.query<{ count: string }>(`SELECT count(*) AS count FROM events`);
  return Number(row!.count) / 2;
}

function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-limit-"));
const db = await openDatabase({ kind: "pglite", dataDir });
try {
  await migrate(db.sql);
  registerDb(db);
  const { project_id: projectId } = await bootstrap(db.prisma, { email: "bench-limit@example.com", password: "bench-password" });
  const NOW = new Date();
  const today = Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth(), NOW.getUTCDate());
  const pick = seededRandom(31);
  console.log(`embedded PostgreSQL (PGlite, on disk), one project, a web site's sessions over ${DAYS} days; median of ${RUNS} uncached runs; limit ${LIMIT_MS} ms\n`);
  console.log(`${"events".padStart(12)} ${"added/s".padStart(9)} ${"on disk".padStart(9)}  ${MEASURES.map((m) => m.label.padStart(16)).join(" ")}`);
  let stored = 0;
  for (let step = 0; stored < MAX; step++) {
    const started = performance.now();
    const before = stored;
    if (step === 0) {
      const sessionsPerDay = Math.max(1, Math.round(START / EVENTS_PER_SESSION / DAYS));
      for (let day = DAYS - 1; day >= 0; day--) {
        const rows = dayOfEvents(projectId, today - (day + 1) * 86_400_000, sessionsPerDay, pick);
        for (let i = 0; i < rows.length; i += 5_000) await db.events.insert(rows.slice(i, i + 5_000));
        stored += rows.length;
      }
    } else {
      stored += await doubleEvents(step);
    }
    const insertSeconds = (performance.now() - started) / 1000;
    await db.sql.exec(`ANALYZE events; ANALYZE sessions;`);
    const medians: number[] = [];
    for (const measure of MEASURES) {
      const times: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const begun = performance.now();
        await computeQuery(db, projectId, measure.query, { refresh: "force", now: NOW });
        if (run > 0) times.push(performance.now() - begun);
      }
      medians.push(times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!);
    }
    const cells = medians.map((ms) => `${ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`}${ms > LIMIT_MS ? " OVER" : ""}`.padStart(16));
    console.log(`${stored.toLocaleString("en").padStart(12)} ${Math.round((stored - before) / insertSeconds).toLocaleString("en").padStart(9)} ${`${(sizeOf(dataDir) / 2 ** 30).toFixed(2)} GB`.padStart(9)}  ${cells.join(" ")}`);
    if (medians.slice(0, 2).every((ms) => ms > LIMIT_MS)) break;
  }
} finally {
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
