/**
 * PostHog's guess of a property's type from one value (plugin-server's `getPropertyType`):
 * booleans and "true"/"false" are Boolean; numbers Numeric, unless the key names a time and
 * the number is a plausible Unix timestamp; ISO-looking date strings DateTime; other strings
 * String. Keys PostHog always treats as text (utm_*, $feature/*) stay String.
 */
import type { PropertyType } from "./contract";

const ALWAYS_STRING = [/^utm_/i, /^\$feature\//, /^\$feature_flag_response$/, /^\$survey_response/];
const TIME_KEY = /time|timestamp|date|_at$|-at$|createdat|updatedat/i;
// 2000-01-01 to 2100-01-01, in seconds or milliseconds.
const SECONDS = [946_684_800, 4_102_444_800] as const;
const DATE_STRING = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function isUnixTimestamp(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const seconds = value > SECONDS[1] ? value / 1000 : value;
  return seconds >= SECONDS[0] && seconds <= SECONDS[1];
}

/** The type one value suggests, or null (null, objects and arrays say nothing). */
export function guessPropertyType(key: string, raw: unknown): PropertyType | null {
  const value = typeof raw === "string" ? raw.trim() : raw;
  if (typeof value === "string") {
    const lowered = value.toLowerCase();
    if (lowered === "true" || lowered === "false") return "Boolean";
  }
  if (ALWAYS_STRING.some((pattern) => pattern.test(key))) return typeof value === "string" || typeof value === "number" ? "String" : null;
  if (typeof value === "boolean") return "Boolean";
  if (typeof value === "number") return TIME_KEY.test(key) && isUnixTimestamp(value) ? "DateTime" : "Numeric";
  if (typeof value === "string") return DATE_STRING.test(value) && !Number.isNaN(Date.parse(value)) ? "DateTime" : "String";
  return null;
}
