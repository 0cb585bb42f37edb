/**
 * The one e-mail sender. Settings are read once per process (start-up checks them, see
 * server.ts); the SMTP connection is made per message, since alerts and subscriptions send
 * a handful an hour and a pooled connection would sit open to a server that drops idle ones.
 */
import { createTransport, type Transporter } from "nodemailer";
import { AppError } from "@/server/errors";
import type { UserContext } from "@/server/context";
import { emailAddress, emailSettingsFromEnv, type EmailMessage, type EmailSettings } from "./contract";

export type { EmailMessage, EmailAttachment } from "./contract";
export { emailSettingsFromEnv } from "./contract";

/** The mail server answered with an error, or could not be reached. */
export class EmailDeliveryError extends Error {
  override name = "EmailDeliveryError";
}

let cached: { env: string; settings: EmailSettings | null; transporter: Transporter | null } | null = null;

function sender(): { settings: EmailSettings; transporter: Transporter } | null {
  // Keyed by the variables, so a test that sets them (or a restart-free reconfiguration) is seen.
  const key = `${process.env.SMTP_URL ?? ""}\n${process.env.EMAIL_FROM ?? ""}`;
  if (cached?.env !== key) {
    const settings = emailSettingsFromEnv();
    const transporter = settings
      ? createTransport(settings.url, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 })
      : null;
    cached = { env: key, settings, transporter };
  }
  return cached.settings && cached.transporter ? { settings: cached.settings, transporter: cached.transporter } : null;
}

/** True when SMTP_URL and EMAIL_FROM are set: e-mail targets can be used. */
export function emailConfigured(): boolean {
  return sender() !== null;
}

/**
 * Sends one message. Throws AppError (invalid_input) when e-mail is not set up, so that a
 * form choosing an e-mail target gets a clear answer, and EmailDeliveryError when the server
 * refuses or cannot be reached (callers that retry or log treat it as a failed delivery).
 */
export async function sendEmail(message: EmailMessage): Promise<void> {
  const configured = sender();
  if (!configured) throw new AppError("invalid_input", "E-mail is not set up on this server: set SMTP_URL and EMAIL_FROM.");
  const to = message.to.map((address) => emailAddress.parse(address));
  if (to.length === 0) throw new AppError("invalid_input", "An e-mail needs at least one recipient.");
  try {
    await configured.transporter.sendMail({
      from: configured.settings.from,
      to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      attachments: message.attachments?.map(({ filename, content, contentType, cid }) => ({ filename, content, contentType, cid })),
    });
  } catch (error) {
    throw new EmailDeliveryError(`The mail server did not take the message: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Settings' "send a test e-mail": to the signed-in user's own address only, so the button
 * cannot be used to send mail to strangers.
 */
export async function sendTestEmail(ctx: UserContext): Promise<{ to: string }> {
  const { email } = ctx.actor;
  try {
    await sendEmail({
      to: [email],
      subject: "Burrow test e-mail",
      text: "This is a test e-mail from Burrow. If you can read it, alerts, subscriptions, invites and password resets can reach you.",
    });
  } catch (error) {
    if (error instanceof EmailDeliveryError) throw new AppError("invalid_input", error.message);
    throw error;
  }
  return { to: email };
}
