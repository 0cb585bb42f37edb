import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * After a 413, how long and how much of the rest of the body we read and drop before
 * closing. Closing a socket with request bytes still arriving makes the kernel send a TCP
 * reset, and the client's kernel then drops the 413 it has not read yet: SDKs saw a
 * network error and retried the same body. Two seconds is Apache's lingering close.
 */
const LINGER_MS = 2_000;
const LINGER_BYTES = 8 * 1024 * 1024;

/** Content-Length says the body is larger than `limit`: answer without reading it. */
export function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const declared = Number(req.headers["content-length"]);
  return Number.isFinite(declared) && declared > limit;
}

/**
 * A 413 in PostHog's error body with `Connection: close` that the client can read. Node
 * would close the socket as soon as the answer is written (`destroySoon`), which resets it
 * while the client is still sending. For this one socket: half-close after the answer,
 * keep reading and dropping the body for a bounded time and amount, then close.
 */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
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
  const body = JSON.stringify({
    type: "validation_error",
    code: "request_too_large",
    detail: `Request too large: bodies are limited to ${limit} bytes.`,
    attr: null,
  });
  res.writeHead(413, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), connection: "close" });
  res.end(body);
}
