/**
 * S3 listings against a hostile endpoint (a node:http server on loopback that answers
 * ListObjectsV2 as it likes, and every write with 200): a listing that never ends — the same
 * continuation token again, fresh tokens forever, or more keys than any interval has — fails
 * the split-file cleanup with a clear error after a bounded number of pages, where it used to
 * list until memory ran out. The endpoint answers 500 after MAX_ANSWERED pages, so that code
 * without the bounds fails here (with another error) rather than exhausting the test's memory.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listKeys, MAX_LIST_PAGES, MAX_LISTED_KEYS, MIN_PART_BYTES, type S3Target } from "./s3";
import { openWriter } from "./writers";

const MAX_ANSWERED = 300;
type Mode = "same-token" | "fresh-tokens" | "many-keys" | "mixed";

let server: http.Server;
let endpoint = "";
let mode: Mode = "mixed";
let listed = 0;
let requests: string[] = [];

/** A listing page's XML: `keys`, and a next page when `token` is given. */
function page(keys: string[], token?: string): string {
  const contents = keys.map((key) => `<Contents><Key>${key}</Key><Size>1</Size></Contents>`).join("");
  const more = token ? `<IsTruncated>true</IsTruncated><NextContinuationToken>${token}</NextContinuationToken>` : "<IsTruncated>false</IsTruncated>";
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name>${more}${contents}</ListBucketResult>`;
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, "http://s3.test");
    requests.push(`${req.method} ${decodeURIComponent(url.pathname)}`);
    req.resume();
    if (req.method !== "GET" || url.searchParams.get("list-type") !== "2") return void res.writeHead(200, { etag: '"e"' }).end();
    listed++;
    if (listed > MAX_ANSWERED) return void res.writeHead(500).end("<Error><Code>InternalError</Code></Error>");
    const prefix = url.searchParams.get("prefix") ?? "";
    // Numbered files of the interval, as the cleanup keeps them.
    const numbered = (count: number) => Array.from({ length: count }, (_, i) => `${prefix}${listed * 10_000 + i + 1}.jsonl`);
    res.writeHead(200, { "content-type": "application/xml" });
    if (mode === "same-token") res.end(page(numbered(2_000), "again"));
    else if (mode === "fresh-tokens") res.end(page(numbered(10), `token-${listed}`));
    else if (mode === "many-keys") res.end(page(numbered(3_000), `token-${listed}`));
    else res.end(page([`${prefix}0.jsonl`, `${prefix}1.jsonl`, `${prefix}7.jsonl`, `${prefix}x.jsonl`, `${prefix}2.parquet`]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
});

afterAll(async () => {
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  mode = "mixed";
  listed = 0;
  requests = [];
});

const target = (): S3Target => ({ endpoint, region: "us-east-1", bucket: "b", accessKeyId: "k", secretAccessKey: "s", virtualStyle: false });
const start = new Date(Date.UTC(2026, 1, 3, 1));
const end = new Date(Date.UTC(2026, 1, 3, 2));
const prefix = "hostile/2026-02-03T01:00:00+00:00-2026-02-03T02:00:00+00:00-";

/** An S3 writer splitting files (so that it lists and deletes stale ones), finishing an empty interval. */
async function finishSplitRun(): Promise<void> {
  const config = { bucket_name: "b", region: "us-east-1", prefix: "hostile", aws_access_key_id: "k", aws_secret_access_key: "s", endpoint_url: endpoint, max_file_size_mb: 1 };
  const writer = await openWriter("S3", config, { projectId: 1, model: "events", start, end, timeoutMs: 5_000, s3PartBytes: MIN_PART_BYTES });
  try {
    await writer.write([]);
    await writer.finish();
  } finally {
    await writer.close();
  }
}

describe("S3 listings from a hostile endpoint", () => {
  it("deletes only the interval's stale numbered files of a listing", async () => {
    await finishSplitRun();
    expect(requests.filter((r) => r.startsWith("DELETE")).sort()).toEqual([`DELETE /b/${prefix}1.jsonl`, `DELETE /b/${prefix}7.jsonl`]);
    expect(requests.at(-1)).toBe("PUT /b/hostile/2026-02-03T01:00:00+00:00-2026-02-03T02:00:00+00:00_manifest.json");
  });

  it("fails the run's cleanup when ListObjectsV2 answers the same continuation token again, deleting nothing", async () => {
    mode = "same-token";
    await expect(finishSplitRun()).rejects.toThrow(/continuation token it had already answered/);
    expect(listed).toBe(2);
    expect(requests.filter((r) => r.startsWith("DELETE"))).toEqual([]);
    // No manifest for a run that failed.
    expect(requests.filter((r) => r.includes("_manifest.json"))).toEqual([]);
  });

  it("stops a listing of fresh tokens forever at its page bound", async () => {
    mode = "fresh-tokens";
    await expect(listKeys(target(), prefix, 5_000)).rejects.toThrow(new RegExp(`past ${MAX_LIST_PAGES} pages`));
    expect(listed).toBe(MAX_LIST_PAGES);
  });

  it("stops a listing at its bound of keys kept, counting only the keys asked for", async () => {
    mode = "many-keys";
    await expect(listKeys(target(), prefix, 5_000)).rejects.toThrow(new RegExp(`more than ${MAX_LISTED_KEYS} of the keys`));
    expect(listed).toBe(Math.ceil((MAX_LISTED_KEYS + 1) / 3_000));
    // Keys the caller does not want are not kept, so they do not count.
    listed = 0;
    await expect(listKeys(target(), prefix, 5_000, () => false)).rejects.toThrow(new RegExp(`past ${MAX_LIST_PAGES} pages`));
  });
});
