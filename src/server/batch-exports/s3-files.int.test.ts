/**
 * S3 files end to end against s3rver on loopback (which checks signatures and logs each
 * request here): a file larger than a part goes as a multipart upload of 5 MiB parts while
 * the run holds about one part in memory; `max_file_size_mb` splits an interval into numbered
 * JSON Lines or Parquet files (each complete, their union the interval's events once) with
 * PostHog's manifest, and a re-run that writes fewer files deletes the others; a stopped run
 * aborts its upload and leaves no object; zstd and lz4 files are read back with other
 * implementations than the writer's (fzstd and lz4-napi for JSON Lines, hyparquet-compressors'
 * for Parquet pages), gzip and brotli with node:zlib. Events are stored through the event store, then their ingestion times
 * set by hand so that intervals are known (the PostgreSQL event store's column).
 */
import { createHash, randomBytes } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { decompress as zstdDecompress } from "fzstd";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors as pureDecompressors } from "hyparquet-compressors";
import { decompressFrameSync as lz4Decompress } from "lz4-napi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testEventStoreKind } from "@/test-support/db";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { startTestS3, type TestS3 } from "@/test-support/s3";
import { executeRun, runBatchExportsPass, runnerOptions } from "./runner";
import { MIN_PART_BYTES } from "./s3";
import { claimRun } from "./store";

let db: Database;
let projectId: number;
let apiKey: string;
let s3: TestS3;

const list = restRoute("projects", "batch_exports");
const one = restRoute("projects", "batch_exports/:id");
const backfills = restRoute("projects", "batch_exports/:id/backfills");
const runs = restRoute("projects", "batch_exports/:id/runs");
const call = projectApiCaller(() => ({ projectId, apiKey }));

const H = (hour: number, minute = 0) => new Date(Date.UTC(2026, 1, 3, hour, minute));
const stamp = (date: Date) => date.toISOString().replace(".000Z", "+00:00");
const interval = (hour: number) => `${stamp(H(hour))}-${stamp(H(hour + 1))}`;
const MiB = 1024 * 1024;
/** Small pages, so that a large interval is many pages (as a real one is many 10,000-row pages). */
const options = () => runnerOptions(db, { backoffMs: 1, maxAttempts: 2, pageRows: 50, timeoutMs: 30_000, s3PartBytes: MIN_PART_BYTES });
const drain = () => runBatchExportsPass(db, { ...options(), settleMs: 10 * 365 * 86_400_000 });

/** Hours of 3 February: a large interval, a middling one, and a few ordinary events. */
const BIG = 1;
const MIDDLE = 3;
const SMALL = 5;
const uuidsOf = new Map<number, string[]>();

/** Stores `count` events ingested in `hour`, each with `payload` characters of incompressible text; answers their uuids. */
async function storeEvents(hour: number, count: number, payload: number): Promise<string[]> {
  const uuids: string[] = [];
  for (let start = 0; start < count; start += 200) {
    const batch = Array.from({ length: Math.min(200, count - start) }, (_, i) => {
      const n = start + i;
      const uuid = `0190c000-0000-7000-8${String(hour).padStart(3, "0")}-${String(n).padStart(12, "0")}`;
      uuids.push(uuid);
      return {
        uuid,
        projectId,
        event: n % 3 === 0 ? "$pageview" : "clicked",
        distinctId: `visitor-${n % 17}`,
        properties: { n, hour, nested: { list: [n, "é"] }, ...(payload ? { blob: randomBytes((payload * 3) / 4).toString("base64") } : {}) },
        timestamp: H(hour, n % 60),
      };
    });
    await db.events.insert(batch);
  }
  await db.sql.query(`UPDATE events SET created_at = $2 WHERE project_id = $1 AND uuid = ANY($3::uuid[])`, [projectId, H(hour, 30), uuids]);
  uuidsOf.set(hour, uuids);
  return uuids;
}

function s3Destination(prefix: string, extra: object = {}) {
  return {
    type: "S3",
    config: { bucket_name: s3.bucket, region: "us-east-1", prefix, aws_access_key_id: s3.accessKeyId, aws_secret_access_key: s3.secretAccessKey, endpoint_url: s3.endpoint, ...extra },
  };
}

async function createExport(destination: object): Promise<string> {
  const response = await call(list.POST, "POST", "batch_exports/", {}, { name: "files", interval: "hour", destination });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
}

type Run = { status: string; records_completed: number; bytes_exported: number; latest_error: string | null; backfill: string | null };

