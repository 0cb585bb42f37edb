/**
 * How feature flags read values (PostHog's flags service, mirrored by posthog-node's local
 * evaluation): the flags column of the operator table (operators.ts). Where the events
 * filters read the same thing differently, coerce.ts is theirs.
 */

export function isBooleanLike(value: unknown): boolean {
  if (typeof value === "boolean") return true;
  if (typeof value === "string") {
    const lower = value.toLowerCase();
    return lower === "true" || lower === "false";
  }
  return Array.isArray(value) && value.every(isBooleanLike);
}

export function isTruthy(value: unknown): boolean {
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
export function looseText(value: unknown): string {
  return Array.isArray(value) ? String(value) : flagValueText(value);
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

export function dateFrom(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value !== "string" && typeof value !== "number") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export type Semver = [number, number, number];

export function parseSemver(value: unknown): Semver | null {
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

export function compareSemver(a: Semver, b: Semver): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index]! < b[index]! ? -1 : 1;
  return 0;
}

export function semverRange(operator: string, value: unknown): { lower: Semver; upper: Semver } | null {
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
