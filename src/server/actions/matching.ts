/**
 * An action's steps as the one filter tree (properties/contract.ts) every event store
 * compiles — PostHog's `action_to_expr` (posthog/hogql/property.py):
 *
 * - steps are ORed, the conditions of one step ANDed; an action without steps matches nothing;
 * - `event`: the event name, case-sensitively (an `event_metadata` leaf);
 * - `url` on `$current_url`: `exact` the whole URL, `contains` (the default) a substring,
 *   `regex` a search — all case-sensitive. PostHog's contains is SQL LIKE, where `%` and `_`
 *   are wildcards; here they are themselves;
 * - only when the event is `$autocapture`: `tag_name`, `text`, `href` and `selector` on the
 *   elements chain (`tag.cls1.cls2:attr="v"…;parent…`, the clicked element first);
 * - `properties`: ordinary property filters.
 *
 * Everything is a regular expression in the RE2 subset that PostgreSQL reads alike (no
 * lookaround, no backreferences), so the three targets agree and the store's regex check
 * applies to them.
 */
import { AppError } from "@/server/errors";
import { propertiesParamSchema, type PropertyFilter, type PropertyGroup, type PropertyNode } from "@/server/properties/contract";
import type { ActionStep, StringMatching } from "./contract";

/** `text` as a regular expression that matches only itself (ASCII punctuation escaped; PostgreSQL and RE2 read `\` + punctuation as the character). */
export function quoteRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}\-/#&~<>=!:,"'%@`;]/g, "\\$&");
}

