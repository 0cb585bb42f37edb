import type { IncomingMessage, ServerResponse } from "node:http";
import { declaredTooLarge, refuseTooLarge } from "./too-large";

/**
 * Body limit for everything the server hands to Next: the management REST API, tRPC and
 * next-auth's sign-in. Next reads a route's body whole before our code (and its
 * authentication) runs, so without this a 300 MB body was buffered for anyone. Their
 * bodies are small JSON or forms (the largest today, a dashboard or flag definition, is a
 * few KB), so 1 MB leaves room.
 */
export const NEXT_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Paths that need a larger body than NEXT_BODY_LIMIT_BYTES, and how large: a static cohort's
 * CSV upload (20 MB file, plus the form around it) — as multipart/form-data only: a JSON body
 * there gets the 1 MB of any other (21 MB of JSON stalled the server 19–24 s, issue 32).
 */
const LARGER_BODIES: ReadonlyArray<readonly [path: RegExp, bytes: number]> = [[/^\/api\/(projects|environments)\/[^/]+\/cohorts(\/(\d+\/?)?)?$/, 21 * 1024 * 1024]];

export function nextBodyLimitFor(pathname: string, contentType: string | undefined = undefined): number {
  if (!/^\s*multipart\/form-data/i.test(contentType ?? "")) return NEXT_BODY_LIMIT_BYTES;
  for (const [path, bytes] of LARGER_BODIES) if (path.test(pathname)) return bytes;
  return NEXT_BODY_LIMIT_BYTES;
}

/**
 * Holds a request bound for Next to `limit` bytes of body. A Content-Length over it is
 * answered 413 at once, unread (returns false: do not hand the request on). Otherwise the
 * body is counted as the parser hands it to the request stream, without reading it (Next
 * does that): past the limit the rest is dropped, never reaching Next, and the client gets
 * the 413, while Next's read of the body fails when the connection closes.
 */
export function holdBodyTo(req: IncomingMessage, res: ServerResponse, limit: number): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  if (declaredTooLarge(req, limit)) {
    refuseTooLarge(req, res, limit);
    return false;
  }
  let received = 0;
  let refused = false;
  // node:http hands each body chunk to the request with push(); counting there leaves the
  // stream untouched for whoever reads it.
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (refused) return true;
    if (chunk !== null) {
      received += (chunk as Buffer).length;
      if (received > limit) {
        refused = true;
        if (!res.headersSent) refuseTooLarge(req, res, limit);
        else req.socket.destroy();
        // Once the 413 is answered node no longer aborts the request when its socket
        // closes, and Next would wait for the rest of the body for ever: fail its read then.
        req.socket.once("close", () => {
          if (!req.readableEnded) req.destroy(new Error("request body too large"));
        });
        return true;
      }
    }
    return push(chunk, encoding);
  };
  return true;
}
