import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "./config";

const LOCK_FILE = "burrow.lock";

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

function inUse(dataDir: string, pid: number): ConfigError {
  return new ConfigError(
    `DATA_DIR ${dataDir} is in use by another Burrow process (pid ${pid}); stop it first, or use DATABASE_URL for a shared PostgreSQL server.`,
  );
}

function readHolder(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the embedded database's directory for this process. PGlite has no lock of its own
 * and a second process opening the same directory corrupts it, so every process that opens
 * it (server, CLI) goes through here first. A lock left by a dead process is taken over.
 *
 * The lock file is created with O_EXCL via link(2) of a private temp file, so of two
 * processes racing for it exactly one wins.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      `DATA_DIR ${dataDir} cannot be written (${(error as NodeJS.ErrnoException).code ?? "error"}); point DATA_DIR at a writable directory.`,
    );
  }
  const lockPath = path.join(dataDir, LOCK_FILE);
  const tempPath = path.join(dataDir, `.${LOCK_FILE}.${process.pid}`);
  fs.writeFileSync(tempPath, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(tempPath, lockPath);
        return {
          release() {
            if (readHolder(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readHolder(lockPath);
      if (holder === process.pid) {
        throw new ConfigError(`DATA_DIR ${dataDir} is already open in this process.`);
      }
      if (holder !== null && isAlive(holder)) {
        throw inUse(dataDir, holder);
      }
      // Stale: its holder is gone. Move it aside (atomic) and race for the lock again. If
      // another process took the lock over in between, what was moved is its live lock:
      // put it back and give way.
      const movedPath = `${tempPath}.stale`;
      try {
        fs.renameSync(lockPath, movedPath);
      } catch {
        continue;
      }
      const moved = readHolder(movedPath);
      if (moved !== null && moved !== holder && isAlive(moved)) {
        try {
          fs.linkSync(movedPath, lockPath);
        } finally {
          fs.rmSync(movedPath, { force: true });
        }
        throw inUse(dataDir, moved);
      }
      fs.rmSync(movedPath, { force: true });
    }
    throw new ConfigError(`DATA_DIR ${dataDir} could not be locked; another process keeps taking it.`);
  } finally {
    fs.rmSync(tempPath, { force: true });
  }
}