/** A value inside a quoted attribute of the elements chain: posthog-js writes `"` as `\"`. */
function chainEscaped(value: string): string {
  return value.replace(/\\"/g, '"').replace(/"/g, '\\"');
}

const leaf = (type: PropertyFilter["type"], key: string, pattern: string): PropertyFilter => ({ type, key, operator: "regex", value: pattern, negation: false });
const chain = (pattern: string) => leaf("event_metadata", "elements_chain", pattern);

/** `(text|href)="…"` on the chain as PostHog matches it. */
export function attributeRegex(attribute: "text" | "href", value: string, kind: StringMatching | null): string {
  switch (kind ?? "exact") {
    case "regex":
      return `${attribute}="${value}"`;
    case "contains":
      return `(?i)${attribute}="[^"]*${quoteRegex(chainEscaped(value))}[^"]*"`;
    default:
      return `${attribute}="${quoteRegex(chainEscaped(value))}"`;
  }
}

/** `$current_url` as `url_matching` says (contains by default). */
export function urlRegex(url: string, kind: StringMatching | null): string {
  switch (kind ?? "contains") {
    case "regex":
      return url;
    case "exact":
      return `^${quoteRegex(url)}$`;
    default:
      return quoteRegex(url);
  }
}

// ---------------------------------------------------------------------------
// CSS selectors
// ---------------------------------------------------------------------------

interface SelectorPart {
  tag: string | null;
  classes: string[];
  /** Chain attribute key → value, in the chain's order (sorted by key). */
  attributes: [string, string][];
  /** Joined to the part before it (its child, nearer the clicked element) by `>`. */
  directParent: boolean;
}

const IDENT = /^-?[A-Za-z_][\w-]*/;
const MAX_SELECTOR = 1000;

function invalidSelector(selector: string, why: string): never {
  throw new AppError("invalid_input", `Invalid selector ${JSON.stringify(selector.slice(0, 80))}: ${why}.`, "selector");
}

/** The chain's attribute key for a CSS attribute (posthog-js: `attr_id`, `href`, `nth-child`, `nth-of-type`, else `attr__<name>`). */
function chainKey(name: string): string {
  if (name === "id") return "attr_id";
  if (name === "href" || name === "nth-child" || name === "nth-of-type") return name;
  return `attr__${name}`;
}

/** One compound selector (`button.primary#go[data-x="y"]:nth-child(2)`). */
function parseCompound(selector: string, compound: string): Omit<SelectorPart, "directParent"> {
  let rest = compound;
  let tag: string | null = null;
  const classes: string[] = [];
  const attributes = new Map<string, string>();
  const tagMatch = /^(\*|[A-Za-z][\w-]*)/.exec(rest);
  if (tagMatch) {
    tag = tagMatch[1] === "*" ? null : tagMatch[1]!.toLowerCase();
    rest = rest.slice(tagMatch[1]!.length);
  }
  while (rest.length > 0) {
    const head = rest[0]!;
    if (head === "." || head === "#") {
      const ident = IDENT.exec(rest.slice(1));
      if (!ident) invalidSelector(selector, `expected a name after '${head}'`);
      if (head === ".") classes.push(ident[0]);
      else attributes.set("attr_id", ident[0]);
      rest = rest.slice(1 + ident[0].length);
    } else if (head === "[") {
      const attr = /^\[\s*([A-Za-z_][\w-]*)\s*(?:=\s*(?:"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)'|([^\]\s"']+)))?\s*\]/.exec(rest);
      if (!attr) invalidSelector(selector, "malformed attribute selector");
      const value = attr[2] ?? attr[3] ?? attr[4];
      if (value === undefined) invalidSelector(selector, "attribute selectors need a value ([name=\"value\"])");
      attributes.set(chainKey(attr[1]!), value.replace(/\\(.)/g, "$1"));
      rest = rest.slice(attr[0].length);
    } else if (head === ":") {
      const pseudo = /^:(nth-child|nth-of-type)\(\s*(\d+)\s*\)/.exec(rest);
      if (!pseudo) invalidSelector(selector, "only :nth-child(n) and :nth-of-type(n) are supported");
      attributes.set(pseudo[1]!, pseudo[2]!);
      rest = rest.slice(pseudo[0].length);
    } else {
      invalidSelector(selector, `unexpected '${head}'`);
    }
  }
  return { tag, classes: [...new Set(classes)].sort(), attributes: [...attributes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/** The selector's parts, the clicked element (the last compound) first. */
export function parseSelector(selector: string): SelectorPart[] {
  if (selector.length > MAX_SELECTOR) invalidSelector(selector, `longer than ${MAX_SELECTOR} characters`);
  // Compounds and `>` combinators, split outside brackets and quotes.
  const tokens: string[] = [];
  let current = "";
  let bracket = false;
  let quote: string | null = null;
  for (const char of selector.trim()) {
    if (quote) {
      if (char === quote) quote = null;
      current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      current += char;
    } else if (char === "[") {
      bracket = true;
      current += char;
    } else if (char === "]") {
      bracket = false;
      current += char;
    } else if (!bracket && (char === " " || char === ">" || char === "\t" || char === "\n")) {
      if (current) tokens.push(current);
      current = "";
      if (char === ">") tokens.push(">");
    } else {
      current += char;
    }
  }
  if (current) tokens.push(current);
  if (tokens.length === 0 || tokens[0] === ">" || tokens.at(-1) === ">") invalidSelector(selector, "expected an element");
  const parts: SelectorPart[] = [];
  let direct = false;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i]!;
    if (token === ">") {
      if (direct) invalidSelector(selector, "two '>' in a row");
      direct = true;
      continue;
    }
    parts.push({ ...parseCompound(selector, token), directParent: parts.length > 0 && direct });
    direct = false;
  }
  if (parts.length > 10) invalidSelector(selector, "at most 10 elements deep");
  return parts;
}

/** One element of the chain as a part describes it, from its tag to (not including) the `;` after it. */
function elementRegex(part: SelectorPart): string {
  let regex = part.tag ? quoteRegex(part.tag) : "[^;.:]*";
  regex += "(\\.[^;.:]*)*?";
  for (const cls of part.classes) regex += `\\.${quoteRegex(chainEscaped(cls))}(\\.[^;.:]*)*?`;
  if (part.attributes.length === 0) return `${regex}(:[^;]*)?`;
  regex += ":[^;]*?";
  regex += part.attributes.map(([key, value]) => `${quoteRegex(key)}="${quoteRegex(chainEscaped(value))}"`).join("[^;]*?");
  return `${regex}[^;]*`;
}

/**
 * The regular expression a CSS selector matches the elements chain with (PostHog's
 * `build_selector_regex`, newest form): the clicked element matches the last compound;
 * `>` is its parent, a space any ancestor (whole elements skipped); each part's tag, classes
 * and attributes must be in one element.
 */
export function selectorRegex(selector: string): string {
  const parts = parseSelector(selector);
  let regex = `(^|;)${elementRegex(parts[0]!)}`;
  for (const part of parts.slice(1)) regex += part.directParent ? `;${elementRegex(part)}` : `;([^;]*;)*?${elementRegex(part)}`;
  return `${regex}(;|$)`;
}

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

/** An event never lacks its name: the tree of an action without steps. */
const NOTHING: PropertyFilter = { type: "event_metadata", key: "event", operator: "is_not_set", value: null, negation: false };

/** One step's conditions, ANDed. Throws AppError (400) for a selector it cannot read. */
export function stepTree(step: ActionStep): PropertyGroup {
  const values: PropertyNode[] = [];
  if (step.event !== null) values.push(leaf("event_metadata", "event", `^${quoteRegex(step.event)}$`));
  if (step.url !== null) values.push(leaf("event", "$current_url", urlRegex(step.url, step.url_matching)));
  if (step.event === "$autocapture") {
    if (step.tag_name !== null) values.push(chain(`(^|;)${quoteRegex(step.tag_name)}(\\.|$|;|:)`));
    if (step.text !== null) values.push(chain(attributeRegex("text", step.text, step.text_matching)));
    if (step.href !== null) values.push(chain(attributeRegex("href", step.href, step.href_matching)));
    if (step.selector !== null) values.push(chain(selectorRegex(step.selector)));
  }
  if (step.properties && step.properties.length > 0) values.push(propertiesParamSchema.parse(step.properties));
  return { type: "AND", values };
}

/** The action as one filter tree: its steps ORed. */
export function actionTree(steps: readonly ActionStep[]): PropertyGroup {
  if (steps.length === 0) return { type: "AND", values: [NOTHING] };
  return { type: "OR", values: steps.map(stepTree) };
}
