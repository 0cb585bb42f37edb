import { z } from "zod";
import { ConfigError } from "./db/config";

const serverEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOSTNAME: z.string().trim().min(1).default("0.0.0.0"),
  SITE_URL: z.url({ protocol: /^https?$/ }).optional(),
});

export interface ServerEnv {
  port: number;
  hostname: string;
  /** Public base URL without a trailing slash: next/previous links and share links. */
  siteUrl: string;
}

/** The host of the default SITE_URL: `localhost` when bound to every interface. */
function publicHost(hostname: string): string {
  if (hostname === "0.0.0.0" || hostname === "::") return "localhost";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** Reads the server's settings; read lazily because Next loads `.env` files in prepare(). */
export function serverEnvFrom(env: NodeJS.ProcessEnv = process.env): ServerEnv {
  const parsed = serverEnv.safeParse({
    PORT: env.PORT || undefined,
    HOSTNAME: env.HOSTNAME || undefined,
    SITE_URL: env.SITE_URL || undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${issue.path.join(".")} is invalid (${issue.message}).`);
  }
  const { PORT, HOSTNAME, SITE_URL } = parsed.data;
  return {
    port: PORT,
    hostname: HOSTNAME,
    siteUrl: (SITE_URL ?? `http://${publicHost(HOSTNAME)}:${PORT}`).replace(/\/+$/, ""),
  };
}
