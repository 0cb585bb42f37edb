/** The delivery worker's settings: its defaults, and the environment's values (a malformed one stops start-up). */
import { ConfigError } from "@/server/db/config";
import { AllowlistError, currentAllowlist, type Resolver } from "@/server/outbound/service";

export interface DeliveryOptions {
  /** Rows in flight at once, across destinations. */
  concurrency: number;
  /** Requests per second per destination (burst: the same). */
  ratePerSecond: number;
  /** Attempts before an event fails for good. */
  maxAttempts: number;
  /** The first retry's delay; each next one doubles (up to maxBackoffMs). */
  backoffMs: number;
  maxBackoffMs: number;
  /** Consecutive failures that open the circuit, and for how long. */
  breakerFailures: number;
  breakerOpenMs: number;
  timeoutMs: number;
  /** How often to look for due rows when not kicked. */
  pollMs: number;
  /** A claimed row is due again after this if the process died holding it. */
  leaseMs: number;
  resolver?: Resolver;
}

/** A whole number of at least 1 from the environment, or the default when unset; anything else stops start-up (a typo must not silently mean the default, or 0). */
function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new ConfigError(`${name} must be a whole number of at least 1 (got "${text}").`);
  return Number(text);
}

/** The delivery settings of the environment; a malformed one (or a malformed BURROW_OUTBOUND_ALLOWLIST) is a ConfigError, which stops start-up. */
export function deliveryOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DeliveryOptions {
  try {
    currentAllowlist(env);
  } catch (error) {
    throw error instanceof AllowlistError ? new ConfigError(error.message) : error;
  }
  const timeoutMs = positive(env, "BURROW_DESTINATION_TIMEOUT_MS", 10_000);
  return {
    concurrency: positive(env, "BURROW_DESTINATION_CONCURRENCY", 16),
    ratePerSecond: positive(env, "BURROW_DESTINATION_RATE_LIMIT", 50),
    maxAttempts: positive(env, "BURROW_DESTINATION_MAX_ATTEMPTS", 8),
    backoffMs: positive(env, "BURROW_DESTINATION_BACKOFF_MS", 2_000),
    maxBackoffMs: 10 * 60_000,
    breakerFailures: 10,
    breakerOpenMs: positive(env, "BURROW_DESTINATION_BREAKER_MS", 60_000),
    timeoutMs,
    pollMs: 1_000,
    // Covers one round: each lane sends at most 4 requests, each within the timeout.
    leaseMs: 5 * timeoutMs + 10_000,
  };
}
