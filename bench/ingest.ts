/**
 * Ingestion throughput of the real server (`dist/server.mjs`) on each database, with wrk:
 *   - /batch/ with 100 events a request, 16 connections: events/s, beside the raw
 *     multi-row INSERT ceiling of the same database measured in the same run;
 *   - /capture/ with one event a request: requests/s, beside a bare node:http server
 *     answering the same request, at 16 connections and at saturation (64);
 *   - p50/p99 latency of both;
 *   - /batch/ with five enabled transformations (issue 8) beside /batch/ with none measured
 *     right before it (same table size, same machine load), both with posthog-js-sized
 *     pageviews: the ratio.
 *
 *   npm run bench:ingest [-- --duration 30 --connections 16 --db both|pglite|postgres]
 *
 * Needs wrk (apt-get install wrk) and a build (npm run build).
 */
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
import { createEmptyPostgresDatabase } from "@/server/db/testing";
import { makeEvents, rawInsert, timedInsert } from "./lib/raw-insert";
import { startServer, stop } from "./lib/server-process";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "30" },
    connections: { type: "string", default: "16" },
    "capture-connections": { type: "string", default: "16,64" },
    db: { type: "string", default: "both" },
  },
});
const DURATION = `${Number(values.duration)}s`;
const CONNECTIONS = Number(values.connections);
const CAPTURE_CONNECTIONS = values["capture-connections"].split(",").map(Number);
const ROOT = path.resolve(import.meta.dirname, "..");

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
 * Five enabled transformation configs, made through the REST API as a user would (the
 * server holds the database). Each really works on the bench events (drop-events checks
 * every name and drops none, so the stored counts stay comparable).
 */
async function enableFiveTransformations(url: string, projectId: number, personalKey: string): Promise<void> {
  const plugins = (await (await fetch(`${url}/api/plugins/`, { headers: { authorization: `Bearer ${personalKey}` } })).json()) as { results: { id: number; key: string }[] };
  const id = (key: string) => plugins.results.find((plugin) => plugin.key === key)!.id;
  const configs = [
    { plugin: id("drop-events"), config: { events: ["$autocapture"], properties: [{ key: "$browser", value: "Netscape" }] } },
    { plugin: id("property-filter"), config: { properties: ["$lib"] } },
    { plugin: id("url-parser"), config: {} },
    { plugin: id("pii"), config: { properties: ["$browser"], salt: "bench" } },
    { plugin: id("rename"), config: { property_case: "snake_case", keep_posthog_names: false } },
  ];
  for (const [order, body] of configs.entries()) {
    const response = await fetch(`${url}/api/environments/${projectId}/pipeline_transformation_configs/`, {
      method: "POST",
      headers: { authorization: `Bearer ${personalKey}`, "content-type": "application/json" },
      body: JSON.stringify({ ...body, order, enabled: true }),
    });
    if (response.status !== 201) throw new Error(`creating a transformation config failed: ${response.status} ${await response.text()}`);
  }
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
  const write = rawInsert(db);
  await write(makeEvents(projectId, 1_000));
  // Batches of 1,000 rows, as bench/db-insert.ts measures it.
  return (await timedInsert(makeEvents(projectId, 100_000), 1_000, write)).rate;
}

interface Setup {
  label: string;
  env: Record<string, string>;
  open: () => Promise<Database>;
  cleanup: () => Promise<void>;
}

