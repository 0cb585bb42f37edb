import { createHash, randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random bytes as a base-62 number, PostHog's format for keys and tokens. */
function randomBase62(bytes: number): string {
  let value = BigInt(`0x${randomBytes(bytes).toString("hex")}`);
  let out = "";
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out || "0";
}

/** A personal API key: `phx_` and 35 random bytes (280 bits). */
export const newPersonalApiKey = () => `phx_${randomBase62(35)}`;
/** A project's public key for SDKs: `phc_` and 32 random bytes. */
export const newProjectApiKey = () => `phc_${randomBase62(32)}`;
/** A project's secret key for local flag evaluation: `phs_` and 35 random bytes. */
export const newProjectSecretKey = () => `phs_${randomBase62(35)}`;

/** How a secret is stored: `sha256$<hex>`, PostHog's format. Keys carry 280 bits, so no salt is needed. */
export function hashSecret(value: string): string {
  return `sha256$${createHash("sha256").update(value).digest("hex")}`;
}

/** What lists show of a key: its first and last four characters. */
export function maskSecret(value: string): string {
  return `${value.slice(0, 4)}...${value.slice(-4)}`;
}
