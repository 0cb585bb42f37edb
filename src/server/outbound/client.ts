/**
 * Outbound HTTP for destinations (and later alerts, subscriptions, exports): node's http
 * client with a `lookup` that refuses non-public addresses once a name is resolved, so a name
 * that resolves (or is re-pointed, DNS rebinding) to 127.0.0.1 is refused at connect time.
 * Redirects are followed by hand, each hop checked like the first. Every request has a
 * deadline and a bounded response body.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { addressAllowed, currentAllowlist, type OutboundAllowlist } from "./addresses";
import { bareHost, checkOutboundUrl } from "./url";

export class OutboundRefusedError extends Error {
  override name = "OutboundRefusedError";
}

export interface OutboundRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  /** Text, or bytes (a batch export's file). */
  body?: string | Buffer;
  /** The whole exchange, connect to last byte. */
  timeoutMs?: number;
  /** Redirects to follow (each hop checked); 0 answers the 3xx itself. */
  maxRedirects?: number;
  /** The most of the answer's body kept (MAX_BODY when not given): an S3 listing is larger. */
  maxBodyBytes?: number;
}

export interface OutboundResponse {
  status: number;
  /** At most MAX_BODY bytes of the body (or the request's maxBodyBytes), as text. */
  body: string;
  /** The URL that answered (after redirects). */
  url: string;
  /** The answer's headers (an S3 part's ETag). */
  headers: http.IncomingHttpHeaders;
}

/** dns.lookup's shape with `all: true`; tests give a resolver of their own (a name that resolves to 127.0.0.1). */
export type Resolver = (hostname: string, options: dns.LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

const MAX_BODY = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

/** A lookup that resolves as usual, then refuses when any resolved address is not allowed (unless the name is listed). */
export function guardedLookup(allowlist: OutboundAllowlist, resolve: Resolver = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return (callback as (e: Error) => void)(error);
      const list = addresses as dns.LookupAddress[];
      const name = hostname.replace(/\.$/, "").toLowerCase();
      const refused = allowlist.hosts.has(name) ? undefined : list.find((a) => !addressAllowed(a.address, allowlist));
      if (refused) {
        const err = new OutboundRefusedError(`${hostname} resolves to ${refused.address}, a private, loopback or link-local address; list it in BURROW_OUTBOUND_ALLOWLIST to allow it`);
        return (callback as (e: Error) => void)(err);
      }
      if (list.length === 0) return (callback as (e: Error) => void)(new Error(`${hostname} has no address`));
      if ((options as dns.LookupOptions).all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      (callback as (e: null, a: string, f: number) => void)(null, list[0]!.address, list[0]!.family);
    });
  };
}

/**
 * Kept-alive connections, one pool per allowlist and resolver, each pool's sockets opened
 * through the guarded lookup of those: a pooled socket was checked when it connected, under
 * the same rules, so reusing it is as safe as connecting again, without a TCP (and TLS)
 * handshake per delivery. Idle sockets close after 4 s, before the 5 s idle limit of node's
 * own servers, so a reused socket is rarely one the other side is closing.
 */
const pools = new WeakMap<OutboundAllowlist, Map<Resolver, { http: http.Agent; https: https.Agent }>>();
const IDLE_SOCKET_MS = 4_000;

function agentFor(url: URL, allowlist: OutboundAllowlist, resolver: Resolver = dns.lookup as Resolver): http.Agent {
  let byResolver = pools.get(allowlist);
  if (!byResolver) {
    byResolver = new Map();
    pools.set(allowlist, byResolver);
  }
  let pool = byResolver.get(resolver);
  if (!pool) {
    const options = { keepAlive: true, maxFreeSockets: 16, timeout: IDLE_SOCKET_MS, lookup: guardedLookup(allowlist, resolver) };
    pool = { http: new http.Agent(options), https: new https.Agent(options) };
    byResolver.set(resolver, pool);
  }
  return url.protocol === "https:" ? pool.https : pool.http;
}

/** A kept-alive socket the other side closed as the request went out: nothing was answered, so the hop is tried once more on a new socket. */
class StaleSocketError extends Error {}

