import type { IncomingMessage, ServerResponse } from "node:http";
import type { RawHandler } from "./raw";
import { declaredTooLarge, refuseTooLarge } from "./too-large";

/** Requests larger than this are refused before a handler sees them (PostHog accepts 20 MB). */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

const EMPTY = new Uint8Array();

/** The body, or null once it passes `limit` (then the rest is left unread). */
function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
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

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Uint8Array | null) {
  if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  res.writeHead(status, headers);
  res.end(body ?? undefined);
}

/** Serves a node request with a hot-path handler. */
export async function serveRaw(handler: RawHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const method = req.method ?? "GET";
    const limit = handler.maxBodyBytes ?? MAX_BODY_BYTES;
    if (method !== "GET" && method !== "HEAD" && declaredTooLarge(req, limit)) return refuseTooLarge(req, res, limit);
    const body = method === "GET" || method === "HEAD" ? EMPTY : await readBody(req, limit);
    if (body === null) return refuseTooLarge(req, res, limit);
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
