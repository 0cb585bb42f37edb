/**
 * Property filters as feature flags read them: PostHog's flag JSON (`{key, value, operator,
 * type}` as stored in `filters.groups[].properties`), matched with the coercion of PostHog's
 * flags service — the rules posthog-node's local evaluation mirrors, so that a flag gives
 * the same answer on the server and in an SDK. They differ from the events filters
 * (match.ts, kept identical to SQL) where PostHog's flag code does:
 *
 * - exact / is_not: a filter value that is a boolean or "true"/"false" (or a list of only
 *   those) compares truthiness: "true"/true (any case) is truthy, everything else falsy —
 *   so `false` matches any value that is not truthy. Otherwise the texts are compared
 *   lower-cased (Unicode), numbers and objects by their JSON text.
 * - icontains, starts_with, ends_with (and their negations): ASCII-folded substring tests
 *   (a list reads as its items joined by commas, as in the SDKs).
 * - regex / not_regex: an RE2 regular expression (regex.ts) searched in the value's text,
 *   case-sensitive; a pattern RE2 cannot run matches neither way.
 * - gt / gte / lt / lte: `parseFloat` of both sides, numerically when both are finite,
 *   else the texts in UTF-16 order; a null value never compares.
 * - is_date_before / is_date_after: the filter is relative (`-7d`, `30d`: h, d, w, m, y,
 *   n < 10000) or a date JavaScript parses; the value a date string or epoch number.
 * - semver_*: `major.minor.patch` (leading `v`, pre-release and build ignored, missing
 *   parts 0); tilde, caret and wildcard ranges as PostHog computes them.
 * - A key the properties lack (the server holds the whole person): is_not_set and the
 *   negative operators (is_not, not_icontains, not_regex, not_starts_with, not_ends_with)
 *   hold, every other operator fails — PostHog's flags service answers so.
 * - A null value matches the text operators as the string "null" and fails the others.
 */
import { fold } from "./coerce";
import { PROPERTY_OPERATORS } from "./contract";
import { regexFinds } from "./regex";

/** One filter as PostHog stores it in a flag's conditions. */
export interface FlagPropertyFilter {
  key: string;
  value?: unknown;
  operator?: string | null;
  /** person | group | cohort | flag (others are read as person). */
  type?: string | null;
  negation?: boolean | null;
  group_type_index?: number | null;
  /** `flag` filters: the keys to evaluate first, ending with `key`. */
  dependency_chain?: string[];
}

/** The events filters' operators, and those only flags have. */
export const FLAG_PROPERTY_OPERATORS = [
  ...PROPERTY_OPERATORS,
  "starts_with",
  "not_starts_with",
  "ends_with",
  "not_ends_with",
  "semver_eq",
  "semver_neq",
  "semver_gt",
  "semver_gte",
  "semver_lt",
  "semver_lte",
  "semver_tilde",
  "semver_caret",
  "semver_wildcard",
] as const;
export type FlagPropertyOperator = (typeof FLAG_PROPERTY_OPERATORS)[number];

/** Operators that hold when the property is absent. */
const HOLDS_WHEN_ABSENT = new Set(["is_not_set", "is_not", "not_icontains", "not_regex", "not_starts_with", "not_ends_with"]);
/** Operators that compare a null value as the text "null"; the rest fail on null. */
const NULL_AS_TEXT = new Set(["exact", "is_not", "icontains", "not_icontains", "starts_with", "not_starts_with", "ends_with", "not_ends_with", "regex", "not_regex"]);

function isBooleanLike(value: unknown): boolean {
  if (typeof value === "boolean") return true;
  if (typeof value === "string") {
    const lower = value.toLowerCase();
    return lower === "true" || lower === "false";
  }
  return Array.isArray(value) && value.every(isBooleanLike);
}

function isTruthy(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") return value.toLowerCase() === "true";
  return Array.isArray(value) && value.every(isTruthy);
}

