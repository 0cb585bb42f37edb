/**
 * A destination's config as stored and as shown: the credential keys (SECRET_CONFIG_KEYS)
 * sealed at rest (outbound/secrets.ts) and masked in answers; a masked value sent back on an
 * edit keeps the stored one.
 */
import { AppError } from "@/server/errors";
import { isSealed, maskedSecret, openSecret, sealSecret } from "@/server/outbound/service";
import { type DestinationType, SECRET_CONFIG_KEYS } from "./contract";

const MASKED = /^•+/;

/** The config to store: secrets sealed; a masked one replaced by what `previous` holds. */
export function sealedConfig(type: DestinationType, config: Record<string, unknown>, previous: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of SECRET_CONFIG_KEYS[type]) {
    const value = out[key];
    if (typeof value !== "string" || value === "") continue;
    if (MASKED.test(value)) {
      const old = previous?.[key];
      if (typeof old !== "string") throw new AppError("invalid_input", `${key}: send the secret itself (this one is masked and no value is stored).`, `destination__config__${key}`);
      out[key] = old;
    } else if (!isSealed(value)) out[key] = sealSecret(value);
  }
  return out;
}

/** The config with its secrets in the clear, for the runner. */
export function openedConfig(type: DestinationType, stored: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const key of SECRET_CONFIG_KEYS[type]) {
    const value = out[key];
    if (typeof value === "string" && isSealed(value)) out[key] = openSecret(value);
  }
  return out;
}

/** The config as answers show it: secrets never whole. */
export function maskedConfig(type: DestinationType, stored: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const key of SECRET_CONFIG_KEYS[type]) {
    const value = out[key];
    if (typeof value !== "string" || value === "") continue;
    try {
      out[key] = maskedSecret(isSealed(value) ? openSecret(value) : value);
    } catch {
      out[key] = "••••";
    }
  }
  return out;
}
