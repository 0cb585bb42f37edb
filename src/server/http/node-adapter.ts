import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { FetchHandler } from "./fast-routes";

/** Requests larger than this are refused before a handler sees them (PostHog accepts 20 MB). */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // As Next does for its routes: the peer's address goes at the end of X-Forwarded-For.
  const peer = req.socket.remoteAddress;
  if (peer) headers.append("x-forwarded-for", peer);
  return headers;
}

/** Serves a node request with a fetch-style handler (the same function Next routes export). */
export async function serveWithFetchHandler(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
): Promise<void> {
  try {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const body = hasBody ? await readBody(req) : undefined;
    if (body === null) {
      res.writeHead(413, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify({ type: "validation_error", code: "payload_too_large", detail: `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`, attr: null }));
      return;
    }
    const request = new Request(new URL(req.url ?? "/", origin), {
      method: req.method,
      headers: toHeaders(req),
      // A Buffer is a Uint8Array; TypeScript's BodyInit only lacks the ArrayBufferLike variant.
      body: body && body.length > 0 ? (body as Uint8Array<ArrayBuffer>) : undefined,
    });
    const response = await handler(request);
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, key) => {
      headers[key] = key === "set-cookie" ? response.headers.getSetCookie() : value;
    });
    res.writeHead(response.status, headers);
    if (!response.body || req.method === "HEAD") {
      res.end();
      return;
    }
    Readable.fromWeb(response.body as import("node:stream/web").ReadableStream).pipe(res);
  } catch (error) {
    console.error("burrow: fast path failed", error);
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "server_error", code: "error", detail: "A server error occurred.", attr: null }));
  }
}
