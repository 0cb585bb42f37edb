import type { RawRequest, RawResponse } from "@/server/http/raw";

/**
 * CORS for the SDK endpoints (capture, flags, remote config, product lists): browsers send
 * them from any site, so mirror the origin and the requested headers.
 */
export function corsHeaders(request: RawRequest): Record<string, string> {
  const origin = request.header("origin");
  return {
    "access-control-allow-origin": origin ?? "*",
    ...(origin ? { "access-control-allow-credentials": "true", vary: "Origin" } : {}),
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": request.header("access-control-request-headers") ?? "*",
    "access-control-max-age": "86400",
  };
}

/** A JSON answer with CORS. */
export function corsJson(request: RawRequest, status: number, body: unknown): RawResponse {
  return corsJsonText(request, status, JSON.stringify(body));
}

/** The same, for a body already serialised (the flag endpoints build theirs from cached pieces). */
export function corsJsonText(request: RawRequest, status: number, text: string): RawResponse {
  return { status, headers: { "content-type": "application/json", ...corsHeaders(request) }, body: text };
}

/** PostHog's error body (`type`, `code`, `detail`, `attr: null`) with CORS. */
export function corsError(request: RawRequest, status: number, type: string, code: string, detail: string): RawResponse {
  return corsJson(request, status, { type, code, detail, attr: null });
}