function pgliteSetup(): Setup {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-ingest-"));
  return {
    label: "embedded PostgreSQL (PGlite, on disk)",
    env: { DATA_DIR: dataDir },
    open: () => openDatabase({ kind: "pglite", dataDir }),
    cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function postgresSetup(): Promise<Setup> {
  const database = await createEmptyPostgresDatabase();
  return {
    label: "PostgreSQL server",
    env: { DATABASE_URL: database.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-secret-")) },
    open: () => openDatabase({ kind: "postgres", url: database.url }),
    cleanup: database.drop,
  };
}

async function run(setup: Setup) {
  // Set up and measure the ceiling with the database to ourselves, then hand it to the server.
  let db = await setup.open();
  await migrate(db.sql);
  const { project_api_key: token, project_id: projectId, personal_api_key: personalKey } = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
  const insertCeiling = await ceiling(db, projectId);
  await db.close();

  const bare = new Map<number, WrkResult>();
  for (const connections of CAPTURE_CONNECTIONS) bare.set(connections, await bareNode(captureBody(token), connections));
  const server = await startServer(setup.env);
  let batch: WrkResult;
  let untransformed: WrkResult;
  let transformed: WrkResult;
  const capture = new Map<number, WrkResult>();
  try {
    batch = await wrk(`${server.url}/batch/`, batchBody(token, 100));
    for (const connections of CAPTURE_CONNECTIONS) capture.set(connections, await wrk(`${server.url}/capture/`, captureBody(token), connections));
    untransformed = await wrk(`${server.url}/batch/`, browserPageviewBatchBody(token, 100));
    await enableFiveTransformations(server.url, projectId, personalKey);
    transformed = await wrk(`${server.url}/batch/`, browserPageviewBatchBody(token, 100));
  } finally {
    await stop(server.child);
  }
  db = await setup.open();
  const n = (await db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE distinct_id LIKE 'bench-user-%'"))[0]!.n;
  await db.close();
  await setup.cleanup();

  const eventsPerSecond = batch.requestsPerSecond * 100;
  console.log(`\n${setup.label} (${DURATION} each)`);
  console.log(`  raw INSERT ceiling               ${Math.round(insertCeiling).toString().padStart(8)} rows/s`);
  console.log(`  /batch/ (100 events, ${CONNECTIONS} conns)   ${Math.round(eventsPerSecond).toString().padStart(8)} events/s   ${(eventsPerSecond / insertCeiling).toFixed(2)} of ceiling   p50 ${batch.p50}  p99 ${batch.p99}   non-2xx ${batch.non2xx}`);
  const untransformedPerSecond = untransformed.requestsPerSecond * 100;
  const transformedPerSecond = transformed.requestsPerSecond * 100;
  console.log(`  /batch/ posthog-js events, none   ${Math.round(untransformedPerSecond).toString().padStart(8)} events/s   p50 ${untransformed.p50}  p99 ${untransformed.p99}   non-2xx ${untransformed.non2xx}`);
  console.log(`  /batch/ the same, 5 transforms   ${Math.round(transformedPerSecond).toString().padStart(8)} events/s   ${(transformedPerSecond / untransformedPerSecond).toFixed(2)} of none (goal ≥ 0.80)   p50 ${transformed.p50}  p99 ${transformed.p99}   non-2xx ${transformed.non2xx}`);
  let acknowledged = (batch.requests - batch.non2xx + untransformed.requests - untransformed.non2xx + transformed.requests - transformed.non2xx) * 100;
  for (const connections of CAPTURE_CONNECTIONS) {
    const b = bare.get(connections)!;
    const c = capture.get(connections)!;
    acknowledged += c.requests - c.non2xx;
    const label = `${connections} conns`.padEnd(9);
    console.log(`  bare node:http (${label})      ${Math.round(b.requestsPerSecond).toString().padStart(8)} req/s      p50 ${b.p50}  p99 ${b.p99}`);
    console.log(`  /capture/ 1 event (${label})   ${Math.round(c.requestsPerSecond).toString().padStart(8)} req/s      ${(c.requestsPerSecond / b.requestsPerSecond).toFixed(2)} of bare    p50 ${c.p50}  p99 ${c.p99}   non-2xx ${c.non2xx}`);
  }
  console.log(`  events acknowledged / stored     ${acknowledged} / ${n}${n >= acknowledged ? "" : "   MISSING EVENTS"}`);
}

if (!fs.existsSync(path.join(ROOT, "dist/server.mjs"))) execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
if (values.db === "both" || values.db === "pglite") await run(pgliteSetup());
if (values.db === "both" || values.db === "postgres") await run(await postgresSetup());