/** JSON text with object keys sorted, as PostHog's service writes a non-string value. */
function jsonText(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${jsonText(record[key])}`)
      .join(",")}}`;
  }
  return String(value);
}

/** The text a value is compared by: strings as they are, anything else as JSON. */
export function flagValueText(value: unknown): string {
  return typeof value === "string" ? value : jsonText(value);
}

/**
 * The text the substring and regex operators read: as flagValueText, except that a list reads
 * as its items joined by commas (what PostHog's SDKs compute; the UI sometimes stores a
 * single value as a one-item list).
 */
function looseText(value: unknown): string {
  return Array.isArray(value) ? String(value) : flagValueText(value);
}

function exactMatch(target: unknown, actual: unknown): boolean {
  if (isBooleanLike(target)) return isTruthy(target) === isTruthy(actual);
  const text = flagValueText(actual).toLowerCase();
  if (Array.isArray(target)) return target.some((item) => flagValueText(item).toLowerCase() === text);
  return flagValueText(target).toLowerCase() === text;
}

function compareOrder(operator: string, left: number | string, right: number | string): boolean {
  switch (operator) {
    case "gt":
      return left > right;
    case "gte":
      return left >= right;
    case "lt":
      return left < right;
    default:
      return left <= right;
  }
}

const RELATIVE_FLAG_DATE = /^-?([0-9]+)([a-z])$/;

/** `now` minus `-<n><h|d|w|m|y>` the way PostHog's SDKs count (months clamp the day at each step). */
export function relativeFlagDate(text: string, now: Date): Date | null {
  const match = RELATIVE_FLAG_DATE.exec(text);
  if (!match) return null;
  const n = Number(match[1]);
  if (n >= 10_000) return null;
  const date = new Date(now.getTime());
  switch (match[2]) {
    case "h":
      date.setUTCHours(date.getUTCHours() - n);
      return date;
    case "d":
      date.setUTCDate(date.getUTCDate() - n);
      return date;
    case "w":
      date.setUTCDate(date.getUTCDate() - n * 7);
      return date;
    case "m": {
      const year = date.getUTCFullYear();
      const month = date.getUTCMonth();
      let day = date.getUTCDate();
      for (let step = 1; step <= n && day > 28; step++) {
        day = Math.min(day, new Date(Date.UTC(year, month - step + 1, 0)).getUTCDate());
      }
      date.setUTCFullYear(year, month - n, day);
      return date;
    }
    case "y": {
      const month = date.getUTCMonth();
      const day = n > 0 && month === 1 && date.getUTCDate() === 29 ? 28 : date.getUTCDate();
      date.setUTCFullYear(date.getUTCFullYear() - n, month, day);
      return date;
    }
    default:
      return null;
  }
}

function dateFrom(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value !== "string" && typeof value !== "number") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

type Semver = [number, number, number];

function parseSemver(value: unknown): Semver | null {
  const core = flagValueText(value).trim().replace(/^[vV]/, "").split(/[-+]/)[0]!;
  if (!core || core.startsWith(".")) return null;
  const parts = core.split(".");
  const out: number[] = [];
  for (let index = 0; index < 3; index++) {
    const part = parts[index];
    if (part === undefined || part === "") out.push(0);
    else if (/^[0-9]+$/.test(part)) out.push(Number(part));
    else return null;
  }
  return out as Semver;
}

function compareSemver(a: Semver, b: Semver): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index]! < b[index]! ? -1 : 1;
  return 0;
}

