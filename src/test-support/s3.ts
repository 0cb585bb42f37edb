/**
 * For tests and benches: a real S3-compatible server on loopback (s3rver, from npm, which
 * checks SigV4 signatures), with a bucket made, and reads of what it holds through the same
 * signing as batch exports' writer: the keys (ListObjectsV2) and an object's bytes. Every
 * request it answers is logged (method, path and query, status, body size), so that a test
 * sees how a file was sent (one PUT or a multipart upload, and its parts). s3rver has no
 * AbortMultipartUpload: it answers 405 to one.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { objectUrl, type S3Target, signedHeaders } from "@/server/batch-exports/s3";
import { createHash } from "node:crypto";

interface KoaContext {
  method: string;
  url: string;
  status: number;
  get(header: string): string;
}
interface S3rverInstance {
  run(): Promise<{ address: string; port: number } | AddressInfo>;
  close(): Promise<void>;
  /** Koa's middleware, composed when the server starts. */
  middleware: ((ctx: KoaContext, next: () => Promise<void>) => Promise<void>)[];
}

export interface S3Request {
  method: string;
  /** Path and query, as sent. */
  url: string;
  status: number;
  /** The request body's content-length. */
  bytes: number;
}

export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  target: S3Target;
  /** The requests answered so far, oldest first (a test may empty it). */
  requests: S3Request[];
  /** Called as each request arrives, before it is handled (a test measures the sender's memory then). */
  onRequest: (() => void) | null;
  keys(prefix?: string): Promise<string[]>;
  object(key: string): Promise<Buffer>;
  close(): Promise<void>;
}

const sha256 = (data: string) => createHash("sha256").update(data).digest("hex");

export async function startTestS3(bucket = "exports", options: { port?: number } = {}): Promise<TestS3> {
  const S3rver = createRequire(import.meta.url)("s3rver") as new (options: object) => S3rverInstance;
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: options.port ?? 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const requests: S3Request[] = [];
  const hooks: Pick<TestS3, "onRequest"> = { onRequest: null };
  server.middleware.unshift(async (ctx, next) => {
    hooks.onRequest?.();
    const entry = { method: ctx.method, url: ctx.url, status: 0, bytes: Number(ctx.get("content-length") || 0) };
    try {
      await next();
      entry.status = ctx.status;
    } catch (error) {
      entry.status = (error as { status?: number }).status ?? 500;
      throw error;
    } finally {
      requests.push(entry);
    }
  });
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  const target: S3Target = { endpoint, region: "us-east-1", bucket, accessKeyId: "S3RVER", secretAccessKey: "S3RVER", virtualStyle: false };
  const get = async (url: URL) => {
    const response = await fetch(url, { headers: signedHeaders(target, "GET", url, sha256(""), {}) });
    if (!response.ok) throw new Error(`S3 GET ${url.pathname} answered ${response.status}: ${await response.text()}`);
    return Buffer.from(await response.arrayBuffer());
  };
  return {
    endpoint,
    bucket,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    target,
    requests,
    get onRequest() {
      return hooks.onRequest;
    },
    set onRequest(hook) {
      hooks.onRequest = hook;
    },
    async keys(prefix = "") {
      const url = new URL(`${endpoint}/${bucket}?list-type=2&max-keys=1000&prefix=${encodeURIComponent(prefix)}`);
      const xml = (await get(url)).toString("utf8");
      return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!.replace(/&amp;/g, "&")).sort();
    },
    object: (key) => get(objectUrl(target, key)),
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
