/** Processes a benchmark starts: the built server (`dist/server.mjs`) or a node script, on a free port. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Starts `node <args>` in the project root with PORT=0 and waits for its `listening on <url>` line. */
export async function startNodeProcess(args: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", PORT: "0", HOSTNAME: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  // BENCH_SERVER_LOG=<file> keeps what the server prints (e.g. with --trace-gc in BENCH_SERVER_NODE_ARGS).
  const log = process.env.BENCH_SERVER_LOG;
  if (log) child.stdout!.on("data", (chunk) => fs.appendFileSync(log, chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`process exited (${code}): ${output}`)));
  });
  return { url, child };
}

/** The node flags `npm start` gives the server (package.json's start script), so that benchmarks measure the same process. */
function startScriptFlags(): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith("--"));
}

/**
 * The built server, as `npm start` runs it. BENCH_SERVER_NODE_ARGS adds node flags, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server under a bench's load (node
 * refuses --cpu-prof in NODE_OPTIONS).
 */
export function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  return startNodeProcess([...startScriptFlags(), ...nodeArgs, "dist/server.mjs"], env);
}

/** Resolves once the server at `url` says it is ready (its warm-up done). */
export async function waitReady(url: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${url}/_ready`).catch(() => null);
    if (response?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** SIGTERM, and wait until it has exited. */
export async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}
