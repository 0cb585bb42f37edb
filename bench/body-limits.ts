/**
 * What oversized bodies cost the real server (`npx tsx bench/body-limits.ts`, after a build):
 * an lz64 bomb (55 KB that would expand to 289 MB) on /batch/, /decide, /flags and as form
 * data=, and a 300 MB Content-Length to the management API. For each: the answer, its time,
 * the server's peak RSS growth (VmHWM) and the slowest /_health polled every 50 ms meanwhile.
 * For comparison, lz-string's own decompressFromBase64 (the decoder before) on the same
 * body in a fresh node process.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { lz64Bomb, lz64BombLength } from "../src/server/http/body/lz64-bomb";
import { startServer, stop } from "./lib/server-process";

const CODES = 24_000;

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

/** Resets VmHWM to the current RSS (Linux: write 5 to clear_refs), so that each case's peak is its own. */
function resetPeak(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

async function healthWhile<T>(base: string, work: Promise<T>): Promise<{ result: T; slowestHealthMs: number }> {
  let done = false;
  let slowest = 0;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(`${base}/_health`);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const result = await work;
  done = true;
  await poll;
  return { result, slowestHealthMs: slowest };
}

function declared300Mb(base: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = "";
    socket.on("connect", () => socket.write(`POST /api/projects/1/dashboards/ HTTP/1.1\r\nHost: x\r\nContent-Length: ${300 * 1024 * 1024}\r\n\r\n{"name":"`));
    socket.on("data", (data) => {
      received += data;
      socket.end();
    });
    socket.on("error", (e) => (received ||= `error ${e.message}`));
    socket.on("close", () => resolve(received.split("\r\n")[0]!));
  });
}

function lzStringReference(bomb: string): string {
  const script = `
    const LZString = require("lz-string");
    const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    const body = require("fs").readFileSync(0, "utf8");
    const before = rss();
    const started = performance.now();
    const out = LZString.decompressFromBase64(body);
    const ms = performance.now() - started;
    const peak = Number(/VmHWM:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    console.log(\`\${(out.length / 1e6).toFixed(0)} M characters in \${ms.toFixed(0)} ms, peak RSS +\${(peak - before).toFixed(0)} MB\`);
  `;
  const run = spawnSync(process.execPath, ["-e", script], { input: bomb, encoding: "utf8", cwd: path.resolve(import.meta.dirname, "..") });
  return (run.stdout || run.stderr).trim();
}

async function main(): Promise<void> {
  const bomb = lz64Bomb(CODES);
  console.log(`lz64 bomb: ${(bomb.length / 1024).toFixed(0)} KB, would expand to ${(lz64BombLength(CODES) / 1e6).toFixed(0)} M characters`);
  console.log(`before (lz-string decompressFromBase64 in a fresh node): ${lzStringReference(bomb)}`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-limits-"));
  const { url, child } = await startServer({ DATA_DIR: dataDir });
  try {
    await fetch(`${url}/_health`);
    const form = `data=${encodeURIComponent(bomb)}&compression=lz64`;
    const cases: Array<[string, () => Promise<string>]> = [
      ["POST /batch/?compression=lz64", async () => String((await fetch(`${url}/batch/?compression=lz64`, { method: "POST", body: bomb })).status)],
      ["POST /decide/?v=3&compression=lz64", async () => String((await fetch(`${url}/decide/?v=3&compression=lz64`, { method: "POST", body: bomb })).status)],
      ["POST /flags/?v=2&compression=lz64", async () => String((await fetch(`${url}/flags/?v=2&compression=lz64`, { method: "POST", body: bomb })).status)],
      ["POST /e/ form data=…&compression=lz64", async () => String((await fetch(`${url}/e/`, { method: "POST", body: form, headers: { "content-type": "application/x-www-form-urlencoded" } })).status)],
      ["POST /api/projects/1/dashboards/ Content-Length 300 MB", () => declared300Mb(url)],
    ];
    for (const [name, send] of cases) {
      const before = memoryOf(child.pid!);
      resetPeak(child.pid!);
      const started = performance.now();
      const { result, slowestHealthMs } = await healthWhile(url, send());
      const ms = performance.now() - started;
      const after = memoryOf(child.pid!);
      console.log(
        `${name}: ${result} in ${ms.toFixed(0)} ms; peak RSS +${(after.peakMb - before.rssMb).toFixed(0)} MB (from ${before.rssMb.toFixed(0)} MB); slowest /_health ${slowestHealthMs.toFixed(0)} ms`,
      );
    }
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
