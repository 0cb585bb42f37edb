import { NextResponse, type NextRequest } from "next/server";
import { RETURN_PATH_HEADER } from "@/server/auth/contract";

/**
 * Hands each page request's path and query to the server components (a layout cannot read
 * its URL otherwise), so that the signed-in layout can send a signed-out visitor to
 * `/login?callbackUrl=<this page>`. Nothing else: the session is checked in the layout.
 */
export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(RETURN_PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: not the APIs, the SDK endpoints, Next's assets or the public pages.
  matcher: ["/((?!api/|_next/|%5F|_health|_ready|capture|batch|e/|i/|decide|flags|track|engage|array|static|s/|shared/|login|signup|invite|reset-password|icon|favicon).*)"],
};
