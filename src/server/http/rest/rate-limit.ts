import { AppError } from "@/server/errors";
import { TokenBuckets } from "@/server/http/token-bucket";
import type { Principal } from "./principal";

/** Management API calls per key (or browser session) a minute; PostHog allows 480 for CRUD. */
export function apiRateLimitPerMinute(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.BURROW_API_RATE_LIMIT_PER_MINUTE);
  return Number.isInteger(value) && value > 0 ? value : 480;
}

const KEY = Symbol.for("burrow.apiRateLimit");

/** The process's buckets (one, although modules load twice), remade if the limit changes. */
function buckets(): TokenBuckets {
  const holder = globalThis as { [KEY]?: { perMinute: number; buckets: TokenBuckets } };
  const perMinute = apiRateLimitPerMinute();
  if (holder[KEY]?.perMinute !== perMinute) holder[KEY] = { perMinute, buckets: new TokenBuckets(perMinute, perMinute) };
  return holder[KEY].buckets;
}

/**
 * Throws a 429 (`throttled`, with the seconds to wait) when the caller is over its limit.
 * One limit for the REST API and tRPC: both count against `principal.rateKey` (a key, or a
 * browser session's user) in the same buckets, and tRPC counts each procedure of a batched
 * call (src/server/http/trpc/trpc.ts), so a batch of 40 costs what 40 requests do.
 */
export function checkApiRateLimit(principal: Pick<Principal, "rateKey">): void {
  const wait = buckets().take(principal.rateKey);
  if (wait > 0) throw new AppError("throttled", `Request was throttled. Expected available in ${wait} seconds.`, null, { retryAfter: wait });
}
