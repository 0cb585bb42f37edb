/**
 * The fast path's 413 on a real node:http server, seen by a raw socket client that keeps
 * sending, as an SDK uploading a large batch does: the status line and the JSON body must
 * arrive (no connection reset first), with `Connection: close`.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, serveRaw } from "./node-adapter";
import { jsonResponse } from "./raw";

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => void serveRaw(async (request) => jsonResponse(200, { size: request.body.length }), req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Exchange {
  /** Everything the server sent before the connection ended. */
  received: string;
  /** The socket error the client saw, if any (ECONNRESET before the fix). */
  error: string | null;
  /** Body bytes the client had written when the answer's first bytes arrived. */
  sentBeforeAnswer: number;
}

/**
 * Writes `head`, then body bytes (`chunk` after `chunk`, each through `frame`) for as long as
 * the server reads them, up to `total` bytes, and collects the answer until the server closes.
 */
function exchange(head: string, total: number, frame: (chunk: Buffer) => Buffer = (c) => c, pauseAfter = Infinity): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    let received = "";
    let sentBeforeAnswer = -1;
    let error: string | null = null;
    let answered = false;
    const pump = () => {
      while (!answered && sent < total && sent < pauseAfter) {
        sent += chunk.length;
        if (!socket.write(frame(chunk))) return void socket.once("drain", pump);
      }
    };
    socket.on("connect", () => {
      socket.write(head);
      pump();
    });
    socket.on("data", (data) => {
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      // As HTTP clients do on an early answer: stop sending, and close our side (`Connection: close`).
      if (!answered) socket.end();
      answered = true;
      received += data.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => resolve({ received, error, sentBeforeAnswer }));
    socket.setTimeout(20_000, () => socket.destroy(new Error("timeout: no answer")));
  });
}

function expect413(result: Exchange): void {
  expect(result.error).toBeNull();
  expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
  expect(result.received.toLowerCase()).toContain("connection: close");
  const body = result.received.slice(result.received.indexOf("\r\n\r\n") + 4);
  expect(JSON.parse(body)).toEqual({
    type: "validation_error",
    code: "request_too_large",
    detail: `Request too large: bodies are limited to ${MAX_BODY_BYTES} bytes.`,
    attr: null,
  });
}

describe("serveRaw: bodies over 20 MB get a 413 the client can read", () => {
  it("answers a Content-Length of 300 MB at once, without reading the body", async () => {
    const head = `POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${300 * 1024 * 1024}\r\n\r\n`;
    // The client sends 1 MB and then waits: only an answer that does not wait for the body ends this.
    const result = await exchange(head, 300 * 1024 * 1024, undefined, 1024 * 1024);
    expect413(result);
    expect(result.sentBeforeAnswer).toBeLessThanOrEqual(1024 * 1024);
  });

  it("answers a Content-Length of 300 MB while the client keeps sending", async () => {
    const head = `POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Length: ${300 * 1024 * 1024}\r\n\r\n`;
    expect413(await exchange(head, 300 * 1024 * 1024));
  });

  it("answers a chunked body that passes 20 MB while it is read, while the client keeps sending", async () => {
    const head = "POST /batch/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    const frame = (c: Buffer) => Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from("\r\n")]);
    const result = await exchange(head, 100 * 1024 * 1024, frame);
    expect413(result);
    expect(result.sentBeforeAnswer).toBeGreaterThan(MAX_BODY_BYTES);
  });

  it("still serves a body under the limit", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/batch/`, { method: "POST", body: Buffer.alloc(1024 * 1024, 0x20) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ size: 1024 * 1024 });
  });
});
