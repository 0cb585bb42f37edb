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
const LOCK_MODULE = path.join(ROOT, "src/server/db/lock.ts");

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-lock-"));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function take(dataDir: string): Promise<DataDirLock> {
  const lock = await lockDataDir(dataDir);
  cleanup.push(() => lock.release());
  return lock;
}

async function refusal(attempt: Promise<unknown>): Promise<ConfigError> {
  try {
    await attempt;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}

const holderOf = (dataDir: string) => fs.readFileSync(path.join(dataDir, LOCK_FILE), "utf8").trim();

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

/**
 * Another process holding DATA_DIR: one node process (no tsx wrapper in between) that takes
 * the lock, prints "locked" and waits. `wrap` puts it in a shell line, `$HOLDER` standing for
 * the command. Resolves with the shell and the holder's pid.
 */
async function holdInAnotherProcess(dataDir: string, wrap = "exec $HOLDER"): Promise<{ shell: ChildProcess; pid: number }> {
  const script = path.join(tempDir(), "holder.mts");
  fs.writeFileSync(
    script,
    `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};
await lockDataDir(process.argv[2]);
process.stdout.write("locked\\n");
setInterval(() => {}, 60_000);
`,
  );
  const holder = [process.execPath, "--import", "tsx", script, dataDir].map((arg) => `'${arg}'`).join(" ");
  const shell = spawn("sh", ["-c", wrap.replace("$HOLDER", holder)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  cleanup.push(() => shell.kill("SIGKILL"));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    shell.stdout!.on("data", (chunk) => {
      output += chunk;
      if (output.includes("locked")) resolve();
    });
    shell.stderr!.on("data", (chunk) => (output += chunk));
    shell.once("exit", () => reject(new Error(`the lock holder exited: ${output}`)));
  });
  return { shell, pid: Number(holderOf(dataDir)) };
}

/** The state letter in /proc/<pid>/stat (R, S, Z, …), or null when there is no such process. */
function processState(pid: number): string | null {
  try {
    return /\) (\S)/.exec(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))![1]!;
  } catch {
    return null;
  }
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe("lockDataDir", () => {
  it("creates a missing DATA_DIR (with parents), private to its owner, and writes this process's pid into burrow.lock", async () => {
    const dataDir = path.join(tempDir(), "nested", "data");
    await take(dataDir);
    expect(fs.statSync(dataDir).isDirectory()).toBe(true);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.dirname(dataDir))).toBe(0o700);
    expect(holderOf(dataDir)).toBe(String(process.pid));
    // Only the lock file is left behind: the private temp file used to write it is gone.
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  it("refuses a second lock on the same DATA_DIR within one process", async () => {
    const dataDir = tempDir();
    await take(dataDir);
    const error = await refusal(lockDataDir(dataDir));
    expect(error.message).toContain(dataDir);
    expect(error.message).not.toContain("\n");
    // The refusal does not disturb the lock that is held.
    expect(holderOf(dataDir)).toBe(String(process.pid));
  });

  it("refuses while another live process holds DATA_DIR, naming that pid", async () => {
    const dataDir = tempDir();
    const { pid } = await holdInAnotherProcess(dataDir);
    const error = await refusal(lockDataDir(dataDir));
    expect(error.message).toContain(`pid ${pid}`);
    expect(error.message).toContain("DATA_DIR");
    expect(error.message).not.toContain("\n");
    expect(holderOf(dataDir)).toBe(String(pid));
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  it("refuses through another path to the same directory (a symbolic link)", async () => {
    const dataDir = tempDir();
    const { pid } = await holdInAnotherProcess(dataDir);
    const alias = path.join(tempDir(), "alias");
    fs.symlinkSync(dataDir, alias);
    expect((await refusal(lockDataDir(alias))).message).toContain(`pid ${pid}`);
  });

  // The restart after kill -9: the killed server stays a zombie until its parent reaps it,
  // and kill(pid, 0) calls a zombie alive. Here the parent (sleep) never reaps it.
  it.runIf(process.platform === "linux")("takes over at once from a holder killed with SIGKILL, while it is still a zombie", async () => {
    const dataDir = tempDir();
    const { pid } = await holdInAnotherProcess(dataDir, "$HOLDER & exec sleep 60");
    process.kill(pid, "SIGKILL");
    for (let waited = 0; processState(pid) !== "Z"; waited += 10) {
      expect(waited, `state of the killed holder: ${processState(pid)}`).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The leader thread is a zombie first; the socket closes when its last thread is gone
    // (here 18–38 ms after the kill).
    let lock: DataDirLock | undefined;
    for (let waited = 0; !lock; waited += 10) {
      lock = await lockDataDir(dataDir).catch((error: ConfigError) => {
        if (waited >= 2_000) throw error;
        return new Promise<undefined>((resolve) => setTimeout(resolve, 10));
      });
    }
    cleanup.push(() => lock.release());
    expect(processState(pid)).toBe("Z");
    expect(holderOf(dataDir)).toBe(String(process.pid));
  });

  // A pid file outlives its process; after a reboot its pid may be anyone's.
  it.runIf(process.platform === "linux")("takes over a lock file naming a live process that does not hold the lock (a reused pid)", async () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${liveProcess().pid}\n`);
    await take(dataDir);
    expect(holderOf(dataDir)).toBe(String(process.pid));
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  it("takes over a lock left behind by a process that has exited", async () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${await deadPid()}\n`);
    await take(dataDir);
    expect(holderOf(dataDir)).toBe(String(process.pid));
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  // After a crash or kill -9 in a container, the restarted server usually gets the same pid
  // (e.g. 1) and finds its old lock: that lock is stale, not "already open in this process".
  it("takes over a lock left by an earlier process that had this process's pid (a restarted container)", async () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${process.pid}\n`);
    await take(dataDir);
    expect(holderOf(dataDir)).toBe(String(process.pid));
  });

  it("release() removes the lock file, after which DATA_DIR can be locked again", async () => {
    const dataDir = tempDir();
    const first = await lockDataDir(dataDir);
    first.release();
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
    await take(dataDir);
    expect(holderOf(dataDir)).toBe(String(process.pid));
  });

  it("release() leaves alone a lock file that now belongs to another process", async () => {
    const dataDir = tempDir();
    const lock = await lockDataDir(dataDir);
    const other = liveProcess();
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${other.pid}\n`);
    lock.release();
    expect(holderOf(dataDir)).toBe(String(other.pid));
  });

  it("refuses a DATA_DIR that cannot be created (a path under a regular file) with one line naming DATA_DIR", async () => {
    const file = path.join(tempDir(), "a-file");
    fs.writeFileSync(file, "not a directory");
    const dataDir = path.join(file, "data");
    const error = await refusal(lockDataDir(dataDir));
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
        `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};
const dataDir = process.argv[2]!;
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
let lock;
try {
  lock = await lockDataDir(dataDir);
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
