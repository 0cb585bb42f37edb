/**
 * A Postgres destination against a hostile server: a node:net server on loopback speaking just
 * enough of the protocol (it takes any login, then answers each query as it likes), so that a
 * server that never answers a query, or never closes the connection at goodbye, is cut at the
 * export's budget rather than holding the runner forever (statement_timeout is the server's to
 * honour, and this one does not).
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BatchExportModel } from "../contract";
import { PostgresDestination } from "./postgres-destination";

type Mode = "silent" | "no-goodbye";
let server: net.Server;
let port = 0;
let mode: Mode = "silent";
const sockets = new Set<net.Socket>();

/** A backend message: its type, then its length (itself included) and body. */
const message = (type: string, body: Buffer = Buffer.alloc(0)) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const int32 = (n: number) => Buffer.from([0, 0, 0, n]);
const ready = message("Z", Buffer.from("I"));

beforeAll(async () => {
  // allowHalfOpen: the client's FIN at goodbye does not close this side; only the server would.
  server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let buffered = Buffer.alloc(0);
    let started = false;
    socket.on("data", (data) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        // The startup message has no type byte; every later one has.
        const offset = started ? 1 : 0;
        if (buffered.length < offset + 4) return;
        const length = buffered.readInt32BE(offset);
        if (buffered.length < offset + length) return;
        const type = started ? String.fromCharCode(buffered[0]!) : "startup";
        buffered = buffered.subarray(offset + length);
        if (type === "startup") {
          started = true;
          socket.write(Buffer.concat([message("R", int32(0)), ready])); // AuthenticationOk, ReadyForQuery
        } else if (type === "Q" && mode === "no-goodbye") {
          socket.write(Buffer.concat([message("C", Buffer.from("CREATE TABLE\0")), ready]));
        }
        // "silent" answers no query; neither mode closes the socket at Terminate ("X").
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const open = (model: BatchExportModel, timeoutMs: number) =>
  PostgresDestination.open({ address: "127.0.0.1", host: "127.0.0.1", port, user: "u", password: "", database: "d", schema: "public", table: "t", model, selfSignedCert: false }, timeoutMs);

describe("a Postgres destination that does not answer", () => {
  it("fails a query the server takes and never answers, within the budget", async () => {
    mode = "silent";
    const started = Date.now();
    await expect(open("events", 500)).rejects.toThrow(/timeout/i);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("closes within the budget when the server never closes the connection at goodbye", async () => {
    mode = "no-goodbye";
    // Persons: one statement (no columns added since), answered.
    const destination = await open("persons", 500);
    const started = Date.now();
    await destination.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
