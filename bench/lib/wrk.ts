/** wrk (apt-get install wrk) in its own process, and what its report says. */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export interface WrkResult {
  requestsPerSecond: number;
  requests: number;
  p50: string;
  p99: string;
  non2xx: number;
  errors: string;
}

export interface WrkLoad {
  url: string;
  connections: number;
  durationS: number;
  /** A fixed POST body, or a Lua `request` function (a script body) that builds each request. */
  body?: string;
  luaRequest?: string;
  contentType?: string;
}

let scripts = 0;

/** Runs wrk asynchronously (a server in this process keeps answering meanwhile). */
export async function wrk(load: WrkLoad): Promise<WrkResult> {
  const script = path.join(os.tmpdir(), `burrow-wrk-${process.pid}-${scripts++}.lua`);
  const head = `wrk.method = "POST"\nwrk.headers["Content-Type"] = ${JSON.stringify(load.contentType ?? "application/json")}\n`;
  fs.writeFileSync(script, head + (load.luaRequest ?? `wrk.body = ${luaString(load.body ?? "")}\n`));
  try {
    const { stdout: out } = await promisify(execFile)(
      "wrk",
      ["-t1", `-c${load.connections}`, `-d${load.durationS}s`, "--latency", "-s", script, load.url],
      { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
    );
    const number = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
    return {
      requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/),
      p50: /Latency Distribution[\s\S]*?50%\s+(\S+)/.exec(out)?.[1] ?? "?",
      p99: /Latency Distribution[\s\S]*?99%\s+(\S+)/.exec(out)?.[1] ?? "?",
      requests: number(/(\d+) requests in/),
      non2xx: number(/Non-2xx or 3xx responses:\s+(\d+)/) || 0,
      errors: /Socket errors:.*/.exec(out)?.[0] ?? "none",
    };
  } finally {
    fs.rmSync(script, { force: true });
  }
}

/** A Lua string literal for any text (long brackets cannot hold every text; escapes can). */
export function luaString(text: string): string {
  return `"${[...Buffer.from(text, "utf8")].map((byte) => (byte >= 32 && byte < 127 && byte !== 34 && byte !== 92 ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, "0")}`)).join("")}"`;
}

/** wrk's latency text ("812.00us", "3.21ms", "1.02s") in milliseconds. */
export function wrkMs(text: string): number {
  if (text.endsWith("us")) return parseFloat(text) / 1000;
  if (text.endsWith("ms")) return parseFloat(text);
  if (text.endsWith("s")) return parseFloat(text) * 1000;
  return Number.NaN;
}
