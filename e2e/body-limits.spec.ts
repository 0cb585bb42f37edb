/**
 * Body limits on the real server: routes Next serves refuse bodies over 1 MB before reading
 * them (a declared 300 MB) or while reading them (chunked), with a 413 the client can read,
 * and the server keeps answering; 50 MB to /s/ stops at 1 MiB; an lz64 bomb on the fast path
 * (capture, /decide, /s/) stops at its decoded limit; sign-in
 * still works under the limit.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { lz64Bomb } from "../src/server/http/body/lz64-bomb";
import { sharedBaseUrl, signInAsOwner } from "./support/accounts";

/** Sends `head` and `body` over a raw socket (stopping once answered), and returns what came back. */
function rawExchange(head: string, body: Buffer[]): Promise<{ received: string; error: string | null; ms: number }> {
  const { hostname, port } = new URL(sharedBaseUrl());
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = "";
    let error: string | null = null;
    let answered = false;
    let next = 0;
    let ms = -1;
    const pump = () => {
      while (!answered && next < body.length) if (!socket.write(body[next++]!)) return void socket.once("drain", pump);
    };
    socket.on("connect", () => {
      socket.write(head);
      pump();
    });
    socket.on("data", (data) => {
      if (!answered) {
        ms = performance.now() - started;
        socket.end();
      }
      answered = true;
      received += data.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () => resolve({ received, error, ms }));
    socket.setTimeout(15_000, () => socket.destroy(new Error("timeout: no answer")));
  });
}

function expect413(result: { received: string; error: string | null }, limit: number) {
  expect(result.error).toBeNull();
  expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
  expect(result.received.toLowerCase()).toContain("connection: close");
  expect(JSON.parse(result.received.slice(result.received.indexOf("\r\n\r\n") + 4))).toMatchObject({
    type: "validation_error",
    code: "request_too_large",
    detail: `Request too large: bodies are limited to ${limit} bytes.`,
  });
}

async function healthMs(): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${sharedBaseUrl()}/_health`);
  expect(response.status).toBe(200);
  return performance.now() - started;
}

const chunked = (c: Buffer) => Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from("\r\n")]);

test("a 300 MB Content-Length to the management API is refused at once, and the server keeps answering", async () => {
  const head = `POST /api/projects/1/dashboards/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer phx_nobody\r\nContent-Length: ${300 * 1024 * 1024}\r\n\r\n`;
  // Only a bit of the body is sent: an answer that waited for the rest would never come.
  const refused = rawExchange(head, [Buffer.from('{"name":"'), Buffer.alloc(512 * 1024, 0x61)]);
  expect(await healthMs()).toBeLessThan(1_000);
  const result = await refused;
  expect413(result, 1024 * 1024);
  expect(result.ms).toBeLessThan(1_000);
  expect(await healthMs()).toBeLessThan(1_000);
});

test("a chunked 50 MB body to /s/ gets a 413 once past 1 MiB, and /_health answers within 1 s meanwhile", async () => {
  const head = "POST /s/?compression=gzip-js HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n";
  const pieces = Array.from({ length: 800 }, () => chunked(Buffer.alloc(64 * 1024, 0x20)));
  const refused = rawExchange(head, pieces);
  expect(await healthMs()).toBeLessThan(1_000);
  const result = await refused;
  expect(result.error).toBeNull();
  expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
  expect(result.received).toContain("request_too_large");
  expect(await healthMs()).toBeLessThan(1_000);
});

test("a chunked 2 MB body to tRPC gets a 413 the client can read", async () => {
  // A public mutation, which reads its input (a protected one answers 401 before reading).
  const head = "POST /api/trpc/auth.signUp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  const pieces = Array.from({ length: 32 }, () => chunked(Buffer.alloc(64 * 1024, 0x20)));
  expect413(await rawExchange(head, [...pieces, Buffer.from("0\r\n\r\n")]), 1024 * 1024);
  expect(await healthMs()).toBeLessThan(1_000);
});

/**
 * The shared server's resident memory and its peak since the last reset (Linux /proc). The
 * embedded database's lock file names the server's pid; writing 5 to clear_refs resets the peak.
 */
function serverMemoryMb(resetPeak = false): { rss: number; peak: number } {
  const pid = Number(fs.readFileSync(path.join(process.env.E2E_DATA_DIR!, "burrow.lock"), "utf8"));
  if (resetPeak) fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

for (const target of ["/batch/?compression=lz64", "/decide/?v=3&compression=lz64", "/s/?compression=lz64"]) {
  test(`an lz64 bomb to ${target} (55 KB that would expand to 289 MB) gets 413, grows RSS by under 300 MB, and /_health answers within 1 s`, async () => {
    const bomb = lz64Bomb(24_000);
    const before = serverMemoryMb(true);
    const refused = fetch(`${sharedBaseUrl()}${target}`, { method: "POST", body: bomb, headers: { "content-type": "text/plain" } });
    const health = await healthMs();
    const response = await refused;
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "request_too_large" });
    expect(health).toBeLessThan(1_000);
    // lz-string's own decoder peaked at about +590 MB on this body.
    expect(serverMemoryMb().peak - before.rss).toBeLessThan(300);
  });
}

test("signing in (next-auth, under the limit) still works", async ({ page }) => {
  await signInAsOwner(page);
});
