/**
 * The shape the hot-path handlers are written in. The server's fast path builds these
 * straight from node:http (no Request/Headers/Response objects: they cost more than the
 * handlers on a 2-core machine), and `asRouteHandler` adapts the same function to a Next
 * route handler, so `next dev` and other hosts serve the paths too.
 */
export interface RawRequest {
  method: string;
  /** Path and query, as sent (`/batch/?compression=gzip`). */
  url: string;
  /** A header by lower-case name, several values joined by ", ", or null. */
  header(name: string): string | null;
  body: Uint8Array;
  /** The peer's address (the last hop); X-Forwarded-For says more. */
  remoteAddress: string | null;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Text, or bytes as read from a file (posthog-js's bundles at /static/). */
  body: string | Uint8Array<ArrayBuffer> | null;
}

/** `maxBodyBytes`: a smaller bound than the server's 20 MB, enforced while reading (`/s/`). */
export type RawHandler = ((request: RawRequest) => Promise<RawResponse>) & { maxBodyBytes?: number };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) };
}

/** A RawHandler as a Next route handler (`export const POST = asRouteHandler(handler)`). */
export function asRouteHandler(handler: RawHandler) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const raw = await handler({
      method: request.method,
      url: url.pathname + url.search,
      header: (name) => request.headers.get(name),
      body: hasBody ? new Uint8Array(await request.arrayBuffer()) : new Uint8Array(),
      remoteAddress: null,
    });
    return new Response(raw.body, { status: raw.status, headers: raw.headers });
  };
}
