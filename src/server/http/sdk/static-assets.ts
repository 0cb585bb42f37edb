/**
 * posthog-js's browser bundles, served from the installed `posthog-js` package's `dist/`:
 *
 * - `/static/array.js` (and the other builds) is what PostHog's HTML snippet loads from
 *   `<api_host>`;
 * - `/static/<name>.js?v=<version>` is how posthog-js lazy-loads its extensions (recorder,
 *   surveys, exception-autocapture, web-vitals, dead-clicks-autocapture, …);
 * - `/static/<version>/<name>.js` is the same with `strict_script_versioning`.
 *
 * Only names listed in `dist/` when it is first read are served, so a request never reaches
 * the file system with a name of its own (no traversal, no probing). Files are read on first
 * use and kept (each is at most a few hundred kilobytes, and only what browsers ask for is
 * read). On the fast path: browsers fetch these once per page load.
 *
 * Kept as bytes, not text: node:http encodes a string body on every response, which for the
 * 380 KB array.js measured 660–1,180 req/s on a bare node:http server against 3,400–7,800 for
 * the same bytes (wrk, 20 connections, shared 2-core machine); this handler did 2,600–6,800.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { RawRequest, RawResponse } from "../raw";

/** A bundle or its source map; anything else (d.ts, cjs, the `src/` tree) is not served. */
const ASSET_NAME = /^[a-z0-9][a-z0-9.-]*\.js(\.map)?$/;
const ASSET_PATH = /^\/static\/(?:([^/]+)\/)?([^/]+?)\/?$/;

/** `?v=<this version>` or `/static/<this version>/` names exactly these bytes: cache for a year. */
const VERSIONED_CACHE = "public, max-age=31536000, immutable";
/** The snippet's unversioned `/static/array.js` changes when Burrow's posthog-js is upgraded. */
const UNVERSIONED_CACHE = "public, max-age=3600";

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  contentType: string;
}

interface Dist {
  dir: string;
  version: string;
  names: ReadonlySet<string>;
  files: Map<string, Promise<Asset>>;
}

let distPromise: Promise<Dist> | undefined;

/** The package is resolved from the working directory (Burrow's root), as `npm start` runs. */
async function loadDist(): Promise<Dist> {
  const packageJson = createRequire(path.join(process.cwd(), "package.json")).resolve("posthog-js/package.json");
  const { version } = JSON.parse(await readFile(packageJson, "utf8")) as { version: string };
  const dir = path.join(path.dirname(packageJson), "dist");
  const entries = await readdir(dir, { withFileTypes: true });
  const names = new Set(entries.filter((entry) => entry.isFile() && ASSET_NAME.test(entry.name)).map((entry) => entry.name));
  return { dir, version, names, files: new Map() };
}

function dist(): Promise<Dist> {
  distPromise ??= loadDist().catch((error: unknown) => {
    distPromise = undefined;
    throw error;
  });
  return distPromise;
}

async function readAsset(dir: string, name: string): Promise<Asset> {
  // A plain Uint8Array (one copy): what both Response and node:http take.
  const body = new Uint8Array(await readFile(path.join(dir, name)));
  return {
    body,
    etag: `"${createHash("sha1").update(body).digest("base64url")}"`,
    contentType: name.endsWith(".map") ? "application/json; charset=utf-8" : "application/javascript; charset=utf-8",
  };
}

function assetOf(bundle: Dist, name: string): Promise<Asset> {
  let file = bundle.files.get(name);
  if (!file) {
    file = readAsset(bundle.dir, name);
    // A failed read is not remembered: the next request tries again.
    file.catch(() => bundle.files.delete(name));
    bundle.files.set(name, file);
  }
  return file;
}

const CORS = { "access-control-allow-origin": "*" };

function notFound(): RawResponse {
  return {
    status: 404,
    headers: { "content-type": "application/json", ...CORS },
    body: JSON.stringify({ type: "invalid_request", code: "not_found", detail: "Not found.", attr: null }),
  };
}

/** `GET|HEAD /static/[<version>/]<name>`: a file of posthog-js's `dist/`, or 404. */
export async function rawStaticAsset(request: RawRequest): Promise<RawResponse> {
  if (request.method === "OPTIONS") {
    return { status: 204, headers: { ...CORS, "access-control-allow-methods": "GET, HEAD, OPTIONS", "access-control-max-age": "86400" }, body: null };
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return {
      status: 405,
      headers: { "content-type": "application/json", allow: "GET, HEAD, OPTIONS", ...CORS },
      body: JSON.stringify({ type: "invalid_request", code: "method_not_allowed", detail: `Method "${request.method}" not allowed.`, attr: null }),
    };
  }
  const url = new URL(request.url, "http://localhost");
  const match = ASSET_PATH.exec(url.pathname);
  if (!match) return notFound();
  const [, pathVersion, name] = match;
  const bundle = await dist();
  if (!bundle.names.has(name!) || (pathVersion !== undefined && pathVersion !== bundle.version)) return notFound();
  const asset = await assetOf(bundle, name!);
  const versioned = pathVersion !== undefined || url.searchParams.get("v") === bundle.version;
  const headers: Record<string, string> = {
    "cache-control": versioned ? VERSIONED_CACHE : UNVERSIONED_CACHE,
    etag: asset.etag,
    "x-content-type-options": "nosniff",
    ...CORS,
  };
  const presented = request.header("if-none-match")?.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (presented?.includes(asset.etag) || presented?.includes("*")) return { status: 304, headers, body: null };
  return { status: 200, headers: { ...headers, "content-type": asset.contentType, "content-length": String(asset.body.length) }, body: asset.body };
}
