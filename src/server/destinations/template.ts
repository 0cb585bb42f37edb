/**
 * The webhook template (PostHog's `template-webhook`, nodejs/src/cdp/templates/_destinations/
 * webhook/webhook.template.ts) and its templating: `{event.event}`, `{event.properties.x}`,
 * `{person.properties.x}`, `{project.name}` and the like in the URL, header values and any
 * string of the body. Only paths into the globals are read — no Hog is run.
 */
import { WEBHOOK_TEMPLATE_ID } from "./contract";

export const WEBHOOK_HOG = `let payload := {
  'headers': inputs.headers,
  'body': inputs.body,
  'method': inputs.method
}
if (inputs.debug) {
  print('Request', inputs.url, payload)
}
let res := fetch(inputs.url, payload);
if (res.status >= 300) {
  throw Error(f'Webhook failed with status {res.status}: {res.body}');
}
if (inputs.debug) {
  print('Response', res.status, res.body);
}`;

export const WEBHOOK_TEMPLATE = {
  id: WEBHOOK_TEMPLATE_ID,
  name: "HTTP Webhook",
  description: "Sends a webhook templated by the incoming event data",
};

export const WEBHOOK_INPUTS_SCHEMA: Record<string, unknown>[] = [
  { key: "url", type: "string", label: "Webhook URL", secret: false, required: true },
  { key: "method", type: "choice", label: "Method", secret: false, required: false, default: "POST", choices: ["POST", "PUT", "PATCH", "GET", "DELETE"].map((m) => ({ label: m, value: m })) },
  { key: "body", type: "json", label: "JSON Body", secret: false, required: false, default: { event: "{event}", person: "{person}" } },
  { key: "headers", type: "dictionary", label: "Headers", secret: false, required: false, default: { "Content-Type": "application/json" } },
  { key: "debug", type: "boolean", label: "Log responses", secret: false, required: false, default: false },
];

/** What a template may read (PostHog's globals, as far as a destination here has them). */
export interface TemplateGlobals {
  event: { uuid: string; event: string; distinct_id: string; properties: Record<string, unknown>; timestamp: string; elements_chain: string; url: string };
  person: { id: string; name: string; url: string; properties: Record<string, unknown> } | null;
  project: { id: number; name: string; url: string };
  source: { name: string; url: string };
}

const PLACEHOLDER = /\{\s*([A-Za-z_$][\w$]*(?:\.[\w$-]+|\[\s*'[^']*'\s*\]|\[\s*"[^"]*"\s*\])*)\s*\}/g;
const WHOLE = new RegExp(`^${PLACEHOLDER.source}$`);

/** The value at a dotted path (`event.properties.$current_url`, `person.properties['plan']`). */
function valueAt(globals: TemplateGlobals, path: string): unknown {
  const parts = path.match(/[^.[\]'"]+|\[\s*'[^']*'\s*\]|\[\s*"[^"]*"\s*\]/g) ?? [];
  let value: unknown = globals;
  for (const raw of parts) {
    const part = raw.startsWith("[") ? raw.slice(1, -1).trim().slice(1, -1) : raw;
    if (value === null || typeof value !== "object" || !Object.prototype.hasOwnProperty.call(value, part)) return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function asText(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** A string template: a lone `{path}` keeps the value's type (a body field may be an object); otherwise text. */
export function renderString(template: string, globals: TemplateGlobals): unknown {
  const whole = WHOLE.exec(template);
  if (whole) return valueAt(globals, whole[1]!) ?? null;
  return template.replace(PLACEHOLDER, (_match, path: string) => asText(valueAt(globals, path)));
}

/** Every string of a JSON template rendered (keys too). */
export function renderJson(template: unknown, globals: TemplateGlobals): unknown {
  if (typeof template === "string") return renderString(template, globals);
  if (Array.isArray(template)) return template.map((item) => renderJson(item, globals));
  if (template && typeof template === "object") {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [asText(renderString(key, globals)), renderJson(value, globals)]));
  }
  return template;
}

/** The text of a templated scalar input (URL, header value). */
export function renderText(template: string, globals: TemplateGlobals): string {
  return asText(renderString(template, globals));
}
