/**
 * How property values are read for comparison: one definition used by the in-memory
 * matcher (match.ts) and mirrored, expression by expression, by the SQL compiler (sql.ts).
 * Where PostgreSQL and JavaScript could disagree (Unicode case folding, number formats,
 * date parsing, string order) the rule is narrowed to what both compute identically.
 */
import { ISO_DATE_TEXT, MAX_NUMERIC_TEXT_LENGTH, NUMERIC_TEXT } from "@/server/sql/dialect";

export { ISO_DATE_TEXT, MAX_NUMERIC_TEXT_LENGTH, NUMERIC_TEXT };

/** Text PostgreSQL can store: NUL and lone surrogates become U+FFFD, as ingestion stores them. */
const UNSTORABLE = /[\u0000\ud800-\udfff]/;
const NUL_OR_LONE_SURROGATE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(NUL_OR_LONE_SURROGATE, "\ufffd") : text;
}

/**
 * Case folding for the case-insensitive operators: ASCII letters only (as posthog-node),
 * so the answer does not depend on the database's locale. SQL: the dialect's `fold` (sql/).
 */
export function fold(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * The text form of a stored value for exact/icontains/regex and string comparison:
 * strings as they are, numbers and booleans as JSON writes them, null as `"null"`
 * (PostHog compares a null against the string "null"). Objects and arrays have none: they
 * match no positive operator. SQL: `->>` for string/number/boolean, `'null'` for null.
 */
export function textOf(value: unknown): string | null {
  if (value === null) return "null";
  if (typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : null;
  if (typeof value === "boolean") return value ? "true" : "false";
  return null;
}

/** NUMERIC_TEXT, ISO_DATE_TEXT: the text forms SQL reads alike (sql/dialect.ts), read here in memory. */
const NUMERIC_TEXT_RE = new RegExp(NUMERIC_TEXT);

/** The number a value stands for in gt/gte/lt/lte: a JSON number, or a string that is a decimal number. */
export function numberOf(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.length <= MAX_NUMERIC_TEXT_LENGTH && NUMERIC_TEXT_RE.test(value)) return Number(value);
  return null;
}

/** Compares by Unicode code point, as PostgreSQL's `COLLATE "C"` orders UTF-8 text. */
export function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

const ISO_DATE_RE = new RegExp(ISO_DATE_TEXT);

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
export function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** A UTC date from parts; years below 100 are not shifted to the 1900s as `Date.UTC` does. */
function utcDate(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): Date {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  date.setUTCFullYear(year, month - 1, day);
  return date;
}

export function parseIsoDate(text: string): Date | null {
  const match = ISO_DATE_RE.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year < 1 || day > daysInMonth(year, month)) return null;
  const ms = match[10] ? Number(match[10].padEnd(3, "0").slice(0, 3)) : 0;
  const local = utcDate(year, month, day, Number(match[5] ?? 0), Number(match[6] ?? 0), Number(match[8] ?? 0), ms);
  const zone = match[11];
  if (zone && zone !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const minutes = Number(match[12]) * 60 + Number(match[14] ?? 0);
    return new Date(local.getTime() - sign * minutes * 60_000);
  }
  return local;
}

/** A relative date, `-<n><unit>`: h hours, d days, w weeks, m months, q quarters (13 weeks), y years. */
const RELATIVE_RE = /^-?([0-9]{1,4})([hdwmqy])$/;

/** `now` minus a relative amount; months and years end on the last day of a shorter month (as dateutil). */
export function relativeDate(text: string, now: Date): Date | null {
  const match = RELATIVE_RE.exec(text);
  if (!match) return null;
  const n = Number(match[1]);
  const unit = match[2]!;
  const hourMs = 3_600_000;
  switch (unit) {
    case "h":
      return new Date(now.getTime() - n * hourMs);
    case "d":
      return new Date(now.getTime() - n * 24 * hourMs);
    case "w":
      return new Date(now.getTime() - n * 7 * 24 * hourMs);
    case "q":
      return new Date(now.getTime() - n * 13 * 7 * 24 * hourMs);
    default: {
      const months = unit === "m" ? n : n * 12;
      const total = now.getUTCFullYear() * 12 + now.getUTCMonth() - months;
      const year = Math.floor(total / 12);
      const month = (total % 12) + 1;
      const day = Math.min(now.getUTCDate(), daysInMonth(year, month));
      return utcDate(year, month, day, now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), now.getUTCMilliseconds());
    }
  }
}

/** Years PostgreSQL and `toISOString` both write plainly. */
export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}

/** A filter's date for is_date_before/after: relative (`-30d`, `7d`) or ISO 8601. */
export function filterDate(text: string, now: Date): Date | null {
  const date = relativeDate(text, now) ?? parseIsoDate(text);
  return date && isStorableDate(date) ? date : null;
}

/** A stored value read as a date: only strings in ISO_DATE_TEXT form (or Date objects given to the matcher). */
export function dateOf(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  return typeof value === "string" ? parseIsoDate(value) : null;
}
