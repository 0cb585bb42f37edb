/**
 * Ingestion throughput of the real server (`dist/server.mjs`) on each database, with wrk:
 *   - /batch/ with 100 events a request, 16 connections: events/s, beside the raw
 *     multi-row INSERT ceiling of the same database measured in the same run;
 *   - /capture/ with one event a request: requests/s, beside a bare node:http server
 *     answering the same request, at 16 connections and at saturation (64);
 *   - p50/p99 latency of both;
 *   - /batch/ with five enabled transformations (issue 8) beside /batch/ with none, in
 *     alternating rounds, both with posthog-js-sized pageviews: the ratio, and the CPU time
 *     the server and PostgreSQL spent per event on each side.
 *
 *   - with `--db clickhouse` (PostgreSQL's server for everything else, the events in chdb
 *     on disk, or in CLICKHOUSE_URL's server): the same, with the store's own insert of
 *     1,000-row batches as the ceiling, and how many rows each ClickHouse insert carried
 *     in each phase (rows of one insert share its `inserted_at`).
 *
 *   npm run bench:ingest [-- --duration 30 --connections 16 --db both|pglite|postgres|clickhouse
 *                           --parts batch,capture,transformations --rounds 2]
 *
 * Needs wrk (apt-get install wrk) and a build (npm run build).
 */
import { cpuSeconds, postgresCpuSeconds, postgresCpuSince } from "./lib/cpu";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { clickHouseClient, dropClickHouseDatabase } from "@/server/db/events/clickhouse/open";
import { DEFAULT_CLICKHOUSE_DATABASE, eventStoreConfigFromEnv, type EventStoreConfig } from "@/server/db/events/config";
import type { StoredEventInput } from "@/server/db/events";
import { makeEvents, rawInsert, timedInsert } from "./lib/raw-insert";
import { startServer, stop } from "./lib/server-process";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "30" },
    connections: { type: "string", default: "16" },
    "capture-connections": { type: "string", default: "16,64" },
    db: { type: "string", default: "both" },
    parts: { type: "string", default: "batch,capture,transformations" },
    rounds: { type: "string", default: "2" },
  },
});
const DURATION = `${Number(values.duration)}s`;
const CONNECTIONS = Number(values.connections);
const CAPTURE_CONNECTIONS = values["capture-connections"].split(",").map(Number);
const PARTS = new Set(values.parts.split(","));
const ROUNDS = Number(values.rounds);
const ROOT = path.resolve(import.meta.dirname, "..");

interface Phase {
  result: WrkResult;
  eventsPerSecond: number;
  serverCpuPerEvent: number;
  databaseCpuPerEvent: number;
}

interface WrkResult {
  requestsPerSecond: number;
  requests: number;
  p50: string;
  p99: string;
  non2xx: number;
  errors: string;
}

/** Runs wrk in its own process (asynchronously: the bare server below shares our event loop). */
async function wrk(url: string, body: string, connections = CONNECTIONS): Promise<WrkResult> {
  const script = path.join(os.tmpdir(), `burrow-wrk-${process.pid}.lua`);
  fs.writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
  const { stdout: out } = await promisify(execFile)("wrk", ["-t1", `-c${connections}`, `-d${DURATION}`, "--latency", "-s", script, url], { encoding: "utf8" });
  const number = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  return {
    requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/),
    p50: /Latency Distribution[\s\S]*?50%\s+(\S+)/.exec(out)?.[1] ?? "?",
    p99: /Latency Distribution[\s\S]*?99%\s+(\S+)/.exec(out)?.[1] ?? "?",
    requests: number(/(\d+) requests in/),
    non2xx: number(/Non-2xx or 3xx responses:\s+(\d+)/) || 0,
    errors: /Socket errors:.*/.exec(out)?.[0] ?? "none",
  };
}

function batchBody(token: string, size: number): string {
  return JSON.stringify({
    api_key: token,
    batch: Array.from({ length: size }, (_, i) => ({
      event: "$pageview",
      distinct_id: `bench-user-${i % 20}`,
      properties: { $current_url: `https://example.com/page/${i}`, $browser: "Chrome", $lib: "posthog-node" },
      timestamp: new Date().toISOString(),
    })),
  });
}

