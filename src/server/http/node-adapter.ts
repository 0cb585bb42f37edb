import type { IncomingMessage, ServerResponse } from "node:http";
import type { RawHandler } from "./raw";

/** Requests larger than this are refused before a handler sees them (PostHog accepts 20 MB). */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

const EMPTY = new Uint8Array();

/**
 * After a 413, how long and how much of the rest of the body we read and drop before
 * closing. Closing a socket with request bytes still arriving makes the kernel send a TCP
 * reset, and the client's kernel then drops the 413 it has not read yet: SDKs saw a
 * network error and retried the same body. Two seconds is Apache's lingering close.
 */
const LINGER_MS = 2_000;
const LINGER_BYTES = 8 * 1024 * 1024;

/** The body, or null once it passes MAX_BODY_BYTES (then the rest is left unread). */
function readBody(req: IncomingMessage): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off("data", onData);
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Content-Length says the body is too large: answer without reading it. */
function declaredTooLarge(req: IncomingMessage): boolean {
  const declared = Number(req.headers["content-length"]);
  return Number.isFinite(declared) && declared > MAX_BODY_BYTES;
}

/**
 * A 413 with `Connection: close` that the client can read: node would close the socket as
 * soon as the answer is written (`destroySoon`), which resets it while the client is still
 * sending. For this one socket: half-close after the answer, keep reading and dropping the
 * body for a bounded time and amount, then close.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  let drained = 0;
  let lingering = false;
  const close = () => socket.destroy();
  // Counted from now: a listener added only after the answer saw no data (node had stopped
  // handing the socket's bytes to anyone by then, so the client's FIN never arrived).
  socket.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (lingering && drained > LINGER_BYTES) close();
  });
  socket.destroySoon = () => {
    lingering = true;
    socket.end();
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    socket.once("end", close);
  };
  req.resume();
  send(res, 413, { "content-type": "application/json", connection: "close" }, JSON.stringify({
    type: "validation_error",
    code: "request_too_large",
    detail: `Request too large: bodies are limited to ${MAX_BODY_BYTES} bytes.`,
    attr: null,
  }));
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | null) {
  if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  res.writeHead(status, headers);
  res.end(body ?? undefined);
}

/** Serves a node request with a hot-path handler. */
export async function serveRaw(handler: RawHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && declaredTooLarge(req)) return refuseTooLarge(req, res);
    const body = method === "GET" || method === "HEAD" ? EMPTY : await readBody(req);
    if (body === null) return refuseTooLarge(req, res);
    const peer = req.socket.remoteAddress ?? null;
    const response = await handler({
      method,
      url: req.url ?? "/",
      header(name) {
        const value = req.headers[name];
        // As Next does for its routes: the peer's address ends X-Forwarded-For.
        if (name === "x-forwarded-for") return [value, peer].flat().filter(Boolean).join(", ") || null;
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
      body,
      remoteAddress: peer,
    });
    send(res, response.status, { ...response.headers }, method === "HEAD" ? null : response.body);
  } catch (error) {
    console.error("burrow: fast path failed", error);
    if (!res.headersSent) send(res, 500, { "content-type": "application/json" }, JSON.stringify({ type: "server_error", code: "error", detail: "A server error occurred.", attr: null }));
    else res.end();
  }
}
