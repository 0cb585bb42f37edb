/**
 * An alert's notifications on a change of state (into firing, and resolving back): a JSON
 * POST to its webhook through the guarded outbound client (the address rules and
 * BURROW_OUTBOUND_ALLOWLIST apply at connect time and at each redirect), and an e-mail to
 * its subscribed users (through the one e-mail sender, when SMTP_URL and EMAIL_FROM are set).
 * Each target's outcome goes into the check's `targets_notified`; a
 * receiver that fails does not fail the check.
 */
import { escapeHtml } from "@/server/email/present";
import { emailConfigured, sendEmail } from "@/server/email/service";
import { serverEnvFrom } from "@/server/env";
import { outboundRequest } from "@/server/outbound/service";
import type { TargetsNotified } from "./contract";

export type Transition = "firing" | "resolved";

export interface Notice {
  transition: Transition;
  alert: { id: string; name: string; state: string };
  insight: { id: number; short_id: string; name: string };
  project: { id: number; name: string };
  check: { id: string; created_at: string; calculated_value: number | null; breaches: string[] };
  webhookUrl: string | null;
  recipients: string[];
}

const WEBHOOK_TIMEOUT_MS = 10_000;

function siteUrl(): string {
  try {
    return serverEnvFrom().siteUrl;
  } catch {
    return "";
  }
}

export function linksOf(notice: Pick<Notice, "project" | "insight">): { insight: string; alerts: string } {
  const site = siteUrl();
  return { insight: `${site}/insights/${notice.insight.short_id}`, alerts: `${site}/alerts` };
}

export function subjectOf(notice: Notice): string {
  return notice.transition === "firing" ? `Alert "${notice.alert.name}" is firing` : `Alert "${notice.alert.name}" resolved`;
}

export function textOf(notice: Notice): string {
  const links = linksOf(notice);
  const lines =
    notice.transition === "firing"
      ? [`The alert "${notice.alert.name}" on the insight "${notice.insight.name}" (project ${notice.project.name}) is firing:`, ...notice.check.breaches.map((b) => `- ${b}`)]
      : [`The alert "${notice.alert.name}" on the insight "${notice.insight.name}" (project ${notice.project.name}) is back within its thresholds (value ${notice.check.calculated_value ?? "unknown"}).`];
  return [...lines, "", `Insight: ${links.insight}`, `Alerts: ${links.alerts}`].join("\n");
}

/** PostHog-like webhook body: what happened, to which alert and insight, and the check. */
export function webhookBody(notice: Notice): Record<string, unknown> {
  const links = linksOf(notice);
  return {
    event: notice.transition === "firing" ? "alert_firing" : "alert_resolved",
    message: subjectOf(notice),
    text: textOf(notice),
    alert: { ...notice.alert, url: links.alerts },
    insight: { ...notice.insight, url: links.insight },
    project: notice.project,
    check: notice.check,
  };
}

async function sendWebhook(url: string, notice: Notice): Promise<{ url: string; status: number | null; error: string | null }> {
  try {
    const response = await outboundRequest({ url, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(webhookBody(notice)), timeoutMs: WEBHOOK_TIMEOUT_MS });
    const ok = response.status >= 200 && response.status < 300;
    return { url, status: response.status, error: ok ? null : `The receiver answered HTTP ${response.status}.` };
  } catch (error) {
    return { url, status: null, error: error instanceof Error ? error.message : String(error) };
  }
}

export function htmlOf(notice: Notice): string {
  const links = linksOf(notice);
  const head =
    notice.transition === "firing"
      ? `<p>The alert <b>${escapeHtml(notice.alert.name)}</b> on the insight <b>${escapeHtml(notice.insight.name)}</b> is firing:</p><ul>${notice.check.breaches.map((b) => `<li>${escapeHtml(b)}</li>`).join("")}</ul>`
      : `<p>The alert <b>${escapeHtml(notice.alert.name)}</b> on the insight <b>${escapeHtml(notice.insight.name)}</b> is back within its thresholds.</p>`;
  return `${head}<p><a href="${escapeHtml(links.insight)}">Open the insight</a> · <a href="${escapeHtml(links.alerts)}">All alerts</a></p>`;
}

async function sendMail(notice: Notice): Promise<Pick<TargetsNotified, "users" | "email_error">> {
  try {
    if (!emailConfigured()) return { email_error: "E-mail is not set up on this server: set SMTP_URL and EMAIL_FROM." };
    await sendEmail({ to: notice.recipients, subject: subjectOf(notice), text: textOf(notice), html: htmlOf(notice) });
    return { users: notice.recipients };
  } catch (error) {
    return { email_error: error instanceof Error ? error.message : String(error) };
  }
}

/** Sends the notice to every target (webhook and e-mail at once); answers what reached whom. */
export async function notify(notice: Notice): Promise<TargetsNotified> {
  const [webhook, mail] = await Promise.all([
    notice.webhookUrl ? sendWebhook(notice.webhookUrl, notice) : null,
    notice.recipients.length > 0 ? sendMail(notice) : null,
  ]);
  return { ...(webhook ? { webhooks: [webhook] } : {}), ...(mail ?? {}) };
}
