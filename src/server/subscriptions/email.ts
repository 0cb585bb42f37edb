/**
 * The e-mail of a report (PostHog's: the subject "<kind> report - <name>", each chart as an
 * image, a link to the resource), sent through the one e-mail sender. Charts are inline
 * attachments (`cid:`), which mail clients show without loading anything remote.
 */
import { EmailDeliveryError, sendEmail } from "@/server/email/service";
import { recipientsOf } from "./contract";
import { DeliveryError, type Report } from "./delivery";
import type { SubscriptionRow } from "./store";

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const cidOf = (index: number) => `chart-${index + 1}@burrow`;

export function reportEmail(row: SubscriptionRow, report: Report) {
  const intro = `${report.kind} "${report.name}", ${report.summary}.`;
  const text = [
    intro,
    ...report.assets.map((asset) => `${asset.name}: ${asset.error ? `could not be drawn (${asset.error}) ` : ""}${asset.url}`),
    `Open in Burrow: ${report.url}`,
  ].join("\n\n");
  const blocks = report.assets.map((asset, index) => {
    const body = asset.png
      ? `<a href="${escape(asset.url)}"><img src="cid:${cidOf(index)}" alt="${escape(asset.name)}" width="600" style="max-width:100%;border:1px solid #e5e7eb;border-radius:6px"></a>`
      : `<p style="color:#b91c1c">This chart could not be drawn: ${escape(asset.error ?? "unknown error")}</p>`;
    return `<h2 style="font-size:16px;margin:24px 0 8px"><a href="${escape(asset.url)}" style="color:#111827">${escape(asset.name)}</a></h2>${body}`;
  });
  const html = `<div style="font-family:-apple-system,Segoe UI,sans-serif;color:#111827;max-width:640px">
<p>${escape(intro)}</p>
${row.inviteMessage ? `<p>${escape(row.inviteMessage)}</p>` : ""}
${blocks.join("\n")}
<p style="margin-top:24px"><a href="${escape(report.url)}" style="background:#1d4aff;color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none">Open ${escape(report.kind.toLowerCase())} in Burrow</a></p>
</div>`;
  const attachments = report.assets.flatMap((asset, index) =>
    asset.png ? [{ filename: `${asset.shortId}.png`, content: asset.png, contentType: "image/png", cid: cidOf(index) }] : [],
  );
  return { to: recipientsOf(row.targetValue), subject: report.subject, text, html, attachments };
}

/** Sends the report to the subscription's addresses; a refusing or unreachable mail server is a DeliveryError. */
export async function sendReportEmail(row: SubscriptionRow, report: Report): Promise<void> {
  try {
    await sendEmail(reportEmail(row, report));
  } catch (error) {
    if (error instanceof EmailDeliveryError) throw new DeliveryError(error.message);
    throw error;
  }
}
