/**
 * Every hot-path figure in one run, as ratios where the machine's speed would otherwise hide
 * a regression (issue 31). For each database (embedded PGlite on disk, then a PostgreSQL
 * server), on one project of 100,000 persons and 50 flags (a third reading person properties,
 * five of those through dynamic cohorts):
 *
 *   - /capture/: one posthog-js `$pageview` (≈35 properties) per request from 300 visitors
 *     with `$session_id`, wrk at 16 connections, beside a bare node:http server (its own
 *     process) reading the same bodies: req/s and the ratio (goal ≥ 0.5);
 *   - /batch/: 100 such events per request, 16 connections: events/s beside a raw COPY of
 *     the same rows into the same database, measured in the same run (goal ≥ 0.9);
 *   - /decide?v=3 and /flags?v=2 at a fixed 1,000 req/s (open loop), each request for another
 *     of the 100,000 persons or a new visitor: p50/p99 warm (goal p99 ≤ 5 ms), in the first
 *     10 s after the server said ready (≤ 20 ms), beside a /batch/ load (≤ 15 ms), and at
 *     500 req/s while dynamic cohorts recompute right after a large /batch/ (≤ 15 ms);
 *   - the paced client's floor: the same requests at the same rate to a bare node:http server
 *     answering what /decide answers, alone and beside the same /batch/ load on Burrow (what
 *     this machine's scheduling alone costs a quick answer; a goal below it cannot be shown);
 *   - the first /batch/ requests of a freshly started server (paced): p99;
 *   - acknowledged events against stored ones (nothing acknowledged may be missing).
 *
 *   npm run bench:hot [-- --db both|pglite|postgres --duration 10 --rounds 1 --parts capture,batch,decide,cold,beside,cohorts --destinations 0 --destination-rate R --platform --platform-kinds surveys,early-access,experiments --cohorts-due]
 *
 * `--destinations N` first creates N active webhook destinations of every event, delivering
 * to a receiver on loopback (bench/lib/destinations.ts): compare /capture/ and /batch/ with
 * `--destinations 0`; the sink's rate is the destinations' delivery throughput, and what it
 * takes once the loads stop (`--destination-rate R` sets each one's rate limit).
 *
 * `--platform` first creates 20 running surveys, 10 early-access features and 20 launched
 * experiments, half behind a holdout (bench/lib/platform.ts): compare /decide and /flags
 * with a run without it. `--platform-kinds` makes only some of them (all three by default).
 *
 * `--cohorts-due` starts the server with every dynamic cohort last computed an hour ago, as a
 * restart finds them after more than the cohort worker's staleMs: what that costs the first
 * seconds (the `cold` part's /decide row).
 *
 * Needs wrk (apt-get install wrk) and a build (npm run build; built first when missing).
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { openDatabase, type Database } from "@/server/db/client";
import { PGLITE_SETTINGS } from "@/server/db/pglite-thread";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { NEXT_IDLE_MS } from "@/server/http/next-contexts";
import type { StoredEventInput } from "@/server/db/events";
import { bareServer } from "./lib/bare-server";
import { PERSONS, seedFlagsProject } from "./lib/flags-seed";
import { paced, type PacedResult } from "./lib/paced";
import { posthogJsPageview, posthogJsPageviewProperties } from "./lib/posthog-js-event";
import { cpuMeter } from "./lib/cpu";
import { pgliteCopyRate, postgresCopyRate } from "./lib/raw-copy";
import { createDestinations, startBenchSink, type BenchSink } from "./lib/destinations";
import { createPlatformObjects, describePlatform, httpPoster, PLATFORM_KINDS, platformKinds } from "./lib/platform";
import { startServer, stop, waitReady } from "./lib/server-process";
import { luaString, wrk, type WrkResult } from "./lib/wrk";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "1" },
    parts: { type: "string", default: "capture,batch,decide,cold,beside,cohorts" },
    destinations: { type: "string", default: "0" },
    "destination-rate": { type: "string", default: "" },
    platform: { type: "boolean", default: false },
    "cohorts-due": { type: "boolean", default: false },
    "platform-kinds": { type: "string", default: PLATFORM_KINDS.join(",") },
  },
});
// An unknown database ran nothing and printed no figure, which read as a run that passed.
if (!["both", "pglite", "postgres"].includes(values.db)) {
  console.error(`--db must be both, pglite or postgres (not ${JSON.stringify(values.db)})`);
  process.exit(2);
}
const DURATION_S = Number(values.duration);
const ROUNDS = Number(values.rounds);
const PARTS = new Set(values.parts.split(","));
const DESTINATIONS = Number(values.destinations);
/** Each destination's rate limit (BURROW_DESTINATION_RATE_LIMIT; the product's default when not given). */
const DESTINATION_RATE = values["destination-rate"];
const PLATFORM_OBJECTS = values.platform ? platformKinds(values["platform-kinds"]) : null;
const ROOT = path.resolve(import.meta.dirname, "..");
const VISITORS = 300;
const CONNECTIONS = 16;
const BATCH_EVENTS = 100;
const COHORT_FLAGS = 5;

