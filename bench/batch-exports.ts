/**
 * A daily batch export of N events (default 1M) to a local S3-compatible server (s3rver on
 * loopback, checking signatures): the run's time, rows, bytes written (gzip JSON Lines, or
 * snappy Parquet with --format Parquet) and the process's peak memory, and a check that the
 * file holds every event once. The database
 * is a throwaway one as in the tests: PGlite by default, BURROW_TEST_DB=postgres for the server.
 * The events are all ingested within the bench's few minutes, the hardest case for the
 * ingestion-time slices (every slice of the day is dense). With --persons N (at most 5000,
 * the bench's distinct ids) the events of the first N distinct ids have a person (a few
 * properties each), so each page also reads its persons' properties.
 *
 *   npx tsx bench/batch-exports.ts [--events 1000000] [--format JSONLines|Parquet] [--persons 5000]
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { parquetReadObjects } from "hyparquet";
import { runBatchExportsPass, runnerOptions } from "@/server/batch-exports/service";
import type { StoredEventInput } from "@/server/db/events";
import { sealSecret } from "@/server/outbound/service";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { startTestS3 } from "@/test-support/s3";

const { values } = parseArgs({ options: { events: { type: "string", default: "1000000" }, format: { type: "string", default: "JSONLines" }, persons: { type: "string", default: "0" } } });
const EVENTS = Number(values.events);
const DISTINCT_IDS = 5000;
const PERSONS = Math.min(DISTINCT_IDS, Number(values.persons));
const PARQUET = values.format === "Parquet";
const CHUNK = 10_000;

process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
process.env.AUTH_SECRET ??= "bench-secret-bench-secret-bench-secret";
const db = await createTestDatabase();
const s3 = await startTestS3("bench");
try {
  const project = await db.prisma.project.create({ data: { organization: { create: { name: "Bench" } }, name: "Bench", apiToken: `phc_bench_${randomUUID()}` } });
  const day = Date.parse(new Date().toISOString().slice(0, 10));
  const personUuids = Array.from({ length: PERSONS }, () => randomUUID());
  await db.prisma.person.createMany({
    data: personUuids.map((uuid, i) => ({ uuid, projectId: project.id, properties: { email: `user-${i}@shop.example`, plan: i % 3 ? "free" : "pro", $initial_browser: "Chrome", signups: i } })),
  });
  const insertStarted = performance.now();
  for (let n = 0; n < EVENTS; n += CHUNK) {
    const batch: StoredEventInput[] = Array.from({ length: Math.min(CHUNK, EVENTS - n) }, (_, i) => ({
      uuid: randomUUID(),
      projectId: project.id,
      event: i % 3 ? "$pageview" : "purchase",
      distinctId: `user-${(n + i) % DISTINCT_IDS}`,
      properties: { $current_url: `https://shop.example/${i % 50}`, $browser: i % 2 ? "Chrome" : "Firefox", amount: i, $session_id: `s-${(n + i) % 20000}` },
      timestamp: new Date(day + ((n + i) % 86_400) * 1000),
      personId: personUuids[(n + i) % DISTINCT_IDS] ?? null,
    }));
    await db.events.insert(batch);
  }
  const insertSeconds = (performance.now() - insertStarted) / 1000;
  // What the server's statistics upkeep (db/statistics.ts) has done by the time a day's export runs.
  await db.sql.exec("ANALYZE events");
  const exportId = randomUUID();
  await db.prisma.batchExport.create({
    data: {
      id: exportId,
      projectId: project.id,
      name: "bench",
      destinationType: "S3",
      interval: "day",
      // Scheduled already: the bench's one run is today's interval, made below.
      scheduledUntil: new Date(day + 86_400_000),
      destinationConfig: { bucket_name: "bench", region: "us-east-1", prefix: "bench/{year}-{month}-{day}", aws_access_key_id: s3.accessKeyId, aws_secret_access_key: sealSecret(s3.secretAccessKey), endpoint_url: s3.endpoint, ...(PARQUET ? { file_format: "Parquet", compression: "snappy" } : { compression: "gzip" }) },
    },
  });
  await db.prisma.batchExportRun.create({ data: { id: randomUUID(), batchExportId: exportId, dataIntervalStart: new Date(day), dataIntervalEnd: new Date(day + 86_400_000) } });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const started = performance.now();
  const pass = await runBatchExportsPass(db, runnerOptions(db, { timeoutMs: 600_000 }));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const [run] = await db.prisma.batchExportRun.findMany({ where: { batchExportId: exportId } });
  if (pass.ran !== 1 || run?.status !== "Completed") throw new Error(`the run did not complete: ${run?.status} ${run?.latestError}`);
  const [key, ...others] = await s3.keys("bench/");
  const file = await s3.object(key!);
  const lines = PARQUET
    ? (await parquetReadObjects({ file: file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer, columns: ["uuid"] })).map((row) => JSON.stringify({ uuid: row.uuid }))
    : gunzipSync(file).toString("utf8").trimEnd().split("\n");
  const uuids = new Set(lines.map((line) => (JSON.parse(line) as { uuid: string }).uuid));
  console.log(
    `${testStoresName}: inserted ${EVENTS} events (${PERSONS} persons) in ${insertSeconds.toFixed(1)} s; daily export to S3 (${key}): ${run.recordsCompleted} rows, ${(Number(run.bytesExported) / 1e6).toFixed(1)} MB ${PARQUET ? "snappy Parquet" : "gzip JSON Lines"} ` +
      `${PARQUET ? "" : `(${(Buffer.byteLength(lines.join("\n")) / 1e6).toFixed(0)} MB uncompressed) `}in ${seconds.toFixed(1)} s (${Math.round(run.recordsCompleted / seconds)} rows/s), peak RSS ${(peakRss / 1e6).toFixed(0)} MB`,
  );
  if (others.length > 0 || uuids.size !== EVENTS || lines.length !== EVENTS || run.recordsCompleted !== EVENTS) throw new Error(`expected one file of ${EVENTS} distinct events, got ${lines.length} lines, ${uuids.size} uuids, ${others.length + 1} files`);
} finally {
  await s3.close();
  await db.close();
}
