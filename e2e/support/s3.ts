/**
 * An S3-compatible server on loopback for batch export tests (s3rver, from npm: it checks
 * SigV4 signatures), with one bucket, and what it stores read straight from its directory.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** The stored objects: key → bytes. */
  objects(): Map<string, Buffer>;
  close(): Promise<void>;
}

const SUFFIX = "._S3rver_object";

export async function startLocalS3(bucket = "exports"): Promise<LocalS3> {
  const S3rver = createRequire(import.meta.url)("s3rver") as new (options: object) => { run(): Promise<AddressInfo>; close(): Promise<void> };
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-e2e-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    objects() {
      const out = new Map<string, Buffer>();
      const root = path.join(directory, bucket);
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (entry.name.endsWith(SUFFIX)) out.set(path.relative(root, full).slice(0, -SUFFIX.length), fs.readFileSync(full));
        }
      };
      if (fs.existsSync(root)) walk(root);
      return out;
    },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
