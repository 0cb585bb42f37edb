import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "./config";

const LOCK_FILE = "burrow.lock";

// Directories this process holds. A lock file naming our own pid that is not in here was
// left by an earlier process that had the same pid (after a crash, in a container the
// restarted server is often pid 1 again): stale, not ours.
const HELD_KEY = Symbol.for("burrow.heldDataDirs");
const held: Set<string> = ((globalThis as Record<symbol, Set<string>>)[HELD_KEY] ??= new Set());

export interface DataDirLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function inUse(dataDir: string, pid: number | null): ConfigError {
  return new ConfigError(
    `DATA_DIR ${dataDir} is in use by another Burrow process (pid ${pid ?? "unknown"}); stop it first, or use DATABASE_URL for a shared PostgreSQL server.`,
  );
}

/** Whether the lock file names a process that still runs (other than an earlier us). */
function heldByLiveProcess(holder: number | null): holder is number {
  return holder !== null && holder !== process.pid && isAlive(holder);
}

/**
 * Takes the embedded database's directory for this process. PGlite has no lock of its own
 * and a second process opening the same directory corrupts it, so every process that opens
 * it (server, CLI) goes through here first. A lock left by a dead process is taken over.
 *
 * The lock file is created with link(2) of a private temp file, which fails if the lock
 * exists, so of two processes racing for it exactly one wins.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = path.resolve(dataDir);
  if (held.has(dir)) throw new ConfigError(`DATA_DIR ${dir} is already open in this process.`);
  const lockPath = path.join(dir, LOCK_FILE);
  const tempPath = path.join(dir, `.${LOCK_FILE}.${process.pid}`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tempPath, `${process.pid}\n`);
  } catch (error) {
    throw new ConfigError(
      `DATA_DIR ${dir} cannot be written (${(error as NodeJS.ErrnoException).code ?? "error"}); point DATA_DIR at a writable directory.`,
    );
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(tempPath, lockPath);
        held.add(dir);
        return {
          release() {
            if (!held.delete(dir)) return;
            if (readHolder(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readHolder(lockPath);
      if (heldByLiveProcess(holder)) throw inUse(dir, holder);
      // Stale. Move it aside (atomic) and race for the lock again. If another process took
      // the lock over in between, what was moved is its live lock: put it back and give way.
      const movedPath = `${tempPath}.stale`;
      try {
        fs.renameSync(lockPath, movedPath);
      } catch {
        continue;
      }
      const moved = readHolder(movedPath);
      if (moved !== holder && heldByLiveProcess(moved)) {
        try {
          fs.linkSync(movedPath, lockPath);
        } catch {
          // Someone else has locked it meanwhile; either way it is not ours.
        } finally {
          fs.rmSync(movedPath, { force: true });
        }
        throw inUse(dir, moved);
      }
      fs.rmSync(movedPath, { force: true });
    }
    throw new ConfigError(`DATA_DIR ${dir} could not be locked; other processes keep taking it.`);
  } finally {
    fs.rmSync(tempPath, { force: true });
  }
}