/** Backfills one hour and runs it; answers its run. */
async function exportHour(id: string, hour: number): Promise<Run> {
  const made = await call(backfills.POST, "POST", `batch_exports/${id}/backfills/`, { id }, { start_at: H(hour).toISOString(), end_at: H(hour + 1).toISOString() });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await drain();
  const done = await call(runs.GET, "GET", `batch_exports/${id}/runs/`, { id });
  const run = (done.body.results as Run[]).find((r) => r.backfill === made.body.id)!;
  expect(run.status, run.latest_error ?? "").toBe("Completed");
  return run;
}

const jsonLines = (text: Buffer) =>
  text
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { uuid: string; properties: { n: number; hour: number; nested: object } });
const sorted = (values: string[]) => [...values].sort();
const arrayBuffer = (file: Buffer) => file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
const parquetDecompressors = {
  ZSTD: pureDecompressors.ZSTD,
  // An empty page (a column of nulls) is the one-byte block 0x00, as liblz4 writes it, which this decoder does not take.
  LZ4_RAW: (input: Uint8Array, length: number) => (length === 0 ? new Uint8Array(0) : pureDecompressors.LZ4_RAW!(input, length)),
};

/** The requests of an upload to keys under `prefix`, by kind. */
function uploadRequests(prefix: string) {
  const sent = s3.requests.filter((r) => r.url.startsWith(`/${s3.bucket}/${prefix}`));
  return {
    puts: sent.filter((r) => r.method === "PUT" && !r.url.includes("partNumber=")),
    creates: sent.filter((r) => r.method === "POST" && /[?&]uploads(=|&|$)/.test(r.url)),
    parts: sent.filter((r) => r.method === "PUT" && r.url.includes("partNumber=")),
    completes: sent.filter((r) => r.method === "POST" && r.url.includes("uploadId=")),
    aborts: sent.filter((r) => r.method === "DELETE" && r.url.includes("uploadId=")),
    deletes: sent.filter((r) => r.method === "DELETE" && !r.url.includes("uploadId=")),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "s3-files@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  s3 = await startTestS3("files");
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
  if (testEventStoreKind === "clickhouse") return;
  // About 31 MiB of JSON Lines, 6 MiB and a few kB.
  await storeEvents(BIG, 2_000, 16_000);
  await storeEvents(MIDDLE, 400, 16_000);
  await storeEvents(SMALL, 12, 0);
});

afterAll(async () => {
  await s3?.close();
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  await closeDb();
});

