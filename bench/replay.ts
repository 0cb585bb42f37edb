/**
 * Session replay (issue 35), in process on a throwaway database (PGlite by default,
 * BURROW_TEST_DB=postgres for the server), through the real `/s/` handler (decode, parse,
 * compress, commit, then the 200):
 *
 *   - /s/ MB/s accepted with durable acknowledgement: posthog-js-like gzip bodies of ~0.5 MB of
 *     rrweb JSON, `--concurrency` requests in flight, wire and JSON MB/s;
 *   - stored bytes per recorded minute of a realistic page (a 10-minute session: a full
 *     snapshot of ~300 KB, then mutations, mouse moves, scrolls, inputs; compare ~530 KB
 *     gzipped per minute reported for rrweb on a mid-size page);
 *   - the list of `--recordings` recordings (first page, newest first) and a 10-minute
 *     recording's snapshots (sources, then every block): ms.
 *
 *   npx tsx bench/replay.ts [--seconds 10 --concurrency 4 --recordings 10000]
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { handleSnapshotsRoute } from "@/server/http/sdk/recordings";
import { testContext } from "@/test-support/context";
import { listRecordings, recordingSnapshots, recordingStore, updateRecordingSettings } from "@/server/recordings/service";
import { mergeChunk, parseSnapshotRequest } from "@/server/recordings/ingest";
import { recordingListInput } from "@/server/recordings/contract";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "10" }, concurrency: { type: "string", default: "4" }, recordings: { type: "string", default: "10000" } } });
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const RECORDINGS = Number(values.recordings);

/** A DOM of `n` list items with text and attributes, as rrweb serialises it. */
function fullSnapshot(n: number) {
  let id = 10;
  const items = Array.from({ length: n }, (_, i) => ({
    type: 2,
    tagName: "li",
    attributes: { class: `product product-${i % 7}`, "data-sku": `SKU-${100000 + i}` },
    childNodes: [{ type: 3, textContent: `Product ${i}: a sturdy thing that does what it says, ${(i * 7.31).toFixed(2)} EUR`, id: id++ }],
    id: id++,
  }));
  return { node: { type: 0, childNodes: [{ type: 2, tagName: "html", attributes: {}, childNodes: [{ type: 2, tagName: "ul", attributes: {}, childNodes: items, id: 3 }], id: 2 }], id: 1 }, initialOffset: { top: 0, left: 0 } };
}

/** One second of activity on the page at `t`: mouse moves, a scroll, a mutation, sometimes an input or click. */
function secondOf(t: number, second: number) {
  const events: Record<string, unknown>[] = [
    { type: 3, data: { source: 1, positions: Array.from({ length: 6 }, (_, i) => ({ x: 100 + ((second * 13 + i * 7) % 900), y: 200 + ((second * 11 + i * 5) % 500), id: 3, timeOffset: -i * 50 })) }, timestamp: t },
    { type: 3, data: { source: 3, id: 1, x: 0, y: (second * 40) % 4000 }, timestamp: t + 300 },
    { type: 3, data: { source: 0, texts: [{ id: 10 + (second % 500), value: `Product ${second}: updated price ${(second * 1.07).toFixed(2)} EUR` }], attributes: [], removes: [], adds: [] }, timestamp: t + 500 },
  ];
  if (second % 5 === 0) events.push({ type: 3, data: { source: 2, type: 2, id: 3, x: 300, y: 300 }, timestamp: t + 700 });
  if (second % 7 === 0) events.push({ type: 3, data: { source: 5, text: "*".repeat(second % 20), isChecked: false, id: 5 }, timestamp: t + 800 });
  return events;
}

const body = (token: string, sessionId: string, items: Record<string, unknown>[]) =>
  gzipSync(JSON.stringify([{ event: "$snapshot", properties: { $snapshot_data: items, $session_id: sessionId, $window_id: sessionId, distinct_id: `visitor-${sessionId}`, token, $lib: "web" } }]));

async function send(payload: Buffer): Promise<void> {
  const response = await handleSnapshotsRoute(new Request("http://bench/s/", { method: "POST", headers: { "content-type": "text/plain" }, body: new Uint8Array(payload) }));
  if (response.status !== 200) throw new Error(`/s/ answered ${response.status}: ${await response.text()}`);
}