interface Setup {
  label: string;
  env: Record<string, string>;
  open: () => Promise<Database>;
  /** Rows/s of a raw COPY of `rows` (the database to ourselves). */
  copyRate: (rows: StoredEventInput[]) => Promise<number>;
  cleanup: () => Promise<void>;
}

function pgliteSetup(): Setup {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-hot-"));
  return {
    label: "embedded (PGlite on disk)",
    env: { DATA_DIR: dataDir },
    open: () => openDatabase({ kind: "pglite", dataDir }),
    copyRate: async (rows) => {
      const db = new PGlite(`${dataDir}/pgdata`, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
      try {
        return await pgliteCopyRate(db, rows, 1_000);
      } finally {
        await db.close();
      }
    },
    cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function postgresSetup(): Promise<Setup> {
  const database = await createEmptyPostgresDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-hot-secret-"));
  return {
    label: "PostgreSQL server",
    env: { DATABASE_URL: database.url, DATA_DIR: dataDir },
    open: () => openDatabase({ kind: "postgres", url: database.url }),
    // The best of one, two and four streams: the ceiling is what the database can take.
    copyRate: async (rows) => {
      let best = 0;
      for (const streams of [1, 2, 4]) best = Math.max(best, await postgresCopyRate(database.url, rows.map((row) => ({ ...row, uuid: randomUUID() })), 1_000, streams));
      return best;
    },
    cleanup: async () => {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The /batch/ bodies: 100 posthog-js page views each, visitors in turn. */
function batchBodies(token: string, count: number): string[] {
  const now = new Date();
  return Array.from({ length: count }, (_, b) =>
    JSON.stringify({ api_key: token, batch: Array.from({ length: BATCH_EVENTS }, (_, i) => posthogJsPageview((b * BATCH_EVENTS + i) % VISITORS, b * BATCH_EVENTS + i, now)) }),
  );
}

/** A wrk `request` function that sends `bodies` in turn. */
function rotating(bodies: string[]): string {
  return `local bodies = {${bodies.map(luaString).join(",\n")}}\nlocal n = 0\nrequest = function()\n  n = n % #bodies + 1\n  return wrk.format(nil, nil, nil, bodies[n])\nend\n`;
}

/** The same rows as stored rows, for the COPY ceiling. */
function copyRows(projectId: number, count: number): StoredEventInput[] {
  const now = new Date();
  return Array.from({ length: count }, (_, i) => ({
    uuid: randomUUID(),
    projectId,
    event: "$pageview",
    distinctId: `bench-user-${i % VISITORS}`,
    properties: posthogJsPageviewProperties(i % VISITORS, i),
    timestamp: now,
  }));
}

/** After ready, when the server's timed workers have made their first passes (server.ts starts them 10–20 s after ready). */
const FIRST_PASSES_DONE_MS = 25_000;

/** /decide bodies for `rate` × `seconds` requests: each for another of the 100,000 stored persons, or (every fifth) a visitor never seen. */
const decideBodies = (token: string, rate: number, seconds: number) =>
  Array.from({ length: rate * seconds }, (_, index) =>
    index % 5 === 4 ? `{"api_key":"${token}","distinct_id":"new-visitor-${index}-${randomUUID()}"}` : `{"api_key":"${token}","distinct_id":"person-${((index * 7919) % PERSONS) + 1}"}`,
  );

/** p50, p99 and max of a paced load, and what failed (with why). */
function pacedFigure(result: PacedResult): string {
  const why = result.failed > 0 ? ` (${Object.entries(result.failures).map(([reason, n]) => `${reason}: ${n}`).join(", ")})` : "";
  return `p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  max ${result.max.toFixed(0)} ms  failed ${result.failed}/${result.sent}${why}`;
}

/** A bare node:http server answering /decide's own answer to `body` (read from Burrow): the latency floor of the paced client here. */
async function floorServer(url: string, body: string): Promise<{ url: string; child: ChildProcess }> {
  const response = await fetch(`${url}/decide/?v=3`, { method: "POST", headers: { "content-type": "application/json" }, body });
  if (response.status !== 200) throw new Error(`/decide answered ${response.status}: ${await response.text()}`);
  return bareServer(await response.text());
}

interface Row {
  what: string;
  figure: string;
  goal: string;
  met: boolean | null;
}

async function run(setup: Setup): Promise<Row[]> {
  const rows: Row[] = [];
  const db = await setup.open();
  const seeded = await seedFlagsProject(db, { cohortFlags: COHORT_FLAGS });
  // As after a restart past the cohort worker's staleMs: every dynamic cohort due at once.
  if (values["cohorts-due"]) await db.sql.query(`UPDATE cohorts SET last_calculation = now() - interval '1 hour' WHERE NOT is_static`);
  await db.close();
  const { token, projectId, personalKey } = seeded;
  const ceiling = PARTS.has("batch") ? await setup.copyRate(copyRows(projectId, 100_000)) : 0;

  const captureBodies = Array.from({ length: VISITORS }, (_, visitor) => JSON.stringify({ api_key: token, ...posthogJsPageview(visitor, visitor) }));
  const batches = batchBodies(token, 30);
  let acknowledged = 0;
  const counted = (result: WrkResult, perRequest: number) => {
    acknowledged += (result.requests - result.non2xx) * perRequest;
    return result;
  };

  let bare: WrkResult | null = null;
  if (PARTS.has("capture")) {
    const server = await bareServer('{"status":1}');
    try {
      bare = await wrk({ url: `${server.url}/capture/`, connections: CONNECTIONS, durationS: DURATION_S, luaRequest: rotating(captureBodies) });
    } finally {
      await stop(server.child);
    }
  }

  const decideRow = (what: string, result: PacedResult, goal: number) => rows.push({ what, figure: pacedFigure(result), goal: `p99 ≤ ${goal} ms`, met: result.failed === 0 && result.p99 <= goal });
  // The paced client's own floor on this machine: a bare server answering what /decide answers.
  const floorRow = (what: string, result: PacedResult) => rows.push({ what, figure: pacedFigure(result), goal: "(floor)", met: null });
  let floor: { url: string; child: ChildProcess } | null = null;

  // The destinations' receiver is on loopback: allowlisted for this run only.
  const env = DESTINATIONS > 0 ? { ...setup.env, BURROW_OUTBOUND_ALLOWLIST: "127.0.0.1", ...(DESTINATION_RATE ? { BURROW_DESTINATION_RATE_LIMIT: DESTINATION_RATE } : {}) } : setup.env;
  let sink: BenchSink | null = null;
  let server = await startServer(env);
  /** /decide requests at 1,000/s to `url` while a /batch/ load of 4 connections runs on Burrow; with the load's events/s. */
  const besideBatch = async (url: string) => {
    const load = wrk({ url: `${server.url}/batch/`, connections: 4, durationS: DURATION_S + 1, luaRequest: rotating(batches) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = await paced(`${url}/decide/?v=3`, 1000, DURATION_S, decideBodies(token, 1000, DURATION_S));
    const batch = counted(await load, BATCH_EVENTS);
    return { result, eventsPerSecond: Math.round(batch.requestsPerSecond * BATCH_EVENTS) };
  };
  // "Warm" means after traffic and after start-up's work, as in a full run: a server's first
  // half second of /decide answers at 10–60 ms while V8 optimises the request path (2026-12-02:
  // 148 of `--parts decide`'s 203 answers over 8 ms came in its first 500 ms, p99 14–53 ms),
  // and the timed workers' first passes (server.ts: from 10 s after ready, 2 s apart, the
  // cohorts' at 20 s) slow it again. So before the first warm /decide row: two unmeasured
  // seconds of each route unless the cold part was that traffic, then a wait past those passes
  // (a few seconds at most in a full run, whose capture and batch parts come first).
  let warm = false;
  let readyAt = 0;
  const warmDecide = async () => {
    if (warm) return;
    warm = true;
    if (!PARTS.has("cold")) {
      await paced(`${server.url}/decide/?v=3`, 1000, 2, decideBodies(token, 1000, 2));
      await paced(`${server.url}/flags/?v=2`, 1000, 2, decideBodies(token, 1000, 2));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, readyAt + FIRST_PASSES_DONE_MS - performance.now())));
  };
  try {
    await waitReady(server.url);
    readyAt = performance.now();
    if (DESTINATIONS > 0) {
      sink = await startBenchSink();
      await createDestinations(server.url, projectId, personalKey, DESTINATIONS, sink.url);
    }
    // Creating destinations goes through Next, and while Next has a request in flight (and for
    // NEXT_IDLE_MS after) every promise pays for its async contexts: every run goes through Next
    // and then waits that long, so that runs with and without destinations compare like for
    // like, on a server whose UI is not in use at that moment.
    const listed = await fetch(`${server.url}/api/projects/${projectId}/hog_functions/`, { headers: { authorization: `Bearer ${personalKey}` } });
    if (listed.status !== 200) throw new Error(`listing the destinations failed: ${listed.status} ${await listed.text()}`);
    if (PLATFORM_OBJECTS) await createPlatformObjects(httpPoster(server.url, projectId, personalKey), PLATFORM_OBJECTS);
    await new Promise((resolve) => setTimeout(resolve, NEXT_IDLE_MS + 500));
    if (PARTS.has("decide") || PARTS.has("beside")) floor = await floorServer(server.url, decideBodies(token, 1, 1)[0]!);
    if (PARTS.has("cold")) {
      decideRow("/decide?v=3 1,000/s, first 10 s after ready", await paced(`${server.url}/decide/?v=3`, 1000, 10, decideBodies(token, 1000, 10)), 20);
    }
    const loadsStarted = { at: performance.now(), delivered: sink?.received() ?? 0 };
    for (let round = 1; round <= ROUNDS; round++) {
      const suffix = ROUNDS > 1 ? ` (round ${round})` : "";
      if (bare) {
        const meter = cpuMeter(server.child.pid!);
        const capture = counted(await wrk({ url: `${server.url}/capture/`, connections: CONNECTIONS, durationS: DURATION_S, luaRequest: rotating(captureBodies) }), 1);
        const ratio = capture.requestsPerSecond / bare.requestsPerSecond;
        rows.push({
          what: `/capture/ 1 posthog-js event, ${CONNECTIONS} conns${suffix}`,
          figure: `${Math.round(capture.requestsPerSecond)} req/s vs bare ${Math.round(bare.requestsPerSecond)}: ${ratio.toFixed(2)}  p99 ${capture.p99}  non-2xx ${capture.non2xx}  ${meter.perUnit(capture.requests)}`,
          goal: "≥ 0.50 of bare",
          met: ratio >= 0.5 && capture.non2xx === 0,
        });
      }
      if (PARTS.has("batch")) {
        const meter = cpuMeter(server.child.pid!);
        const batch = counted(await wrk({ url: `${server.url}/batch/`, connections: CONNECTIONS, durationS: DURATION_S, luaRequest: rotating(batches) }), BATCH_EVENTS);
        const rate = batch.requestsPerSecond * BATCH_EVENTS;
        rows.push({
          what: `/batch/ ${BATCH_EVENTS} events, ${CONNECTIONS} conns${suffix}`,
          figure: `${Math.round(rate)} events/s vs COPY ${Math.round(ceiling)}: ${(rate / ceiling).toFixed(2)}  p99 ${batch.p99}  non-2xx ${batch.non2xx}  ${meter.perUnit(batch.requests * BATCH_EVENTS)}`,
          goal: "≥ 0.90 of COPY",
          met: rate / ceiling >= 0.9 && batch.non2xx === 0,
        });
      }
      if (PARTS.has("decide")) {
        await warmDecide();
        if (floor) floorRow(`bare node:http 1,000/s, same client and answer${suffix}`, await paced(`${floor.url}/decide/?v=3`, 1000, DURATION_S, decideBodies(token, 1000, DURATION_S)));
        decideRow(`/decide?v=3 1,000/s warm${suffix}`, await paced(`${server.url}/decide/?v=3`, 1000, DURATION_S, decideBodies(token, 1000, DURATION_S)), 5);
        decideRow(`/flags?v=2 1,000/s warm${suffix}`, await paced(`${server.url}/flags/?v=2`, 1000, DURATION_S, decideBodies(token, 1000, DURATION_S)), 5);
      }
      if (PARTS.has("beside")) {
        await warmDecide();
        if (floor) {
          // The same load on Burrow, the paced client on the bare server: what this machine's
          // scheduling alone does to a quick answer while Burrow ingests.
          const bare = await besideBatch(floor.url);
          floorRow(`bare node:http 1,000/s beside Burrow's /batch/ (${bare.eventsPerSecond} events/s)${suffix}`, bare.result);
        }
        const flags = await besideBatch(server.url);
        decideRow(`/decide?v=3 1,000/s beside /batch/ (${flags.eventsPerSecond} events/s)${suffix}`, flags.result, 15);
      }
    }
    if (PARTS.has("cohorts")) {
      // A large /batch/ of new persons' events, then ten new dynamic cohorts over the 100,000 persons.
      await warmDecide();
      const large = JSON.stringify({
        api_key: token,
        batch: Array.from({ length: 20_000 }, (_, i) => ({ event: "signed_up", distinct_id: `large-${i}`, properties: { $set: { plan: i % 2 ? "pro" : "free", age: 20 + (i % 50) } } })),
      });
      const response = await fetch(`${server.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: large });
      if (response.status !== 200) throw new Error(`the large /batch/ failed: ${response.status} ${await response.text()}`);
      acknowledged += 20_000;
      const headers = { authorization: `Bearer ${personalKey}`, "content-type": "application/json" };
      for (let i = 0; i < 10; i++) {
        const filters = { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "age", value: 20 + i * 4, operator: "gt", type: "person" }, { key: "plan", value: "free", operator: "is_not", type: "person" }] }] } };
        const created = await fetch(`${server.url}/api/projects/${projectId}/cohorts/`, { method: "POST", headers, body: JSON.stringify({ name: `recomputing ${i}`, filters }) });
        if (created.status !== 201) throw new Error(`creating a cohort failed: ${created.status} ${await created.text()}`);
      }
      const during = await paced(`${server.url}/decide/?v=3`, 500, DURATION_S, decideBodies(token, 500, DURATION_S));
      decideRow(`/decide?v=3 500/s while 10 cohorts recompute (${during.inTime}/${during.sent} in 1 s)`, during, 15);
    }
    if (sink) {
      // While the loads ran, capture came first; the backlog they left, drained with nothing else running: the destinations' throughput.
      const before = sink.received();
      const during = (before - loadsStarted.delivered) / ((performance.now() - loadsStarted.at) / 1000);
      rows.push({ what: `${DESTINATIONS} destinations: delivered per second while the loads ran`, figure: `${Math.round(during)} requests/s`, goal: "", met: null });
      await new Promise((resolve) => setTimeout(resolve, DURATION_S * 1000));
      const rate = (sink.received() - before) / DURATION_S;
      rows.push({ what: `${DESTINATIONS} destinations: delivered per second once the load stops`, figure: `${Math.round(rate)} requests/s (limit ${DESTINATION_RATE || "default"}/s each)`, goal: "", met: null });
    }
  } finally {
    await stop(server.child);
    if (floor) await stop(floor.child);
  }

  if (PARTS.has("cold")) {
    server = await startServer(env);
    try {
      await waitReady(server.url);
      const first = await paced(`${server.url}/batch/`, 50, 10, batches);
      acknowledged += (first.sent - first.failed) * BATCH_EVENTS;
      rows.push({ what: "/batch/ 50/s, first 10 s after ready", figure: pacedFigure(first), goal: "p99 ≤ 20 ms", met: first.failed === 0 && first.p99 <= 20 });
    } finally {
      await stop(server.child);
    }
  }

  if (PLATFORM_OBJECTS) rows.push({ what: "platform objects in /decide and /flags", figure: describePlatform(PLATFORM_OBJECTS), goal: "", met: null });
  if (sink) {
    rows.push({ what: `${DESTINATIONS} destinations: requests delivered to the sink`, figure: `${sink.received()} at ${Math.round(sink.rate())}/s`, goal: "", met: null });
    await sink.close();
  }
  const check = await setup.open();
  const [{ n: stored } = { n: 0 }] = await check.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND (distinct_id LIKE 'bench-user-%' OR distinct_id LIKE 'large-%')`, [projectId]);
  await check.close();
  const ceilingRows = PARTS.has("batch") ? (setup.env.DATABASE_URL ? 300_000 : 100_000) : 0;
  rows.push({ what: "events acknowledged / stored", figure: `${acknowledged} / ${stored - ceilingRows}`, goal: "none missing", met: stored - ceilingRows >= acknowledged });
  await setup.cleanup();
  return rows;
}

function print(label: string, rows: Row[]): void {
  console.log(`\n${label} (wrk and paced loads of ${DURATION_S} s)`);
  const width = Math.max(...rows.map((row) => row.what.length));
  const figureWidth = Math.max(...rows.map((row) => row.figure.length));
  for (const row of rows) console.log(`  ${row.what.padEnd(width)}  ${row.figure.padEnd(figureWidth)}  ${row.goal.padEnd(15)} ${row.met === null ? "" : row.met ? "met" : "MISSED"}`);
}

if (!fs.existsSync(path.join(ROOT, "dist/server.mjs"))) execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
console.log(`bench:hot on ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
if (values.db === "both" || values.db === "pglite") {
  const setup = pgliteSetup();
  print(setup.label, await run(setup));
}
if (values.db === "both" || values.db === "postgres") {
  const setup = await postgresSetup();
  print(setup.label, await run(setup));
}
