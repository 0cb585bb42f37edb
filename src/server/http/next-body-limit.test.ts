/**
 * holdBodyTo on a real node:http server whose handler reads the body as Next's route
 * handlers do (the node request turned into a web Request stream): bodies under the
 * limit reach it whole; a too-large Content-Length is answered 413 unread; a chunked body
 * that passes the limit gets a 413 the client can read, and the handler never sees it all.
 */
import http from "node:http";
import net from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdBodyTo, NEXT_BODY_LIMIT_BYTES, nextBodyLimitFor } from "./next-body-limit";

let server: http.Server;
let port: number;
/** What the handler managed to read, per request: bytes, or the error its read ended with. */
const reads: Array<number | string> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (!holdBodyTo(req, res, nextBodyLimitFor(req.url ?? "/"))) return;
    const request = new Request(`http://x${req.url}`, { method: req.method, body: Readable.toWeb(req) as ReadableStream, duplex: "half" } as RequestInit);
    request.arrayBuffer().then(
      (body) => {
        reads.push(body.byteLength);
        if (!res.headersSent) res.end(JSON.stringify({ size: body.byteLength, sha: Buffer.from(body).subarray(0, 8).toString("hex") }));
      },
      (error: Error) => reads.push(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends `head` and then `body` (all of it, or until the answer arrives), and collects the answer. */
function rawExchange(head: string, body: Buffer[]): Promise<{ received: string; error: string | null }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let error: string | null = null;
    let answered = false;
    let next = 0;
    const pump = () => {
      while (!answered && next < body.length) if (!socket.write(body[next++]!)) return void socket.once("drain", pump);
    };
    socket.on("connect", () => {
      socket.write(head);
      pump();
    });
    socket.on("data", (data) => {
      if (!answered) socket.end();
      answered = true;
      received += data.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => resolve({ received, error }));
    socket.setTimeout(10_000, () => socket.destroy(new Error("timeout: no answer")));
  });
}

function expect413(result: { received: string; error: string | null }) {
  expect(result.error).toBeNull();
  expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
  expect(result.received.toLowerCase()).toContain("connection: close");
  expect(JSON.parse(result.received.slice(result.received.indexOf("\r\n\r\n") + 4))).toEqual({
    type: "validation_error",
    code: "request_too_large",
    detail: `Request too large: bodies are limited to ${NEXT_BODY_LIMIT_BYTES} bytes.`,
    attr: null,
  });
}

const chunked = (c: Buffer) => Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from("\r\n")]);

describe("holdBodyTo: the 1 MB limit for routes Next serves", () => {
  it("is 1 MB for the management API, tRPC and sign-in alike", () => {
    expect(NEXT_BODY_LIMIT_BYTES).toBe(1024 * 1024);
    for (const path of ["/api/projects/1/dashboards/", "/api/trpc/dashboards.create", "/api/auth/callback/credentials"]) {
      expect(nextBodyLimitFor(path)).toBe(NEXT_BODY_LIMIT_BYTES);
    }
  });

  it("hands a body of exactly 1 MB to the handler whole, chunked or not", async () => {
    const body = Buffer.alloc(NEXT_BODY_LIMIT_BYTES, 0x61);
    body.write("head0123");
    const response = await fetch(`http://127.0.0.1:${port}/api/x`, { method: "POST", body });
    expect(await response.json()).toEqual({ size: body.length, sha: body.subarray(0, 8).toString("hex") });
    const head = "POST /api/trpc/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    const pieces = [body.subarray(0, 300_000), body.subarray(300_000)].map(chunked);
    const { received } = await rawExchange(head, [...pieces, Buffer.from("0\r\n\r\n")]);
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toContain(`"size":${body.length}`);
  });

  it("answers a Content-Length of 300 MB with 413 at once, without reading the body or calling the handler", async () => {
    const before = reads.length;
    const head = `POST /api/projects/1/dashboards/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${300 * 1024 * 1024}\r\n\r\n`;
    expect413(await rawExchange(head, [Buffer.from('{"name":"')]));
    expect(reads.length).toBe(before);
  });

  it("answers a chunked body of 2 MB with a 413 the client can read, and the handler's read fails", async () => {
    const before = reads.length;
    const head = "POST /api/trpc/dashboards.create HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    const pieces = Array.from({ length: 32 }, () => chunked(Buffer.alloc(64 * 1024, 0x20)));
    expect413(await rawExchange(head, [...pieces, Buffer.from("0\r\n\r\n")]));
    await expect.poll(() => reads.length).toBe(before + 1);
    expect(typeof reads.at(-1)).toBe("string");
  });
});

describe("larger bodies where a route needs them", () => {
  it("lets a static cohort's CSV (up to 20 MB, in a form) through to the cohorts create and update routes only", () => {
    const form = "multipart/form-data; boundary=x";
    for (const path of ["/api/projects/1/cohorts/", "/api/environments/@current/cohorts/42/", "/api/projects/1/cohorts"]) expect(nextBodyLimitFor(path, form)).toBe(21 * 1024 * 1024);
    for (const path of ["/api/projects/1/cohorts/42/add_persons_to_static_cohort/", "/api/projects/1/cohorts/42/persons/", "/api/projects/1/cohortsx/"]) {
      expect(nextBodyLimitFor(path, form)).toBe(NEXT_BODY_LIMIT_BYTES);
    }
  });

  it("gives a JSON body on the cohorts routes the 1 MB of any other (the 21 MB is for the CSV form only)", () => {
    for (const type of ["application/json", undefined, "text/plain; boundary=multipart/form-data"]) expect(nextBodyLimitFor("/api/projects/1/cohorts/", type)).toBe(NEXT_BODY_LIMIT_BYTES);
  });
});