/**
 * What posthog-js really sends with a pageview: about thirty properties, ~1 KB. The
 * transformation ratio is measured on these, since on a three-property event the
 * properties the URL parser adds would double each row and the ratio would measure row
 * size rather than the chain.
 */
function browserPageviewBatchBody(token: string, size: number): string {
  return JSON.stringify({
    api_key: token,
    batch: Array.from({ length: size }, (_, i) => ({
      event: "$pageview",
      distinct_id: `bench-user-${i % 20}`,
      properties: {
        $os: "Mac OS X", $os_version: "14.6.1", $browser: "Chrome", $device_type: "Desktop", $browser_version: 131,
        $current_url: `https://shop.example.com/products/item-${i}?utm_source=newsletter&utm_campaign=autumn`,
        $host: "shop.example.com", $pathname: `/products/item-${i}`, $raw_user_agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        $screen_height: 1117, $screen_width: 1728, $viewport_height: 981, $viewport_width: 1728, $lib: "web", $lib_version: "1.449.2",
        $insert_id: `insert-${i}`, $time: 1732262400.123, $device_id: `device-${i % 20}`, $session_id: `session-${i % 20}`, $window_id: `window-${i % 20}`,
        $pageview_id: `pageview-${i}`, $referrer: "https://www.google.com/", $referring_domain: "www.google.com", $initial_referrer: "$direct",
        $initial_referring_domain: "$direct", $is_identified: false, $process_person_profile: true, $configured_session_timeout_ms: 1800000,
        $timezone: "Europe/Berlin", $timezone_offset: -60, $browser_language: "en-GB", $browser_language_prefix: "en", title: `Item ${i} – Example shop`,
      },
      timestamp: new Date().toISOString(),
    })),
  });
}

function captureBody(token: string): string {
  return JSON.stringify({ api_key: token, event: "$pageview", distinct_id: "bench-user-1", properties: { $current_url: "https://example.com/" } });
}

/**
 * Five transformation configs, made through the REST API as a user would (the server
 * holds the database), and a switch that enables or disables all five. Each really works
 * on the bench events (drop-events checks every name and drops none, so the stored counts
 * stay comparable).
 */
async function fiveTransformations(url: string, projectId: number, personalKey: string): Promise<(enabled: boolean) => Promise<void>> {
  const headers = { authorization: `Bearer ${personalKey}`, "content-type": "application/json" };
  const plugins = (await (await fetch(`${url}/api/plugins/`, { headers })).json()) as { results: { id: number; key: string }[] };
  const id = (key: string) => plugins.results.find((plugin) => plugin.key === key)!.id;
  const configs = [
    { plugin: id("drop-events"), config: { events: ["$autocapture"], properties: [{ key: "$browser", value: "Netscape" }] } },
    { plugin: id("property-filter"), config: { properties: ["$lib"] } },
    { plugin: id("url-parser"), config: {} },
    { plugin: id("pii"), config: { properties: ["$browser"], salt: "bench" } },
    { plugin: id("rename"), config: { property_case: "snake_case", keep_posthog_names: false } },
  ];
  const base = `${url}/api/environments/${projectId}/pipeline_transformation_configs/`;
  const ids: number[] = [];
  for (const [order, body] of configs.entries()) {
    const response = await fetch(base, { method: "POST", headers, body: JSON.stringify({ ...body, order, enabled: false }) });
    if (response.status !== 201) throw new Error(`creating a transformation config failed: ${response.status} ${await response.text()}`);
    ids.push(((await response.json()) as { id: number }).id);
  }
  return async (enabled) => {
    for (const configId of ids) {
      const response = await fetch(`${base}${configId}/`, { method: "PATCH", headers, body: JSON.stringify({ enabled }) });
      if (response.status !== 200) throw new Error(`switching a transformation config failed: ${response.status} ${await response.text()}`);
    }
  };
}

