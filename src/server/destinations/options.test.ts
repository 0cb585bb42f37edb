/** The destinations' settings from the environment: defaults, values, and a typo that stops start-up. */
import { describe, expect, it } from "vitest";
import { ConfigError } from "@/server/db/config";
import { deliveryOptionsFromEnv as fromEnv } from "./options";

const deliveryOptionsFromEnv = (vars: Record<string, string>) => fromEnv(vars as unknown as NodeJS.ProcessEnv);

describe("destinations' settings", () => {
  it("default when unset, and read when given", () => {
    expect(deliveryOptionsFromEnv({})).toMatchObject({ concurrency: 16, ratePerSecond: 50, maxAttempts: 8, backoffMs: 2000, breakerOpenMs: 60_000, timeoutMs: 10_000, leaseMs: 60_000 });
    expect(deliveryOptionsFromEnv({ BURROW_DESTINATION_RATE_LIMIT: " 5 ", BURROW_DESTINATION_TIMEOUT_MS: "2000" })).toMatchObject({ ratePerSecond: 5, timeoutMs: 2000, leaseMs: 20_000 });
  });

  it("refuse a malformed number or allowlist with one line naming the variable, instead of a silent default", () => {
    for (const [name, value] of <[string, string][]>[["BURROW_DESTINATION_CONCURRENCY", "0"], ["BURROW_DESTINATION_RATE_LIMIT", "fifty"], ["BURROW_DESTINATION_MAX_ATTEMPTS", "-1"], ["BURROW_DESTINATION_TIMEOUT_MS", "1e4"]]) {
      expect(() => deliveryOptionsFromEnv({ [name]: value }), name).toThrow(new ConfigError(`${name} must be a whole number of at least 1 (got "${value}").`));
    }
    expect(() => deliveryOptionsFromEnv({ BURROW_OUTBOUND_ALLOWLIST: "10.0.0.0/99" })).toThrow(ConfigError);
    expect(() => deliveryOptionsFromEnv({ BURROW_OUTBOUND_ALLOWLIST: "10.0.0.0/99" })).toThrow(/BURROW_OUTBOUND_ALLOWLIST: "10.0.0.0\/99" is not a CIDR/);
  });
});
