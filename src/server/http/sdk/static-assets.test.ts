/**
 * posthog-js's bundles at /static/, through the server's real fast path (matchFastRoute +
 * serveRaw on a node:http server), compared byte for byte with the installed package.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchFastRoute } from "@/server/http/fast-routes";
import { serveRaw } from "@/server/http/node-adapter";

const DIST = path.resolve("node_modules/posthog-js/dist");
const VERSION = (JSON.parse(fs.readFileSync(path.resolve("node_modules/posthog-js/package.json"), "utf8")) as { version: string }).version;

let server: http.Server;
let base = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const handler = matchFastRoute((req.url ?? "/").split("?")[0]!);
    if (handler) void serveRaw(handler, req, res);
    else res.writeHead(599).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("GET /static/<name>", () => {
  it("serves the snippet's array.js as the package has it, as JavaScript, cacheable, to any origin", async () => {
    const response = await fetch(`${base}/static/array.js`, { headers: { origin: "https://shop.example" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(Buffer.from(await response.arrayBuffer()).equals(fs.readFileSync(path.join(DIST, "array.js")))).toBe(true);
  });

  it.each(["recorder", "surveys", "exception-autocapture", "web-vitals", "dead-clicks-autocapture"])(
    "serves the lazily loaded %s.js as posthog-js asks for it (?v=<version>), cached for a year",
    async (name) => {
      const response = await fetch(`${base}/static/${name}.js?v=${VERSION}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(Buffer.from(await response.arrayBuffer()).equals(fs.readFileSync(path.join(DIST, `${name}.js`)))).toBe(true);
    },
  );

  it("serves /static/<version>/<name>.js (strict_script_versioning) for the installed version only", async () => {
    const current = await fetch(`${base}/static/${VERSION}/surveys.js`);
    expect(current.status).toBe(200);
    expect(current.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await current.text()).length).toBe(fs.statSync(path.join(DIST, "surveys.js")).size);
    expect((await fetch(`${base}/static/1.0.0/surveys.js`)).status).toBe(404);
  });

  it("answers a stale ?v= with the current file and the short cache", async () => {
    const response = await fetch(`${base}/static/recorder.js?v=1.0.0`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
  });

  it("serves source maps as JSON", async () => {
    const response = await fetch(`${base}/static/array.js.map`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect((await response.json()) as object).toHaveProperty("mappings");
  });

  it("answers HEAD with the headers and no body, and If-None-Match with 304", async () => {
    const head = await fetch(`${base}/static/array.js`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(fs.statSync(path.join(DIST, "array.js")).size));
    expect(await head.text()).toBe("");
    const etag = head.headers.get("etag")!;
    const again = await fetch(`${base}/static/array.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
  });

  it.each([
    ["a name not in dist", "/static/nope.js"],
    ["a type declaration", "/static/array.d.ts"],
    ["a CommonJS build", "/static/module.cjs"],
    ["the package's own package.json", "/static/..%2Fpackage.json"],
    ["an encoded traversal", "/static/%2e%2e%2f%2e%2e%2fpackage.json"],
    ["a traversal through the version segment", "/static/..%2F..%2F/package.json"],
    ["an upper-case name", "/static/ARRAY.JS"],
    ["a hidden name", "/static/.array.js"],
  ])("answers 404 for %s", async (_, target) => {
    const response = await fetch(`${base}${target}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ type: "invalid_request", code: "not_found", detail: "Not found.", attr: null });
  });

  it("refuses other methods with 405", async () => {
    const response = await fetch(`${base}/static/array.js`, { method: "POST", body: "x" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});