function semverRange(operator: string, value: unknown): { lower: Semver; upper: Semver } | null {
  if (operator === "semver_wildcard") {
    const cleaned = flagValueText(value).trim().replace(/^[vV]/, "").replace(/\.\*$/, "").replace(/\*$/, "");
    const parts = cleaned.split(".");
    // Only major and minor count ("1.2.3" reads as 1.2.*), as PostHog's SDKs compute it.
    if (!cleaned || !parts.slice(0, 2).every((part) => /^[0-9]+$/.test(part))) return null;
    const major = Number(parts[0]);
    if (parts.length === 1) return { lower: [major, 0, 0], upper: [major + 1, 0, 0] };
    const minor = Number(parts[1]);
    return { lower: [major, minor, 0], upper: [major, minor + 1, 0] };
  }
  const lower = parseSemver(value);
  if (!lower) return null;
  const [major, minor, patch] = lower;
  if (operator === "semver_tilde") return { lower, upper: [major, minor + 1, 0] };
  // caret
  if (major > 0) return { lower, upper: [major + 1, 0, 0] };
  if (minor > 0) return { lower, upper: [0, minor + 1, 0] };
  return { lower, upper: [0, 0, patch + 1] };
}

function evaluate(filter: FlagPropertyFilter, properties: Readonly<Record<string, unknown>>, now: Date): boolean {
  const operator = filter.operator || "exact";
  const present = Object.prototype.hasOwnProperty.call(properties, filter.key) && properties[filter.key] !== undefined;
  if (operator === "is_set") return present;
  if (operator === "is_not_set") return !present;
  if (!present) return HOLDS_WHEN_ABSENT.has(operator);
  const actual = properties[filter.key];
  if (actual === null && !NULL_AS_TEXT.has(operator)) return false;
  const target = filter.value;

  switch (operator) {
    case "exact":
      return exactMatch(target, actual);
    case "is_not":
      return !exactMatch(target, actual);
    case "icontains":
    case "not_icontains": {
      const found = fold(looseText(actual)).includes(fold(looseText(target)));
      return operator === "icontains" ? found : !found;
    }
    case "starts_with":
    case "not_starts_with": {
      const found = fold(looseText(actual)).startsWith(fold(looseText(target)));
      return operator === "starts_with" ? found : !found;
    }
    case "ends_with":
    case "not_ends_with": {
      const found = fold(looseText(actual)).endsWith(fold(looseText(target)));
      return operator === "ends_with" ? found : !found;
    }
    case "regex":
    case "not_regex": {
      const found = regexFinds(looseText(target), looseText(actual));
      if (found === null) return false;
      return operator === "regex" ? found : !found;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const right = typeof target === "number" ? target : parseFloat(String(target));
      const left = typeof actual === "number" ? actual : parseFloat(String(actual));
      if (Number.isFinite(left) && Number.isFinite(right)) return compareOrder(operator, left, right);
      return compareOrder(operator, String(actual), String(target));
    }
    case "is_date_before":
    case "is_date_after": {
      if (typeof target === "boolean") return false;
      const limit = relativeFlagDate(String(target), now) ?? dateFrom(target);
      const date = dateFrom(actual);
      if (!limit || !date) return false;
      return operator === "is_date_before" ? date < limit : date > limit;
    }
    case "semver_eq":
    case "semver_neq":
    case "semver_gt":
    case "semver_gte":
    case "semver_lt":
    case "semver_lte": {
      const left = parseSemver(actual);
      const right = parseSemver(target);
      if (!left || !right) return false;
      const order = compareSemver(left, right);
      switch (operator) {
        case "semver_eq":
          return order === 0;
        case "semver_neq":
          return order !== 0;
        case "semver_gt":
          return order > 0;
        case "semver_gte":
          return order >= 0;
        case "semver_lt":
          return order < 0;
        default:
          return order <= 0;
      }
    }
    case "semver_tilde":
    case "semver_caret":
    case "semver_wildcard": {
      const version = parseSemver(actual);
      const range = semverRange(operator, target);
      if (!version || !range) return false;
      return compareSemver(version, range.lower) >= 0 && compareSemver(version, range.upper) < 0;
    }
    default:
      return false; // an operator PostHog does not have matches nothing
  }
}

/** Whether `properties` (a person's or a group's, complete) satisfy one flag filter. */
export function matchesFlagPropertyFilter(
  filter: FlagPropertyFilter,
  properties: Readonly<Record<string, unknown>>,
  now: Date = new Date(),
): boolean {
  const result = evaluate(filter, properties, now);
  return filter.negation ? !result : result;
}
