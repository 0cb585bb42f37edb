/**
 * U+0000 in management input. PostgreSQL cannot store it in `text` or `jsonb` (the write
 * fails with "invalid byte sequence" / "unsupported Unicode escape sequence"), so a NUL
 * that reached a query was a 500. The REST edge and tRPC refuse it before any service
 * runs, anywhere in the input (values and object keys), as DRF's
 * ProhibitNullCharactersValidator does for PostHog's text fields.
 *
 * The events API is the exception: its filters read NUL as U+FFFD, as ingestion stores it
 * (src/server/events/contract.ts), so it does not pass through here.
 */
import { AppError } from "@/server/errors";

/** DRF's message for a NUL in a CharField. */
export const NUL_MESSAGE = "Null characters are not allowed.";

export const hasNul = (text: string) => text.includes("\u0000");

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** The path to the first string (or object key) holding U+0000, or null when there is none. */
export function nulPath(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === "string") return hasNul(value) ? path : null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = nulPath(value[index], [...path, index]);
      if (found) return found;
    }
    return null;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (hasNul(key)) return [...path, key];
      const found = nulPath(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** Throws a 400 naming the field (PostHog's `a__b__0` attr) when `value` holds U+0000 anywhere. */
export function refuseNul(value: unknown): void {
  const path = nulPath(value);
  if (path) throw new AppError("invalid_input", NUL_MESSAGE, path.length > 0 ? path.map(String).join("__") : null);
}
