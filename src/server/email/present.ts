/** How Burrow's e-mails look: text made safe for HTML, and the one layout with a button to a link. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A paragraph (already HTML), a button to `link`, and a line of small print with the link written out. */
export function actionEmailHtml(intro: string, link: string, action: string, smallPrint: string): string {
  const href = escapeHtml(link);
  return `<div style="font-family:system-ui,sans-serif;max-width:520px;color:#1f2937">${intro}<p><a href="${href}" style="display:inline-block;background:#4f46e5;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(action)}</a></p><p style="font-size:13px;color:#6b7280">${escapeHtml(smallPrint)}<br>${href}</p></div>`;
}
