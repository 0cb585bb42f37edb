import { serverEnvFrom } from "@/server/env";
import { AppError } from "@/server/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Cookie-authenticated writes must come from Burrow's own pages: browsers always send
 * `Origin` (or at least `Referer`) on cross-site POST/PATCH/DELETE, so a foreign or missing
 * origin is refused. Same-origin means this request's host or SITE_URL.
 */
export function checkCsrf(request: Request): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get("origin") ?? originOf(request.headers.get("referer"));
  const url = new URL(request.url);
  const allowed = new Set([url.origin, new URL(serverEnvFrom().siteUrl).origin]);
  const host = request.headers.get("host");
  if (host) allowed.add(`${url.protocol}//${host}`);
  if (!origin || !allowed.has(origin)) {
    throw new AppError("permission_denied", "CSRF check failed: cookie-authenticated writes must come from Burrow's own pages.");
  }
}
