import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ConfigError } from "./config";

const LOCK_FILE = "burrow.lock";

// Directories this process holds: a second open in one process (the server's modules load
// twice, once in Next's bundle) gets its own clear message.
const HELD_KEY = Symbol.for("burrow.heldDataDirs");
const held: Set<string> = ((globalThis as Record<symbol, Set<string>>)[HELD_KEY] ??= new Set());

export interface DataDirLock {
  release(): void;
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

function unwritable(dataDir: string, error: unknown): ConfigError {
  return new ConfigError(
    `DATA_DIR ${dataDir} cannot be written (${(error as NodeJS.ErrnoException).code ?? "error"}); point DATA_DIR at a writable directory.`,
  );
}

/**
 * The lock itself, on Linux: a listening Unix socket on an abstract name made from DATA_DIR's
 * real path. Only one socket can listen on a name, and the kernel closes it with the
 * process's other files when the process dies (kill -9 included; 18–38 ms after the kill in
 * lock.test.ts), whether or not anyone ever reaps the dead process. A pid file cannot tell as
 * much: kill(pid, 0) calls a zombie alive (a server restarted right after kill -9 of its
 * process group was refused: its orphan was still a zombie), and a dead server's pid may
 * belong to another process by now. Resolves to null when another process listens there.
 */
function listenOnAbstractName(realDir: string): Promise<net.Server | null> {
  const name = `\0burrow-data-dir-${createHash("sha256").update(realDir).digest("hex").slice(0, 40)}`;
  // Nothing talks to this socket; whoever connects is let go at once.
  const server = net.createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => (error.code === "EADDRINUSE" ? resolve(null) : reject(error)));
    // exclusive: a cluster worker must not share its primary's socket (and so its lock).
    server.listen({ path: name, exclusive: true }, () => {
      server.unref();
      resolve(server);
    });
  });
}

/**
 * Elsewhere (no abstract sockets), the pid file alone: held while the process it names runs.
 * Weaker: two processes starting at the same instant may both pass, and a zombie or a
 * reused pid keeps the lock until the pid file is removed.
 */
function heldByPidFile(lockPath: string): number | null {
  const holder = readHolder(lockPath);
  if (holder === null || holder === process.pid) return null;
  try {
    process.kill(holder, 0);
    return holder;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM" ? holder : null;
  }
}

/**
 * Takes the embedded database's directory for this process. PGlite has no lock of its own
 * and a second process opening the same directory corrupts it, so every process that opens
 * it (server, CLI) goes through here first.
 *
 * The lock guards DATA_DIR against processes of this machine (more exactly, of this network
 * namespace, where abstract socket names live). It cannot see a process on another host that
 * shares DATA_DIR over a network file system, nor one in another container that mounts the
 * same volume; PGlite is a single-process database, so such setups must use DATABASE_URL.
 *
 * `burrow.lock` holds the pid of the process holding the lock, for the refusal message.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const dir = path.resolve(dataDir);
  if (held.has(dir)) throw new ConfigError(`DATA_DIR ${dir} is already open in this process.`);
  const lockPath = path.join(dir, LOCK_FILE);
  let realDir: string;
  try {
    // Private from the start; the database opened in it makes the rest private (client.ts).
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    realDir = fs.realpathSync(dir);
  } catch (error) {
    throw unwritable(dir, error);
  }

  let socket: net.Server | null = null;
  if (process.platform === "linux") {
    socket = await listenOnAbstractName(realDir);
    if (!socket) throw inUse(dir, readHolder(lockPath));
  } else {
    const holder = heldByPidFile(lockPath);
    if (holder !== null) throw inUse(dir, holder);
  }
  // Whatever pid file is left was written by a process that no longer holds the lock.
  const tempPath = path.join(dir, `.${LOCK_FILE}.${process.pid}`);
  try {
    fs.writeFileSync(tempPath, `${process.pid}\n`);
    fs.renameSync(tempPath, lockPath);
  } catch (error) {
    fs.rmSync(tempPath, { force: true });
    socket?.close();
    throw unwritable(dir, error);
  }
  held.add(dir);
  return {
    release() {
      if (!held.delete(dir)) return;
      if (readHolder(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
      socket?.close();
    },
  };
}
