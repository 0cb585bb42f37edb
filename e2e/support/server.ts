/** Starts and stops real Burrow processes (the built server and the admin CLI) for tests. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** How long a server may take to stop after SIGTERM (its own grace for requests is 10 s). */
const STOP_TIMEOUT_MS = 30_000;

/** A free TCP port, so that SITE_URL (sign-in redirects, share links) can name the server's real address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "burrow-test-"));
}

/** Names a DATA_DIR the global setup migrated once with `admin migrate` (global-setup.ts). */
export const MIGRATED_DATA_DIR_ENV = "E2E_MIGRATED_DATA_DIR";

/**
 * A fresh DATA_DIR whose embedded database is already migrated: a copy of the one the global
 * setup made, where there is one. Migrating a new database took each deployment about as long
 * again as the rest of its bootstrap; specs of a first start use `tempDataDir()`.
 */
export function migratedDataDir(): string {
  const dir = tempDataDir();
  const template = process.env[MIGRATED_DATA_DIR_ENV];
  if (template) fs.cpSync(template, dir, { recursive: true });
  return dir;
}

function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
  // The e2e runner's own settings must not leak into the processes a test starts.
  delete env.PORT;
  delete env.DATABASE_URL;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  output: () => string;
  /**
   * Sends SIGTERM (to the whole group with `processGroup`) and resolves with the exit code
   * (rejects, after SIGKILL, if it does not stop within 30 s).
   */
  stop: () => Promise<number | null>;
}

export interface StartOptions {
  /**
   * Runs the server as `npm start` leaves it: below a parent process (a shell here, npm
   * there), both in a process group of their own, so that `kill -9` of the group (process.kill
   * of -process.pid) orphans the server. Whoever adopts orphans then reaps it when it
   * pleases; until then the dead server is a zombie.
   */
  processGroup?: boolean;
  /**
   * Forks the server's shell at once but lets it start node only when this settles, so that
   * the start follows an event (a kill) by one write to a pipe: forking this large process can
   * itself take 100 ms on a loaded machine. Needs `processGroup`.
   */
  startWhen?: Promise<void>;
}

/** Runs the built server (dist/server.mjs) on a free port and waits until it listens. */
export async function startServer(env: Record<string, string | undefined>, options: StartOptions = {}): Promise<RunningServer> {
  if (options.startWhen && !options.processGroup) throw new Error("startWhen needs processGroup");
  const spawnOptions = { cwd: ROOT, env: cleanEnv({ PORT: "0", HOSTNAME: "127.0.0.1", ...env }), stdio: [options.startWhen ? "pipe" : "ignore", "pipe", "pipe"] as ("pipe" | "ignore")[] };
  // `; exit $?` keeps the shell from exec'ing node: it stays the server's parent. With
  // startWhen, the shell waits for a line on its stdin; the server itself reads nothing.
  const server = `'${process.execPath}' dist/server.mjs </dev/null; exit $?`;
  const child = options.processGroup
    ? spawn("sh", ["-c", options.startWhen ? `read go && ${server}` : server], { ...spawnOptions, detached: true })
    : spawn(process.execPath, ["dist/server.mjs"], spawnOptions);
  if (options.startWhen) void options.startWhen.then(() => child.stdin!.end("go\n"));
  const signal = (name: NodeJS.Signals) => (options.processGroup ? process.kill(-child.pid!, name) : child.kill(name));
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  // "close": also every process that shares the output pipes (the server below the shell) is gone.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A first start migrates a new database; a loaded machine takes well over a minute for it.
    const timer = setTimeout(() => reject(new Error(`server did not start in 120 s:\n${output}`)), 120_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    process: child,
    output: () => output,
    stop: async () => {
      signal("SIGTERM");
      // The server gives in-flight requests 10 s; one that hangs past that should fail the
      // test with what it printed, not leave it to the test's own timeout.
      let hung = false;
      const timer = setTimeout(() => {
        hung = true;
        signal("SIGKILL");
      }, STOP_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      if (hung) throw new Error(`the server did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; it printed:\n${output.slice(-4000)}`);
      return code;
    },
  };
}

/** Runs the server expecting it to refuse to start; returns its exit code and output. */
export async function runServerToExit(env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, ["dist/server.mjs"], {
    cwd: ROOT,
    env: cleanEnv({ PORT: "0", HOSTNAME: "127.0.0.1", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("exit", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return { code, stdout, stderr };
}

/** `npm run --silent admin -- …` as a user runs it. */
export function admin(args: string[], env: Record<string, string | undefined>) {
  const result = spawnSync("npm", ["run", "--silent", "admin", "--", ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.replace(/^npm warn.*\n/gm, "") };
}