/** The same request answered by a bare node:http server: what HTTP alone costs here. */
async function bareNode(body: string, connections: number): Promise<WrkResult> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"status":1}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const result = await wrk(`http://127.0.0.1:${port}/capture/`, body, connections);
  server.close();
  return result;
}

async function ceiling(db: Database, projectId: number): Promise<number> {
  // ClickHouse: the store's own insert (its uuid check and one insert), there being no other path.
  const write = db.events.kind === "clickhouse" ? (rows: StoredEventInput[]) => db.events.insert(rows) : rawInsert(db);
  await write(makeEvents(projectId, 1_000));
  // Batches of 1,000 rows, as bench/db-insert.ts measures it.
  return (await timedInsert(makeEvents(projectId, 100_000), 1_000, write)).rate;
}

interface Setup {
  label: string;
  env: Record<string, string>;
  open: () => Promise<Database>;
  /** The bench's events stored (read once the server has stopped). */
  stored: () => Promise<number>;
  /** Rows per event-store insert during [from, to], where the store can tell. */
  insertSizes?: (projectId: number, from: Date, to: Date) => Promise<InsertSizes>;
  cleanup: () => Promise<void>;
}

interface InsertSizes {
  inserts: number;
  p50: number;
  p90: number;
  max: number;
  /** Share of the rows that went in inserts of at least 1,000 rows. */
  inThousands: number;
}

const STORED_SQL = "SELECT count(*)::int AS n FROM events WHERE distinct_id LIKE 'bench-user-%'";

/** Counts the bench's events in a PostgreSQL events table. */
function storedInPostgres(open: () => Promise<Database>): () => Promise<number> {
  return async () => {
    const db = await open();
    try {
      return (await db.sql.query<{ n: number }>(STORED_SQL))[0]!.n;
    } finally {
      await db.close();
    }
  };
}

