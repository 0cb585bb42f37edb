import type { ServerResponse } from "node:http";

/**
 * Sent with every response of the production server, pages, API and the fast path alike.
 * No page may be framed (clickjacking of the signed-in UI): `frame-ancestors 'none'` for
 * browsers that read CSP, `X-Frame-Options` for older ones. Shared dashboards
 * (`/shared/<token>`) are no exception, since Burrow offers no embed option; a future one
 * would relax these two for that page only. No script CSP: Next's inline scripts would need
 * per-request nonces, which would make every page dynamic.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/**
 * Sets them before any handler runs: Node merges them into the handler's own `writeHead`,
 * and Next adds its headers with `setHeader`, so one call covers both paths.
 */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const name in SECURITY_HEADERS) res.setHeader(name, SECURITY_HEADERS[name]!);
}
