import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "./config";
import { lockDataDir, type DataDirLock } from "./lock";

const LOCK_FILE = "burrow.lock";
const ROOT = path.resolve(import.meta.dirname, "../../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-lock-"));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function take(dataDir: string): DataDirLock {
  const lock = lockDataDir(dataDir);
  cleanup.push(() => lock.release());
  return lock;
}

function refusal(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

function liveProcess(): ChildProcess {
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  cleanup.push(() => child.kill("SIGKILL"));
  return child;
}

describe("lockDataDir", () => {
  it("creates a missing DATA_DIR (with parents) and writes this process's pid into burrow.lock", () => {
    const dataDir = path.join(tempDir(), "nested", "data");
    take(dataDir);
    expect(fs.statSync(dataDir).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
    // Only the lock file is left behind: the private temp file used to create it is gone.
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  it("refuses a second lock on the same DATA_DIR within one process", () => {
    const dataDir = tempDir();
    take(dataDir);
    const error = refusal(() => lockDataDir(dataDir));
    expect(error.message).toContain(dataDir);
    expect(error.message).not.toContain("\n");
    // The refusal does not disturb the lock that is held.
    expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
  });

  it("refuses while another live process holds DATA_DIR, naming that pid", () => {
    const dataDir = tempDir();
    const holder = liveProcess();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${holder.pid}\n`);
    const error = refusal(() => lockDataDir(dataDir));
    expect(error.message).toContain(`pid ${holder.pid}`);
    expect(error.message).toContain("DATA_DIR");
    expect(error.message).not.toContain("\n");
    expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(holder.pid));
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  it("takes over a lock left behind by a process that has exited", async () => {
    const dataDir = tempDir();
    const pid = await deadPid();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${pid}\n`);
    take(dataDir);
    expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  // After a crash or kill -9 in a container, the restarted server usually gets the same pid
  // (e.g. 1) and finds its old lock: that lock is stale, not "already open in this process".
  it("takes over a lock left by an earlier process that had this process's pid (a restarted container)", () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${process.pid}\n`);
    take(dataDir);
    expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
  });

  it("release() removes the lock file, after which DATA_DIR can be locked again", () => {
    const dataDir = tempDir();
    const first = lockDataDir(dataDir);
    first.release();
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
    take(dataDir);
    expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
  });

  it("release() leaves alone a lock file that now belongs to another process", () => {
    const dataDir = tempDir();
    const lock = lockDataDir(dataDir);
    const other = liveProcess();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${other.pid}\n`);
    lock.release();
    expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(other.pid));
  });

  it("refuses a DATA_DIR that cannot be created (a path under a regular file) with one line naming DATA_DIR", () => {
    const file = path.join(tempDir(), "a-file");
    fs.writeFileSync(file, "not a directory");
    const dataDir = path.join(file, "data");
    const error = refusal(() => lockDataDir(dataDir));
    expect(error.message).toContain("DATA_DIR");
    expect(error.message).toContain(dataDir);
    expect(error.message).not.toContain("\n");
  });

  describe("between processes racing for one DATA_DIR", () => {
    const CONTENDERS = 3;

    /**
     * Starts contenders, waits until each has loaded lock.ts and said "ready", then tells them
     * all "go" at once; each calls lockDataDir and answers "ok" (then holds the lock for 1 s)
     * or "refused".
     */
    async function race(dataDir: string): Promise<string[]> {
      const script = path.join(tempDir(), "contender.mts");
      fs.writeFileSync(
        script,
        `import { lockDataDir } from ${JSON.stringify(path.join(ROOT, "src/server/db/lock.ts"))};
const dataDir = process.argv[2]!;
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
let lock;
try {
  lock = lockDataDir(dataDir);
  process.stdout.write("ok");
} catch (error) {
  process.stdout.write(error?.name === "ConfigError" ? "refused" : "error: " + String(error));
}
process.stdin.destroy();
if (lock) {
  await new Promise((r) => setTimeout(r, 1000));
  lock.release();
}
`,
      );
      const children = Array.from({ length: CONTENDERS }, () => {
        const child = spawn(TSX, [script, dataDir], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
        cleanup.push(() => child.kill("SIGKILL"));
        let out = "";
        let err = "";
        let markReady: () => void;
        const ready = new Promise<void>((resolve) => (markReady = resolve));
        child.stdout.on("data", (chunk) => {
          out += chunk;
          if (out.startsWith("ready\n")) markReady();
        });
        child.stderr.on("data", (chunk) => (err += chunk));
        const done = new Promise<string>((resolve) =>
          child.once("close", () => resolve(out.startsWith("ready\n") ? out.slice(6) : `no start; stderr: ${err}`)),
        );
        return { child, ready: Promise.race([ready, done]), done };
      });
      await Promise.all(children.map((c) => c.ready));
      for (const { child } of children) child.stdin.write("go\n");
      return (await Promise.all(children.map((c) => c.done))).sort();
    }

    it("exactly one of several processes gets a fresh DATA_DIR", async () => {
      const dataDir = tempDir();
      expect(await race(dataDir)).toEqual(["ok", ...Array(CONTENDERS - 1).fill("refused")]);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    }, 20_000);

    it("exactly one of several processes takes over a stale lock", async () => {
      const dataDir = tempDir();
      fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${await deadPid()}\n`);
      expect(await race(dataDir)).toEqual(["ok", ...Array(CONTENDERS - 1).fill("refused")]);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    }, 20_000);
  });
});
