import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/next-auth";
import { signInThrottle, throttledError } from "@/server/auth/service";
import { serverEnvFrom } from "@/server/env";
import { errorResponse } from "@/server/http/rest/respond";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

const nextAuth = (request: Request, context: Context) => NextAuth(request as never, context as never, authOptions());

export const GET = nextAuth;

/**
 * A locked-out address gets 429 with Retry-After before next-auth sees the attempt. The
 * body also carries the `url` next-auth's client reads its `error` from.
 */
export async function POST(request: Request, context: Context): Promise<Response> {
  if (new URL(request.url).pathname.endsWith("/callback/credentials")) {
    const form = await request.clone().formData().catch(() => null);
    const email = String(form?.get("email") ?? "").trim().toLowerCase();
    const wait = signInThrottle().retryAfter(email);
    if (wait > 0) {
      const response = errorResponse(throttledError(wait));
      const body = { ...(await response.json()), url: `${serverEnvFrom().siteUrl}/login?error=throttled` };
      return Response.json(body, { status: response.status, headers: response.headers });
    }
  }
  return nextAuth(request, context);
}
