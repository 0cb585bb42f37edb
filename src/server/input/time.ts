/**
 * Times as request parameters take them: `now`, relative (`-1d`), or ISO 8601. Shared by
 * the events API and every insight's date range.
 */
import { AppError } from "@/server/errors";
import { isStorableDate, parseIsoDate, relativeDate } from "@/server/properties/coerce";

const TIME_HELP =
  "an ISO 8601 date or time (2024-01-31, 2024-01-31T12:00:00Z, 2024-01-31T12:00:00.123+02:00) " +
  "or a relative time: -<n>h (hours), -<n>d (days), -<n>w (weeks), -<n>m (months), -<n>q (quarters), -<n>y (years), or now";

/**
 * `after`/`before`: `now`, a relative time (`-1d`, `-2h`, `-1w`, `-1m` is a month, `-1y`),
 * or ISO 8601 (no offset means UTC). A `+` of an offset that arrived as a space (an
 * unencoded `+` in a URL) is read as `+`.
 */
export function parseTimeParam(name: string, value: string, now: Date): Date {
  let date: Date | null = null;
  if (value === "now") date = now;
  else if (value.startsWith("-")) date = relativeDate(value, now);
  else date = parseIsoDate(value.replace(/^(.*[T ][0-9:.]+) ([0-9]{2}(:?[0-9]{2})?)$/, "$1+$2"));
  if (!date || !isStorableDate(date)) throw new AppError("invalid_input", `${name} must be ${TIME_HELP}.`, name);
  return date;
}