const db = await createTestDatabase();
registerDb(db);
try {
  const owner = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password-1" });
  await updateRecordingSettings(db, owner.project_id, { session_recording_opt_in: true, session_recording_storage_budget_bytes: 1024 ** 4 });
  const token = owner.project_api_key;

  // 1. Throughput: ~0.5 MB JSON bodies (5 s of activity plus a mid-size full snapshot every 4th).
  const full = fullSnapshot(1500);
  const bodies: { gz: Buffer; json: number }[] = [];
  for (let i = 0; i < 32; i++) {
    const t = Date.now() - 3_600_000 + i * 5000;
    const items = [...(i % 4 === 0 ? [{ type: 4, data: { href: "https://shop.example/", width: 1280, height: 800 }, timestamp: t }, { type: 2, data: full, timestamp: t + 1 }] : []), ...Array.from({ length: 5 }, (_, s) => secondOf(t + s * 1000, i * 5 + s)).flat()];
    const sessionId = `tp-${i % 8}`;
    const gz = body(token, sessionId, items);
    bodies.push({ gz, json: Buffer.byteLength(JSON.stringify(items)) });
  }
  let wire = 0;
  let json = 0;
  let requests = 0;
  const until = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let i = worker; performance.now() < until; i += CONCURRENCY) {
        const { gz, json: size } = bodies[i % bodies.length]!;
        await send(gz);
        wire += gz.length;
        json += size;
        requests++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  console.log(
    `${testStoresName}: /s/ ${requests} requests in ${elapsed.toFixed(1)} s at ${CONCURRENCY} in flight: ${(wire / 1e6 / elapsed).toFixed(2)} MB/s on the wire, ${(json / 1e6 / elapsed).toFixed(2)} MB/s of rrweb JSON, ${(requests / elapsed).toFixed(0)} req/s (each acknowledged after its commit)`,
  );

  // 2. Bytes per recorded minute: a 10-minute session sent as posthog-js would (a flush every 2 s).
  const long = `long-${randomUUID()}`;
  const t0 = Date.now() - 30 * 60_000;
  await send(body(token, long, [{ type: 4, data: { href: "https://shop.example/", width: 1280, height: 800 }, timestamp: t0 }, { type: 2, data: full, timestamp: t0 + 1 }]));
  for (let s = 0; s < 600; s += 2) await send(body(token, long, [...secondOf(t0 + s * 1000 + 10, s), ...secondOf(t0 + (s + 1) * 1000 + 10, s + 1)]));
  const row = (await recordingStore(db).get(owner.project_id, long))!;
  const minutes = (row.endTime.getTime() - row.startTime.getTime()) / 60_000;
  console.log(`${testStoresName}: a 10-minute recording (full snapshot ${(Buffer.byteLength(JSON.stringify(full)) / 1000).toFixed(0)} KB JSON, ${row.chunkCount} chunks) stores ${(row.sizeBytes / 1000).toFixed(0)} KB: ${(row.sizeBytes / minutes / 1000).toFixed(1)} KB per recorded minute`);

  // 3. The list of many recordings and a 10-minute recording's snapshots.
  const store = recordingStore(db);
  const small = parseSnapshotRequest([{ event: "$snapshot", properties: { $snapshot_data: secondOf(Date.now() - 86_400_000, 1), $session_id: "x", distinct_id: "x", token } }], null).chunks[0]!;
  for (let i = 0; i < RECORDINGS; i += 500) {
    const chunks = Array.from({ length: Math.min(500, RECORDINGS - i) }, (_, j) => ({ ...small, sessionId: `many-${i + j}`, windowId: `many-${i + j}`, distinctId: `v-${(i + j) % 997}`, firstTimestamp: small.firstTimestamp - (i + j) * 1000, lastTimestamp: small.lastTimestamp - (i + j) * 1000 + 60_000 }));
    await store.writeChunks(owner.project_id, chunks, mergeChunk);
  }
  const ctx = await testContext(db, (await db.prisma.user.findFirstOrThrow()).id, owner.project_id);
  const time = async <T>(fn: () => Promise<T>) => {
    const times: number[] = [];
    let result!: T;
    for (let i = 0; i < 5; i++) {
      const at = performance.now();
      result = await fn();
      times.push(performance.now() - at);
    }
    times.sort((a, b) => a - b);
    return { ms: times[2]!, result };
  };
  const listed = await time(() => listRecordings(ctx, { date_from: "-30d", operand: "AND", order: "start_time", order_direction: "DESC", limit: 50, offset: 0 }));
  const filtered = await time(() => listRecordings(ctx, { date_from: "-30d", operand: "AND", order: "start_time", order_direction: "DESC", limit: 50, offset: 0, having_predicates: [{ key: "duration", operator: "gt", value: 30 }] }));
  // "Events performed": one $pageview per listed session, on one of 20 pages; the sessions that viewed one page (500) asked of the event store.
  for (let i = 0; i < RECORDINGS; i += 2_000) {
    const batch = Array.from({ length: Math.min(2_000, RECORDINGS - i) }, (_, j) => ({
      uuid: randomUUID(),
      projectId: owner.project_id,
      event: "$pageview",
      distinctId: `v-${(i + j) % 997}`,
      properties: { $session_id: `many-${i + j}`, $pathname: `/page-${(i + j) % 20}` },
      timestamp: new Date(small.firstTimestamp - (i + j) * 1000 + 5_000),
    }));
    await db.events.insert(batch);
  }
  const page7 = recordingListInput.parse({ date_from: "-30d", limit: 50, events: [{ id: "$pageview", type: "events", properties: [{ key: "$pathname", value: "/page-7", operator: "exact", type: "event" }] }] });
  const performed = await time(() => listRecordings(ctx, page7));
  const snapshots = await time(async () => {
    const sources = await recordingSnapshots(ctx, long, {});
    const n = sources.kind === "sources" ? sources.sources.length : 0;
    let bytes = 0;
    for (let start = 0; start < n; start += 100) {
      const blocks = await recordingSnapshots(ctx, long, { source: "blob_v2", start_blob_key: start, end_blob_key: Math.min(n - 1, start + 99) });
      if (blocks.kind === "blocks") bytes += blocks.jsonl.length;
    }
    return bytes;
  });
  console.log(
    `${testStoresName}: list of ${RECORDINGS + 9} recordings, first page of 50: ${listed.ms.toFixed(0)} ms (with a duration filter ${filtered.ms.toFixed(0)} ms; with "events performed", $pageview of one of 20 pages, ${performed.result.results.length} shown: ${performed.ms.toFixed(0)} ms); the 10-minute recording's snapshots (${(snapshots.result / 1e6).toFixed(1)} MB JSONL): ${snapshots.ms.toFixed(0)} ms (medians of 5)`,
  );
} finally {
  await closeDb();
}