function pgliteSetup(): Setup {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-ingest-"));
  const open = () => openDatabase({ kind: "pglite", dataDir });
  return {
    label: "embedded PostgreSQL (PGlite, on disk)",
    env: { DATA_DIR: dataDir },
    open,
    stored: storedInPostgres(open),
    cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function postgresSetup(): Promise<Setup> {
  const database = await createEmptyPostgresDatabase();
  const open = () => openDatabase({ kind: "postgres", url: database.url });
  return {
    label: "PostgreSQL server",
    env: { DATABASE_URL: database.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-secret-")) },
    open,
    stored: storedInPostgres(open),
    cleanup: database.drop,
  };
}

/** PostgreSQL's server for everything but events; events in chdb on disk, or in a throwaway database of CLICKHOUSE_URL's server. */
async function clickHouseSetup(): Promise<Setup> {
  const database = await createEmptyPostgresDatabase();
  const configured = eventStoreConfigFromEnv();
  const chdbDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-ingest-chdb-"));
  let events: Exclude<EventStoreConfig, { kind: "postgres" }>;
  let clickHouseUrl: string;
  if (configured.kind === "clickhouse") {
    events = { ...configured, database: `burrow_bench_${process.pid}` };
    const url = new URL(configured.url);
    url.pathname = `/${events.database}`;
    clickHouseUrl = url.toString();
  } else {
    events = { kind: "chdb", path: chdbDir, database: DEFAULT_CLICKHOUSE_DATABASE };
    clickHouseUrl = `chdb:${chdbDir}`;
  }
  const table = `\`${events.database}\`.events`;
  // Asked only while no server holds the store (chdb is one process per directory).
  const ask = async <Row>(query: string, params: Record<string, unknown> = {}): Promise<Row[]> => {
    const client = await clickHouseClient(events);
    try {
      return await (await client.query({ query, query_params: params, format: "JSONEachRow" })).json<Row>();
    } finally {
      await client.close();
    }
  };
  return {
    label: `ClickHouse events (${events.kind === "chdb" ? "chdb on disk" : `server ${new URL(events.url).host}`}), PostgreSQL server for the rest`,
    env: { DATABASE_URL: database.url, CLICKHOUSE_URL: clickHouseUrl, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-secret-")) },
    open: () => openDatabase({ kind: "postgres", url: database.url }, events),
    stored: async () => Number((await ask<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE startsWith(distinct_id, 'bench-user-')`))[0]!.n),
    // One insert's rows share the `inserted_at` ClickHouse gave them (one block: inserts under ~10 MB).
    insertSizes: async (projectId, from, to) => {
      const [row] = await ask<Record<string, number | string>>(
        `SELECT count() AS inserts, quantileExact(0.5)(n) AS p50, quantileExact(0.9)(n) AS p90, max(n) AS max, sumIf(n, n >= 1000) / sum(n) AS in_thousands
           FROM (SELECT inserted_at, count() AS n FROM ${table}
                  WHERE project_id = {project:Int32} AND inserted_at >= {from:DateTime64(6, 'UTC')} AND inserted_at <= {to:DateTime64(6, 'UTC')}
                  GROUP BY inserted_at)`,
        { project: projectId, from: from.toISOString().replace("T", " ").replace("Z", ""), to: to.toISOString().replace("T", " ").replace("Z", "") },
      );
      return { inserts: Number(row!.inserts), p50: Number(row!.p50), p90: Number(row!.p90), max: Number(row!.max), inThousands: Number(row!.in_thousands) };
    },
    cleanup: async () => {
      if (events.kind === "clickhouse") await dropClickHouseDatabase(events);
      fs.rmSync(chdbDir, { recursive: true, force: true });
      await database.drop();
    },
  };
}

async function run(setup: Setup) {
  // Set up and measure the ceiling with the database to ourselves, then hand it to the server.
  let db = await setup.open();
  await migrate(db.sql);
  const { project_api_key: token, project_id: projectId, personal_api_key: personalKey } = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
  const insertCeiling = PARTS.has("batch") ? await ceiling(db, projectId) : null;
  await db.close();

  const bare = new Map<number, WrkResult>();
  if (PARTS.has("capture")) for (const connections of CAPTURE_CONNECTIONS) bare.set(connections, await bareNode(captureBody(token), connections));
  const server = await startServer(setup.env);
  let acknowledged = 0;
  /** When each measured phase ran, for the store's insert sizes. */
  const phases: { label: string; from: Date; to: Date }[] = [];
  const measure = async (url: string, body: string, eventsPerRequest: number, connections: number = CONNECTIONS, label = "") => {
    const from = new Date();
    const result = await wrk(url, body, connections);
    phases.push({ label: label || `${new URL(url).pathname} ${eventsPerRequest} event${eventsPerRequest === 1 ? "" : "s"}, ${connections} conns`, from, to: new Date() });
    acknowledged += (result.requests - result.non2xx) * eventsPerRequest;
    return result;
  };
  let batch: WrkResult | null = null;
  const transformations: { none: Phase[]; five: Phase[] } = { none: [], five: [] };
  const capture = new Map<number, WrkResult>();
  try {
    if (PARTS.has("batch")) batch = await measure(`${server.url}/batch/`, batchBody(token, 100), 100);
    if (PARTS.has("capture")) {
      for (const connections of CAPTURE_CONNECTIONS) capture.set(connections, await measure(`${server.url}/capture/`, captureBody(token), 1, connections));
    }
    if (PARTS.has("transformations")) {
      // Alternating rounds, so that warm-up, table growth and the machine's mood fall on both sides.
      const enable = await fiveTransformations(server.url, projectId, personalKey);
      const body = browserPageviewBatchBody(token, 100);
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of ["none", "five"] as const) {
          await enable(side === "five");
          const serverCpu = cpuSeconds(server.child.pid!);
          const databaseCpu = postgresCpuSeconds();
          const result = await measure(`${server.url}/batch/`, body, 100, CONNECTIONS, `/batch/ posthog-js events, ${side === "none" ? "no" : "5"} transformations`);
          const events = (result.requests - result.non2xx) * 100;
          transformations[side].push({
            result,
            eventsPerSecond: result.requestsPerSecond * 100,
            serverCpuPerEvent: ((cpuSeconds(server.child.pid!) - serverCpu) / events) * 1e6,
            databaseCpuPerEvent: setup.env.DATABASE_URL ? (postgresCpuSince(databaseCpu) / events) * 1e6 : Number.NaN,
          });
        }
      }
    }
  } finally {
    await stop(server.child);
  }
  const n = await setup.stored();
  const insertSizes = [];
  if (setup.insertSizes) for (const phase of phases) insertSizes.push({ phase, sizes: await setup.insertSizes(projectId, phase.from, phase.to) });
  await setup.cleanup();

  console.log(`\n${setup.label} (${DURATION} each)`);
  if (batch && insertCeiling !== null) {
    const eventsPerSecond = batch.requestsPerSecond * 100;
    console.log(`  ${setup.insertSizes ? "store.insert ceiling (1,000 rows)" : "raw INSERT ceiling              "} ${Math.round(insertCeiling).toString().padStart(8)} rows/s`);
    console.log(`  /batch/ (100 events, ${CONNECTIONS} conns)   ${Math.round(eventsPerSecond).toString().padStart(8)} events/s   ${(eventsPerSecond / insertCeiling).toFixed(2)} of ceiling   p50 ${batch.p50}  p99 ${batch.p99}   non-2xx ${batch.non2xx}`);
  }
  if (transformations.five.length > 0) {
    const cpu = (value: number) => (Number.isNaN(value) ? "" : `${Math.round(value)} µs`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ["none", "five"] as const) {
        const { result, eventsPerSecond, serverCpuPerEvent, databaseCpuPerEvent } = transformations[side][round]!;
        const label = side === "none" ? "posthog-js events, none " : "the same, 5 transforms  ";
        console.log(`  /batch/ ${label}  ${Math.round(eventsPerSecond).toString().padStart(8)} events/s   CPU per event: server ${cpu(serverCpuPerEvent)}${Number.isNaN(databaseCpuPerEvent) ? "" : `, PostgreSQL ${cpu(databaseCpuPerEvent)}`}   p50 ${result.p50}  p99 ${result.p99}   non-2xx ${result.non2xx}`);
      }
    }
    const mean = (phases: Phase[]) => phases.reduce((sum, phase) => sum + phase.eventsPerSecond, 0) / phases.length;
    console.log(`  transformation ratio (five / none, mean of ${ROUNDS} rounds): ${(mean(transformations.five) / mean(transformations.none)).toFixed(2)} (goal ≥ 0.80)`);
  }
  for (const [connections, c] of capture) {
    const b = bare.get(connections)!;
    const label = `${connections} conns`.padEnd(9);
    console.log(`  bare node:http (${label})      ${Math.round(b.requestsPerSecond).toString().padStart(8)} req/s      p50 ${b.p50}  p99 ${b.p99}`);
    console.log(`  /capture/ 1 event (${label})   ${Math.round(c.requestsPerSecond).toString().padStart(8)} req/s      ${(c.requestsPerSecond / b.requestsPerSecond).toFixed(2)} of bare    p50 ${c.p50}  p99 ${c.p99}   non-2xx ${c.non2xx}`);
  }
  for (const { phase, sizes } of insertSizes) {
    console.log(
      `  rows per insert, ${phase.label.padEnd(42)} ${String(sizes.inserts).padStart(7)} inserts   p50 ${sizes.p50}  p90 ${sizes.p90}  max ${sizes.max}   ${(sizes.inThousands * 100).toFixed(0)}% of rows in inserts of ≥ 1,000`,
    );
  }
  console.log(`  events acknowledged / stored     ${acknowledged} / ${n}${n >= acknowledged ? "" : "   MISSING EVENTS"}`);
}

if (!fs.existsSync(path.join(ROOT, "dist/server.mjs"))) execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
if (values.db === "both" || values.db === "pglite") await run(pgliteSetup());
if (values.db === "both" || values.db === "postgres") await run(await postgresSetup());
if (values.db === "clickhouse") await run(await clickHouseSetup());
