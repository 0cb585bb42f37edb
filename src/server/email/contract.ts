/**
 * E-mail: the SMTP server and sender come from the environment (`SMTP_URL`, `EMAIL_FROM`);
 * alerts, subscriptions, invites and password resets all send through the one sender.
 */
import { z } from "zod";
import { ConfigError } from "@/server/db/config";

export interface EmailSettings {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  url: string;
  /** The From header, e.g. `Burrow <burrow@example.com>`. */
  from: string;
}

const smtpUrl = z.url({ protocol: /^smtps?$/ });
const sender = z.string().trim().min(3).max(320).regex(/@/, "must contain an e-mail address");

/**
 * The mail settings, or null when e-mail is off (neither variable set). One without the
 * other, or a malformed one, is a ConfigError that stops start-up: a typo must not turn
 * into alerts that silently never arrive.
 */
export function emailSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): EmailSettings | null {
  const url = env.SMTP_URL?.trim() || undefined;
  const from = env.EMAIL_FROM?.trim() || undefined;
  if (!url && !from) return null;
  if (!url || !from) throw new ConfigError(`${url ? "EMAIL_FROM" : "SMTP_URL"} must be set too: e-mail needs both SMTP_URL and EMAIL_FROM.`);
  if (!smtpUrl.safeParse(url).success) throw new ConfigError("SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587.");
  const parsedFrom = sender.safeParse(from);
  if (!parsedFrom.success) throw new ConfigError(`EMAIL_FROM must be an address such as "Burrow <burrow@example.com>" (got "${from}").`);
  return { url, from: parsedFrom.data };
}

export const emailAddress = z.email().max(254);

export interface EmailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** Set to show the attachment inline: the HTML refers to it as `cid:<cid>`. */
  cid?: string;
}

export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: EmailAttachment[];
}
