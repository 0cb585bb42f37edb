/**
 * The embedded database on a thread of its own (pglite-worker.mjs), reached through
 * node-postgres as a PostgreSQL server is: a pool of one connection whose "socket" is a stream
 * to the worker. So the server's thread never runs a statement (a long one would stop every
 * request: PGlite is synchronous), both cores work (requests here, SQL there), and the
 * embedded and the PostgreSQL database share one driver, one Prisma adapter and one set of
 * type parsers.
 */
import path from "node:path";
import { Duplex } from "node:stream";
import { Worker } from "node:worker_threads";
import pg from "pg";

type FromWorker =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "data"; connection: number; bytes: Uint8Array }
  | { type: "closed" };

/** One client's connection: what node-postgres writes goes to the worker, its answers come back. */
class WorkerConnection extends Duplex {
  constructor(
    private readonly thread: PgliteThread,
    readonly id: number,
  ) {
    super();
  }

  // The parts of net.Socket node-postgres calls.
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  connect(): this {
    queueMicrotask(() => this.emit("connect"));
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  _read(): void {}

  _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.thread.send(this.id, [chunk]);
    done();
  }

  // node-postgres corks the five messages of an extended query (Parse, Bind, Describe,
  // Execute, Sync): without this each went to the worker as a message of its own, and the
  // worker answered up to three of them separately (a cross-thread hop each way per part).
  _writev(chunks: Array<{ chunk: Buffer }>, done: (error?: Error | null) => void): void {
    this.thread.send(this.id, chunks.map(({ chunk }) => chunk));
    done();
  }

  _final(done: (error?: Error | null) => void): void {
    this.thread.ended(this.id);
    this.push(null);
    done();
  }

  _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.thread.ended(this.id);
    done(error);
  }
}

/** The worker running PGlite, spoken to by any number of connections in turn (each one session). */
export class PgliteThread {
  private readonly connections = new Map<number, WorkerConnection>();
  private nextId = 1;
  private closed: Promise<void> | null = null;
  private failure: Error | null = null;

  constructor(private readonly worker: Worker) {
    worker.on("message", (message: FromWorker) => {
      if (message.type === "data") {
        this.connections.get(message.connection)?.push(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
      } else if (message.type === "failed") this.fail(new Error(`the embedded database failed: ${message.message}`));
    });
    worker.on("error", (error) => this.fail(error));
    worker.on("exit", () => this.fail(new Error("the embedded database's thread stopped")));
  }

  /** Whether the thread failed or stopped: no connection can reach its database any more. */
  get broken(): boolean {
    return this.failure !== null || this.closed !== null;
  }

  /** An idle thread kept for later must not keep the process alive; one in use must. */
  keepsProcessAlive(keeps: boolean): void {
    if (keeps) this.worker.ref();
    else this.worker.unref();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const connection of this.connections.values()) connection.destroy(this.failure);
  }

  connect(): WorkerConnection {
    const connection = new WorkerConnection(this, this.nextId++);
    this.connections.set(connection.id, connection);
    if (this.failure) queueMicrotask(() => connection.destroy(this.failure!));
    return connection;
  }

  send(connection: number, chunks: Buffer[]): void {
    // A copy the worker owns (the chunks' memory may be a pooled buffer of node-postgres).
    const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    this.worker.postMessage({ type: "data", connection, bytes }, [bytes.buffer]);
  }

  ended(connection: number): void {
    if (this.connections.delete(connection) && !this.failure) this.worker.postMessage({ type: "end", connection });
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      if (this.failure) return void this.worker.terminate().then(() => resolve());
      this.worker.on("message", (message: FromWorker) => {
        if (message.type === "closed") void this.worker.terminate().then(() => resolve());
      });
      this.worker.once("exit", () => resolve());
      this.worker.postMessage({ type: "close" });
    });
    return this.closed;
  }
}

export interface PgliteOnThread {
  /** One connection: PGlite has one session, which a transaction holds until it ends. */
  pool: pg.Pool;
  /** Ends the pool, then closes the database and its thread. */
  close(): Promise<void>;
}

/**
 * PGlite's settings, after its own start parameters, at every open (and bench:hot's raw COPY's).
 * Its buffer cache (shared_buffers, PostgreSQL's default of 128MB) is allocated in its
 * WebAssembly memory at each open: measured on a bootstrapped DATA_DIR, the open took 950 ms
 * with it and 600–700 ms with 32MB, and the process 300 MB of memory against 176 MB. The pages
 * it no longer holds are read from the operating system's page cache.
 */
export const PGLITE_SETTINGS: readonly string[] = ["-c", "shared_buffers=32MB"];

/** Starts the embedded database's thread: on disk in `dataDir`, or in memory (from a dump, when given). */
export async function startPgliteThread(options: { dataDir: string } | { loadDataDir?: ArrayBuffer }): Promise<PgliteThread> {
  // Loaded by path from the project root, as it is under tsx, vitest, Next and the bundled server alike.
  const script = path.join(process.cwd(), "src/server/db/pglite-worker.mjs");
  const worker = new Worker(script, { workerData: { ...options, settings: PGLITE_SETTINGS }, transferList: "loadDataDir" in options && options.loadDataDir ? [options.loadDataDir] : [] });
  const started = await new Promise<FromWorker>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  if (started.type !== "ready") {
    await worker.terminate();
    throw new Error(started.type === "failed" ? started.message : "the embedded database's thread did not start");
  }
  return new PgliteThread(worker);
}

/** A pool of the one connection PGlite has, over `thread`; ending it ends its session (the thread stays). */
export function pgliteThreadPool(thread: PgliteThread): pg.Pool {
  const pool = new pg.Pool({
    max: 1,
    // PGlite's one role and database; it asks for no password.
    user: "postgres",
    database: "postgres",
    stream: () => thread.connect(),
  } as pg.PoolConfig);
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on("error", () => {});
  return pool;
}

/** Starts the embedded database's thread and its pool; `close()` ends both. */
export async function openPgliteThread(options: { dataDir: string } | { loadDataDir?: ArrayBuffer }): Promise<PgliteOnThread> {
  const thread = await startPgliteThread(options);
  const pool = pgliteThreadPool(thread);
  return {
    pool,
    async close() {
      await pool.end().catch(() => {});
      await thread.close();
    },
  };
}