describe.skipIf(testEventStoreKind === "clickhouse")("S3 files", () => {
  it("sends a file larger than a part as a multipart upload of 5 MiB parts, holding about one part in memory; a re-run replaces the same key", async () => {
    const id = await createExport(s3Destination("big"));
    s3.requests.length = 0;
    const first = await exportHour(id, BIG);
    const key = `big/${interval(BIG)}.jsonl`;
    expect(await s3.keys("big/")).toEqual([key]);
    let file = await s3.object(key);
    expect(file.length).toBeGreaterThan(6 * MIN_PART_BYTES);
    expect(first.bytes_exported).toBe(file.length);
    expect(sorted(jsonLines(file).map((row) => row.uuid))).toEqual(sorted(uuidsOf.get(BIG)!));
    const sent = uploadRequests("big/");
    expect(sent.puts).toEqual([]);
    expect(sent.creates).toHaveLength(1);
    expect(sent.parts.map((p) => p.bytes)).toEqual([...Array.from({ length: Math.floor(file.length / MIN_PART_BYTES) }, () => MIN_PART_BYTES), file.length % MIN_PART_BYTES]);
    expect(sent.parts.every((p) => p.status === 200)).toBe(true);
    expect(sent.completes.map((c) => c.status)).toEqual([200]);

    // Again, its memory measured as each request reaches the server, after a full collection:
    // what the sender holds then (the old writer held the whole file until its one PUT). The
    // file read back is let go first, and the baseline taken once the readers' buffers are freed.
    const length = file.length;
    const digest = createHash("sha256").update(file).digest("hex");
    file = Buffer.alloc(0);
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const inUse = () => {
      gc();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    let before = inUse();
    for (let settled = 0; settled < 3; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = inUse();
      settled = now > before - MiB ? settled + 1 : 0;
      before = Math.min(before, now);
    }
    const held: number[] = [];
    s3.onRequest = () => held.push(inUse() - before);
    s3.requests.length = 0;
    try {
      await exportHour(id, BIG);
    } finally {
      s3.onRequest = null;
    }
    const peak = Math.max(...held);
    console.info(`batch export of a ${(length / MiB).toFixed(1)} MiB file in parts of ${MIN_PART_BYTES / MiB} MiB: at its ${held.length} requests the process held ${held.map((bytes) => (bytes / MiB).toFixed(1)).join(", ")} MiB more (heap and Buffers)`);
    // Half the file: well above a part and a page, well below the whole file.
    expect(peak).toBeLessThan(length / 2);
    // The part itself is held while it is sent: the measure sees it.
    expect(peak).toBeGreaterThan(MIN_PART_BYTES);
    expect(uploadRequests("big/").parts.length).toBe(sent.parts.length);
    expect(await s3.keys("big/")).toEqual([key]);
    expect(createHash("sha256").update(await s3.object(key)).digest("hex")).toBe(digest);
  });

  it("aborts the upload of a run that stops halfway: no object, and the run taken again writes the whole file", async () => {
    const id = await createExport(s3Destination("stopped"));
    const made = await call(backfills.POST, "POST", `batch_exports/${id}/backfills/`, { id }, { start_at: H(BIG).toISOString(), end_at: H(BIG + 1).toISOString() });
    expect(made.status).toBe(201);
    s3.requests.length = 0;
    const sql = db.worker.as("batch-exports");
    const claimed = (await claimRun(sql, 60_000))!;
    // 8 pages of 50 rows of 16 kB: more than a part, so the upload is under way.
    let pages = 0;
    await executeRun(db, sql, claimed, options(), () => ++pages >= 8);
    const stopped = uploadRequests("stopped/");
    expect(stopped.creates).toHaveLength(1);
    expect(stopped.parts.length).toBeGreaterThanOrEqual(1);
    expect(stopped.completes).toEqual([]);
    // The abort was sent for that upload (s3rver, lacking the operation, answers 405; S3 drops the parts).
    const uploadIdOf = (url: string) => new URL(url, s3.endpoint).searchParams.get("uploadId");
    expect(stopped.aborts.map((a) => uploadIdOf(a.url))).toEqual([uploadIdOf(stopped.parts[0]!.url)]);
    expect(await s3.keys("stopped/")).toEqual([]);

    await db.sql.query(`UPDATE batch_export_runs SET next_attempt_at = now() - interval '1 second' WHERE id = $1::uuid`, [claimed.id]);
    expect((await drain()).ran).toBe(1);
    const key = `stopped/${interval(BIG)}.jsonl`;
    expect(await s3.keys("stopped/")).toEqual([key]);
    expect(sorted(jsonLines(await s3.object(key)).map((row) => row.uuid))).toEqual(sorted(uuidsOf.get(BIG)!));
  });

  it("splits an interval at max_file_size_mb into numbered JSON Lines and Parquet files with PostHog's manifest; a re-run into fewer files deletes the rest", async () => {
    const expected = sorted(uuidsOf.get(MIDDLE)!);
    for (const [prefix, extra, extension] of [
      ["split-jsonl", {}, "jsonl"],
      ["split-parquet", { file_format: "Parquet", compression: "lz4" }, "parquet.lz4"],
    ] as const) {
      const id = await createExport(s3Destination(prefix, { ...extra, max_file_size_mb: 1 }));
      const read = async (key: string) => {
        const file = await s3.object(key);
        if (extension === "jsonl") return jsonLines(file).map((row) => row.uuid);
        // Each file a whole Parquet file: its own footer.
        expect(Number(parquetMetadata(arrayBuffer(file)).num_rows)).toBeGreaterThan(0);
        return (await parquetReadObjects({ file: arrayBuffer(file), compressors: parquetDecompressors })).map((row) => row.uuid as string);
      };
      const check = async (maxMb: number) => {
        const run = await exportHour(id, MIDDLE);
        const keys = await s3.keys(`${prefix}/`);
        const manifest = `${prefix}/${interval(MIDDLE)}_manifest.json`;
        const files = keys.filter((key) => key !== manifest);
        expect(keys).toContain(manifest);
        expect(JSON.parse((await s3.object(manifest)).toString("utf8"))).toEqual({ files: [...files].sort((a, b) => a.localeCompare(b, "en", { numeric: true })) });
        expect(files.map((key) => key.replace(`${prefix}/${interval(MIDDLE)}-`, "")).sort((a, b) => parseInt(a) - parseInt(b))).toEqual(files.map((_, n) => `${n}.${extension}`));
        let bytes = 0;
        const all: string[] = [];
        for (const key of files) {
          const size = (await s3.object(key)).length;
          bytes += size;
          // A file is closed after the step that took it to the size: a page of 50 rows here (~0.8 MB), or a Parquet row group (at most about the size).
          expect(size, key).toBeLessThan(2 * maxMb * MiB + MiB);
          all.push(...(await read(key)));
        }
        expect(run.bytes_exported).toBe(bytes);
        expect(sorted(all)).toEqual(expected);
        return files;
      };
      const small = await check(1);
      expect(small.length).toBeGreaterThanOrEqual(3);
      // Larger files: fewer of them; the numbers past them are deleted, not left to hold the rows twice.
      const config = { ...s3Destination(prefix, { ...extra, max_file_size_mb: "2" }) };
      const patched = await call(one.PATCH, "PATCH", `batch_exports/${id}/`, { id }, { destination: config });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.destination.config.max_file_size_mb).toBe(2);
      s3.requests.length = 0;
      const large = await check(2);
      expect(large.length).toBeLessThan(small.length);
      expect(uploadRequests(`${prefix}/`).deletes.map((d) => decodeURIComponent(d.url.slice(`/${s3.bucket}/`.length)))).toEqual(small.slice(large.length));
    }
  });

  it("compresses JSON Lines with gzip, brotli, zstd (one frame a file) and lz4 (one LZ4 frame a file), and Parquet pages with ZSTD and LZ4_RAW, each read back by another implementation", async () => {
    const decoders: Record<string, (file: Buffer) => Buffer> = {
      gzip: (file) => gunzipSync(file),
      brotli: (file) => brotliDecompressSync(file),
      zstd: (file) => Buffer.from(zstdDecompress(file)),
      lz4: (file) => lz4Decompress(file),
    };
    const extensions: Record<string, string> = { gzip: "gz", brotli: "br", zstd: "zst", lz4: "lz4" };
    for (const compression of ["gzip", "brotli", "zstd", "lz4"]) {
      const id = await createExport(s3Destination(`lines-${compression}`, { compression }));
      await exportHour(id, SMALL);
      const key = `lines-${compression}/${interval(SMALL)}.jsonl.${extensions[compression]}`;
      expect(await s3.keys(`lines-${compression}/`)).toEqual([key]);
      const rows = jsonLines(decoders[compression]!(await s3.object(key)));
      expect(sorted(rows.map((row) => row.uuid))).toEqual(sorted(uuidsOf.get(SMALL)!));
      for (const row of rows) expect(row.properties).toMatchObject({ hour: SMALL, nested: { list: [row.properties.n, "é"] } });
    }
    // A split zstd file is a whole zstd stream of its own.
    const id = await createExport(s3Destination("lines-zstd-split", { compression: "zstd", max_file_size_mb: 1 }));
    await exportHour(id, MIDDLE);
    const files = (await s3.keys("lines-zstd-split/")).filter((key) => key.endsWith(".jsonl.zst"));
    expect(files.length).toBeGreaterThanOrEqual(2);
    const uuids = (await Promise.all(files.map(async (key) => jsonLines(Buffer.from(zstdDecompress(await s3.object(key)))).map((row) => row.uuid)))).flat();
    expect(sorted(uuids)).toEqual(sorted(uuidsOf.get(MIDDLE)!));

    for (const [compression, codec, extension] of [["zstd", "ZSTD", "zst"], ["lz4", "LZ4_RAW", "lz4"]] as const) {
      const parquet = await createExport(s3Destination(`parquet-${compression}`, { file_format: "Parquet", compression }));
      await exportHour(parquet, SMALL);
      const file = arrayBuffer(await s3.object(`parquet-${compression}/${interval(SMALL)}.parquet.${extension}`));
      expect(parquetMetadata(file).row_groups[0]!.columns[0]!.meta_data!.codec).toBe(codec);
      const rows = await parquetReadObjects({ file, compressors: parquetDecompressors });
      expect(sorted(rows.map((row) => row.uuid as string))).toEqual(sorted(uuidsOf.get(SMALL)!));
      expect(JSON.parse(rows[0]!.properties as string)).toMatchObject({ hour: SMALL });
    }
  });

  it("refuses a max_file_size_mb that is not a whole number of MiB from 1 up, with a 400 naming it", async () => {
    for (const bad of [0, -1, 1.5, "abc", 2_000_000, true]) {
      const response = await call(list.POST, "POST", "batch_exports/", {}, { name: "x", interval: "hour", destination: s3Destination("", { max_file_size_mb: bad }) });
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.attr, JSON.stringify(bad)).toBe("destination__config__max_file_size_mb");
      expect(response.body.detail).toMatch(/max_file_size_mb/);
    }
  });
});
