/**
 * The embedded database's thread (pglite-thread.ts starts it): PGlite, spoken to in
 * PostgreSQL's wire protocol. PGlite runs every statement synchronously on the thread that
 * owns it; here that is this worker, so the server's own thread keeps answering requests
 * (and using the other core) while a statement runs.
 *
 * Messages from the server's thread:
 *   {type: "data", connection, bytes}  protocol bytes a client sent (any split)
 *   {type: "end", connection}          the client closed: the session is made new for the next one
 *                                      (a transaction it left open rolled back, its prepared
 *                                      statements, settings and temporary tables gone), as a new
 *                                      connection to a server would start
 *   {type: "close"}                    close the database, answer {type: "closed"}
 * and to it: {type: "ready"} | {type: "failed", message} | {type: "data", connection, bytes} | {type: "closed"}.
 *
 * Plain JavaScript, loaded by path: it runs the same under tsx, vitest, Next and the bundled server.
 */
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

/** What each connection sent and PGlite has not seen yet, and whether its startup packet came. */
const connections = new Map();
let db;
// PGlite takes one message batch at a time: everything runs in this chain, in arrival order.
let chain = Promise.resolve();

try {
  // PGlite's own start parameters, then Burrow's settings (PGLITE_SETTINGS in pglite-thread.ts).
  const startParams = [...PGlite.defaultStartParams, ...workerData.settings];
  db = workerData.dataDir
    ? new PGlite(workerData.dataDir, { startParams })
    : new PGlite({ startParams, ...(workerData.loadDataDir ? { loadDataDir: new Blob([workerData.loadDataDir]) } : {}) });
  await db.waitReady;
  parentPort.postMessage({ type: "ready" });
} catch (error) {
  parentPort.postMessage({ type: "failed", message: error instanceof Error ? error.message : String(error) });
}

parentPort.on("message", (message) => {
  if (message.type === "data") {
    let connection = connections.get(message.connection);
    if (!connection) {
      connection = { buffer: Buffer.alloc(0), started: false };
      connections.set(message.connection, connection);
    }
    const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
    connection.buffer = connection.buffer.length === 0 ? bytes : Buffer.concat([connection.buffer, bytes]);
    chain = chain.then(() => run(message.connection, connection));
  } else if (message.type === "end") {
    chain = chain.then(() => endSession(message.connection));
  } else if (message.type === "close") {
    chain = chain.then(async () => {
      await db.close();
      parentPort.postMessage({ type: "closed" });
    });
  }
});

/** PGlite has one session for every connection: what one client left in it must not reach the next. */
async function endSession(id) {
  if (!connections.delete(id)) return;
  try {
    if (db.isInTransaction()) await db.exec("ROLLBACK");
    await db.exec("DISCARD ALL");
  } catch (error) {
    parentPort.postMessage({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
}

/** Hands PGlite every complete message the connection has sent, and sends back its answer. */
async function run(id, connection) {
  try {
    for (;;) {
      const { buffer } = connection;
      let end = 0;
      if (!connection.started) {
        // The startup packet (and SSLRequest) has no type byte: a length, then the rest.
        if (buffer.length < 8) return;
        end = buffer.readInt32BE(0);
        if (buffer.length < end) return;
        if (end === 8 && buffer.readInt32BE(4) === 80877103) {
          // SSLRequest: no TLS between two threads of one process.
          connection.buffer = buffer.subarray(8);
          reply(id, new Uint8Array([0x4e]));
          continue;
        }
        connection.started = true;
      } else {
        while (buffer.length - end >= 5) {
          // Terminate: the client leaves; "end" follows and cleans up (PGlite must not see it).
          if (buffer[end] === 0x58) {
            connection.buffer = Buffer.alloc(0);
            break;
          }
          const length = 1 + buffer.readInt32BE(end + 1);
          if (buffer.length - end < length) break;
          end += length;
        }
        if (end === 0) return;
      }
      connection.buffer = buffer.subarray(end);
      reply(id, await db.execProtocolRaw(new Uint8Array(buffer.subarray(0, end))));
    }
  } catch (error) {
    // PGlite itself failed (not a statement: those are answers in the protocol).
    parentPort.postMessage({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
}

function reply(connection, bytes) {
  parentPort.postMessage({ type: "data", connection, bytes }, [bytes.buffer]);
}
