import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/next-auth";
import { signInThrottle, throttledError } from "@/server/auth/service";
import { serverEnvFrom } from "@/server/env";
import { errorResponse } from "@/server/http/rest/respond";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

const nextAuth = (request: Request, context: Context) => NextAuth(request as never, context as never, authOptions());

export const GET = nextAuth;

/** 429 with Retry-After; the body also carries the `url` next-auth's client reads its `error` from. */
async function throttled(seconds: number): Promise<Response> {
  const response = errorResponse(throttledError(Math.max(1, seconds)));
  const body = { ...(await response.json()), url: `${serverEnvFrom().siteUrl}/login?error=throttled` };
  return Response.json(body, { status: response.status, headers: response.headers });
}

/**
 * Every sign-in the throttle refuses answers 429: a locked-out address, or one whose five
 * slots are taken by attempts still running, before next-auth sees it; and one refused inside
 * next-auth (it raced another attempt for the last slot), which next-auth itself would report
 * as a 401 like a wrong password.
 */
export async function POST(request: Request, context: Context): Promise<Response> {
  if (!new URL(request.url).pathname.endsWith("/callback/credentials")) return nextAuth(request, context);
  const form = await request.clone().formData().catch(() => null);
  const email = String(form?.get("email") ?? "").trim().toLowerCase();
  const throttle = signInThrottle();
  const wait = throttle.refusedFor(email);
  if (wait > 0) return throttled(wait);
  const response = await nextAuth(request, context);
  if (response.status === 401) {
    const body = (await response.clone().json().catch(() => null)) as { url?: unknown } | null;
    if (typeof body?.url === "string" && new URL(body.url, "http://localhost").searchParams.get("error") === "throttled") return throttled(throttle.refusedFor(email));
  }
  return response;
}
