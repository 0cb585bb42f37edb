/**
 * Survey texts may be HTML (`descriptionContentType: "html"`), which posthog-js renders into
 * the customer's page: only a few formatting tags survive, without attributes, except `href`
 * on links when it is http(s) or mailto. Everything else that looks like a tag is dropped, and
 * the contents of script and style elements with it. (PostHog sanitises with nh3.)
 */
const ALLOWED = new Set(["b", "strong", "i", "em", "u", "p", "br", "ul", "ol", "li", "span", "h1", "h2", "h3", "a", "div", "small"]);
const TAG = /<\s*(\/?)\s*([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g;
const HREF = /\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/i;

export function sanitiseSurveyHtml(value: string): string {
  if (!value.includes("<")) return value;
  const withoutCode = value.replace(/<\s*(script|style|iframe|object|embed|template)\b[\s\S]*?<\s*\/\s*\1\s*>/gi, "").replace(/<!--[\s\S]*?-->/g, "");
  return withoutCode
    .replace(TAG, (_whole, closing: string, rawName: string, attributes: string) => {
      const name = rawName.toLowerCase();
      if (!ALLOWED.has(name)) return "";
      if (closing) return `</${name}>`;
      if (name !== "a") return `<${name}>`;
      const match = HREF.exec(attributes);
      const href = match ? (match[2] ?? match[3] ?? match[4] ?? "") : "";
      return /^(https?:\/\/|mailto:)[^"<>\s]*$/i.test(href) ? `<a href="${href}" target="_blank" rel="noopener noreferrer">` : "<a>";
    })
    .replace(/<(?![a-z/])/gi, "&lt;");
}
