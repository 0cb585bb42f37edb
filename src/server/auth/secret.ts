import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const SECRET_KEY = Symbol.for("burrow.authSecret");

/**
 * The session signing secret: AUTH_SECRET, or one generated on first use and kept in
 * DATA_DIR/auth-secret (mode 600) so sessions survive restarts.
 */
export function authSecret(env: NodeJS.ProcessEnv = process.env): string {
  const holder = globalThis as { [SECRET_KEY]?: string };
  if (holder[SECRET_KEY]) return holder[SECRET_KEY];
  let secret = env.AUTH_SECRET?.trim();
  if (!secret) {
    const dir = path.resolve(/* turbopackIgnore: true */ env.DATA_DIR?.trim() || "./data");
    const file = path.join(dir, "auth-secret");
    try {
      secret = fs.readFileSync(file, "utf8").trim();
    } catch {
      fs.mkdirSync(dir, { recursive: true });
      secret = randomBytes(32).toString("base64url");
      // "wx": of two processes creating it at once, the loser reads the winner's.
      try {
        fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
      } catch {
        secret = fs.readFileSync(file, "utf8").trim();
      }
    }
  }
  holder[SECRET_KEY] = secret;
  return secret;
}
