/**
 * The guarded client against real sockets: a sink on loopback, reached by a name that
 * resolves to 127.0.0.1 (a resolver of the test's own, as a DNS record pointing inside would),
 * refused at connect time unless allowlisted, and redirects checked at each hop.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllowlist } from "./addresses";
import { OutboundRefusedError, outboundRequest, type Resolver } from "./client";

let server: http.Server;
let port = 0;
const hits: string[] = [];
let connections = 0;
/** Requests served per socket, for the keep-alive tests. */
const served = new WeakMap<object, number>();

/** sink.test and rebind.test resolve to 127.0.0.1, as an attacker's DNS record would. */
const toLoopback: Resolver = (hostname, _options, callback) => {
  if (hostname === "sink.test" || hostname === "rebind.test") callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const before = served.get(req.socket) ?? 0;
    served.set(req.socket, before + 1);
    // As a server closing an idle connection just as a request arrives on it.
    if (req.url === "/drop-reused" && before > 0) return void req.socket.destroy();
    if (req.url === "/to-loopback") res.writeHead(302, { location: `http://127.0.0.1:${port}/inside` }).end();
    else if (req.url === "/to-name") res.writeHead(307, { location: `http://rebind.test:${port}/inside` }).end();
    else if (req.url === "/slow") setTimeout(() => res.end("late"), 2_000);
    // Headers, then a byte every 200 ms forever: never idle, never done.
    else if (req.url === "/trickle") {
      res.writeHead(200, { "content-type": "text/plain" });
      const drip = setInterval(() => res.write("x"), 200);
      res.on("close", () => clearInterval(drip));
    }
    // A body without end, as fast as the socket takes it.
    else if (req.url === "/endless") {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(16 * 1024, "y");
      const pour = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", pour);
      pour();
    }
    else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("outbound client", () => {
  it("refuses a name resolving to 127.0.0.1 without the allowlist, before anything is sent", async () => {
    const before = hits.length;
    await expect(outboundRequest({ url: `http://sink.test:${port}/hook`, method: "POST", body: "{}" }, parseAllowlist(""), toLoopback)).rejects.toThrow(OutboundRefusedError);
    await expect(outboundRequest({ url: `http://sink.test:${port}/hook`, method: "POST" }, parseAllowlist(""), toLoopback)).rejects.toThrow(/resolves to 127\.0\.0\.1/);
    expect(hits.length).toBe(before);
  });

  it("reaches it once 127.0.0.1 (or the name) is allowlisted", async () => {
    const byAddress = await outboundRequest({ url: `http://sink.test:${port}/hook`, method: "POST", body: "{}" }, parseAllowlist("127.0.0.1"), toLoopback);
    expect(byAddress.status).toBe(200);
    const byName = await outboundRequest({ url: `http://sink.test:${port}/hook`, method: "GET" }, parseAllowlist("sink.test"), toLoopback);
    expect(byName.body).toBe("ok");
  });

  it("refuses a literal loopback URL without connecting", async () => {
    const before = hits.length;
    await expect(outboundRequest({ url: `http://2130706433:${port}/`, method: "GET" }, parseAllowlist(""))).rejects.toThrow(OutboundRefusedError);
    expect(hits.length).toBe(before);
  });

  it("checks every redirect hop", async () => {
    // sink.test is allowed by name; the hop to 127.0.0.1 itself is not.
    const list = parseAllowlist("sink.test");
    await expect(outboundRequest({ url: `http://sink.test:${port}/to-loopback`, method: "GET", maxRedirects: 3 }, list, toLoopback)).rejects.toThrow(/127\.0\.0\.1/);
    await expect(outboundRequest({ url: `http://sink.test:${port}/to-name`, method: "GET", maxRedirects: 3 }, list, toLoopback)).rejects.toThrow(/rebind\.test resolves to 127\.0\.0\.1/);
    expect(hits).not.toContain("GET /inside");
    // Not following: the 3xx is the answer.
    const answer = await outboundRequest({ url: `http://sink.test:${port}/to-loopback`, method: "GET" }, list, toLoopback);
    expect(answer.status).toBe(302);
  });

  it("gives up at its deadline", async () => {
    const started = Date.now();
    await expect(outboundRequest({ url: `http://127.0.0.1:${port}/slow`, method: "GET", timeoutMs: 200 }, parseAllowlist("127.0.0.1"))).rejects.toThrow(/timed out/);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("gives up at its deadline when the receiver trickles a byte every 200 ms forever", async () => {
    const started = Date.now();
    await expect(outboundRequest({ url: `http://127.0.0.1:${port}/trickle`, method: "POST", body: "{}", timeoutMs: 1_000 }, parseAllowlist("127.0.0.1"))).rejects.toThrow(/timed out after 1000 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("answers the body cut at its limit and stops reading an endless one", async () => {
    const started = Date.now();
    const answer = await outboundRequest({ url: `http://127.0.0.1:${port}/endless`, method: "GET", timeoutMs: 20_000, maxBodyBytes: 100_000 }, parseAllowlist("127.0.0.1"));
    expect(answer.status).toBe(200);
    expect(answer.body).toBe("y".repeat(100_000));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("keeps connections alive, one pool per allowlist", async () => {
    const list = parseAllowlist("127.0.0.1");
    const first = connections;
    for (let i = 0; i < 3; i++) expect((await outboundRequest({ url: `http://sink.test:${port}/hook`, method: "POST", body: "{}" }, list, toLoopback)).status).toBe(200);
    expect(connections - first).toBe(1);
    // Another allowlist never reuses a socket the first one's lookup admitted.
    await outboundRequest({ url: `http://sink.test:${port}/hook`, method: "POST", body: "{}" }, parseAllowlist("127.0.0.1"), toLoopback);
    expect(connections - first).toBe(2);
  });

  it("sends again on a new socket when a kept-alive one was closed under it", async () => {
    const list = parseAllowlist("127.0.0.1");
    expect((await outboundRequest({ url: `http://sink.test:${port}/drop-reused`, method: "POST", body: "{}" }, list, toLoopback)).status).toBe(200);
    const before = hits.length;
    const answer = await outboundRequest({ url: `http://sink.test:${port}/drop-reused`, method: "POST", body: "{}" }, list, toLoopback);
    expect(answer.status).toBe(200);
    expect(hits.slice(before)).toEqual(["POST /drop-reused", "POST /drop-reused"]); // the dropped request, then the one on a new socket
  });
});
