/**
 * Secrets that outbound requests carry (header values such as `Authorization`), stored
 * encrypted: AES-256-GCM with a key derived (HKDF) from the server's secret (AUTH_SECRET or
 * DATA_DIR/auth-secret), so a copy of the database alone does not reveal them. The stored
 * form is text: `enc:v1:<iv>:<tag>:<ciphertext>`, base64url.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { authSecret } from "@/server/auth/service";

const PREFIX = "enc:v1:";
let keyFor: { secret: string; key: Buffer } | null = null;

function key(): Buffer {
  const secret = authSecret();
  if (keyFor?.secret !== secret) keyFor = { secret, key: Buffer.from(hkdfSync("sha256", secret, "burrow", "outbound secrets v1", 32)) };
  return keyFor.key;
}

export function isSealed(text: string): boolean {
  return text.startsWith(PREFIX);
}

export function sealSecret(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${PREFIX}${iv.toString("base64url")}:${cipher.getAuthTag().toString("base64url")}:${data.toString("base64url")}`;
}

/** The plain text of a sealed secret; throws when it was sealed with another server secret or altered. */
export function openSecret(sealed: string): string {
  if (!isSealed(sealed)) throw new Error("Not a sealed secret.");
  const [iv, tag, data] = sealed.slice(PREFIX.length).split(":");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv ?? "", "base64url"));
  decipher.setAuthTag(Buffer.from(tag ?? "", "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data ?? "", "base64url")), decipher.final()]).toString("utf8");
}

/** What a secret looks like in an answer: never whole; the last 4 characters of a long one, to tell two apart. */
export function maskedSecret(plain: string): string {
  return plain.length >= 16 ? `••••${plain.slice(-4)}` : "••••";
}