function once(request: Required<Pick<OutboundRequest, "method">> & OutboundRequest, url: URL, allowlist: OutboundAllowlist, deadline: number, resolver?: Resolver): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new Error("timed out"));
    const client = url.protocol === "https:" ? https : http;
    const headers: Record<string, string> = { "user-agent": "Burrow", ...request.headers };
    if (request.body !== undefined) headers["content-length"] = String(Buffer.byteLength(request.body));
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const req = client.request(
      url,
      { method: request.method, headers, agent: agentFor(url, allowlist, resolver), servername: servernameOf(url) },
      (res) => {
        const chunks: Buffer[] = [];
        const maxBody = request.maxBodyBytes ?? MAX_BODY;
        let size = 0;
        const answer = () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers });
        };
        res.on("data", (chunk: Buffer) => {
          if (size < maxBody) chunks.push(chunk.subarray(0, maxBody - size));
          size += chunk.length;
          // Past the limit the rest is not read: the answer is the body cut at the limit, as before, and the socket is dropped.
          if (size > maxBody) {
            answer();
            req.destroy();
          }
        });
        res.on("end", answer);
        res.on("error", fail);
      },
    );
    // A hard deadline, not req.setTimeout's idle one: a receiver trickling a byte every few
    // seconds never goes idle, and would hold the request (and the worker waiting on it) forever.
    const timer = setTimeout(() => {
      reject(new Error(`timed out after ${request.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`));
      req.destroy();
    }, remaining);
    req.on("error", (error: NodeJS.ErrnoException) => fail(req.reusedSocket && error.code === "ECONNRESET" ? new StaleSocketError(error.message) : error));
    req.end(request.body);
  });
}

/** SNI for a name; none for an IP literal (TLS forbids it). */
function servernameOf(url: URL): string | undefined {
  const host = bareHost(url);
  return /^[\d.]+$/.test(host) || host.includes(":") ? undefined : host;
}

/**
 * A host resolved and checked as a connection to it would be (for clients that are not HTTP,
 * a PostgreSQL batch export): the first allowed address, or OutboundRefusedError.
 */
export function resolveOutboundHost(host: string, allowlist: OutboundAllowlist = currentAllowlist(), resolver?: Resolver): Promise<string> {
  const verdict = checkOutboundUrl(`http://${host.includes(":") ? `[${host}]` : host}/`, allowlist);
  if (!verdict.ok) return Promise.reject(new OutboundRefusedError(`The host ${verdict.reason}.`));
  return new Promise((resolve, reject) => {
    guardedLookup(allowlist, resolver)(host, { all: false }, ((error: Error | null, address: string) => (error ? reject(error) : resolve(address))) as never);
  });
}

/** Sends one request to a checked URL; refuses (OutboundRefusedError) what the allowlist does not allow, at any hop. */
export async function outboundRequest(request: OutboundRequest, allowlist: OutboundAllowlist = currentAllowlist(), resolver?: Resolver): Promise<OutboundResponse> {
  const deadline = Date.now() + (request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let target = request.url;
  let method = request.method.toUpperCase();
  let body = request.body;
  for (let hop = 0; ; hop++) {
    const verdict = checkOutboundUrl(target, allowlist);
    if (!verdict.ok) throw new OutboundRefusedError(`The URL ${verdict.reason}.`);
    const sent = { ...request, method, body };
    const answer = await once(sent, verdict.url, allowlist, deadline, resolver).catch((error: unknown) => {
      if (error instanceof StaleSocketError) return once(sent, verdict.url, allowlist, deadline, resolver);
      throw error;
    });
    const redirect = answer.status >= 300 && answer.status < 400 && answer.headers.location;
    if (!redirect || hop >= (request.maxRedirects ?? 0)) return { status: answer.status, body: answer.body, url: verdict.url.href, headers: answer.headers };
    target = new URL(answer.headers.location!, verdict.url).href;
    // 303 (and 301/302 after a POST, as browsers do) turn into a GET without a body.
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
  }
}
