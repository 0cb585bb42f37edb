/** An open-loop HTTP client: requests go out at a fixed rate whatever the server does. */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export interface PacedResult {
  sent: number;
  failed: number;
  /** Why they failed ("status 503", "ECONNRESET", …), with counts. */
  failures: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  /** Requests answered (with any status) within a second of being due. */
  inTime: number;
}

const CLIENT = path.join(import.meta.dirname, "paced-client.mjs");

/**
 * Request i is due at start + i/rate and sends `bodies[i % bodies.length]`; its latency runs
 * from when it was due to when its answer ended, so a server stall counts against every
 * request it delayed (no coordinated omission). The client runs in a fresh process of its
 * own (paced-client.mjs), so that the benchmark's own heap and work are not timed.
 */
export async function paced(url: string, rate: number, durationS: number, bodies: readonly string[]): Promise<PacedResult> {
  const file = path.join(os.tmpdir(), `burrow-paced-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify({ url, rate, durationS, bodies }));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLIENT, file], { maxBuffer: 1 << 20 });
    // Quantiles are null when nothing was answered (JSON has no NaN).
    const result = JSON.parse(stdout) as Omit<PacedResult, "p50" | "p99" | "max"> & { p50: number | null; p99: number | null; max: number | null };
    return { ...result, p50: result.p50 ?? Number.NaN, p99: result.p99 ?? Number.NaN, max: result.max ?? Number.NaN };
  } finally {
    fs.rmSync(file, { force: true });
  }
}
