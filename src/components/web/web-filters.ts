/**
 * The web analytics page's filters, kept in the URL (`/web?host=…&path=…&date_from=-30d`)
 * so that links share them and back/forward step through them.
 */

export const DATE_RANGES = [
  { value: "-24h", label: "Last 24 hours" },
  { value: "-7d", label: "Last 7 days" },
  { value: "-14d", label: "Last 14 days" },
  { value: "-30d", label: "Last 30 days" },
  { value: "-90d", label: "Last 90 days" },
] as const;

export type DateRangeValue = (typeof DATE_RANGES)[number]["value"];
export const DEFAULT_DATE_FROM: DateRangeValue = "-7d";

export interface WebFilters {
  /** One `$host`, or every host. */
  host: string | null;
  /** One `$pathname`, exactly, or every path. */
  path: string | null;
  dateFrom: DateRangeValue;
}

/** Longest host or path read from the URL; anything longer is ignored rather than sent. */
const MAX_TEXT = 1_000;

function text(value: string | null): string | null {
  const trimmed = value?.trim() ?? "";
  return trimmed === "" || trimmed.length > MAX_TEXT ? null : trimmed;
}

function isDateRange(value: string | null): value is DateRangeValue {
  return DATE_RANGES.some((range) => range.value === value);
}

/** The filters a URL's query names; unknown or broken values fall back to the defaults. */
export function filtersFromParams(params: Pick<URLSearchParams, "get">): WebFilters {
  const dateFrom = params.get("date_from");
  return { host: text(params.get("host")), path: text(params.get("path")), dateFrom: isDateRange(dateFrom) ? dateFrom : DEFAULT_DATE_FROM };
}

/** The query string of `filters` (defaults left out), without the leading `?`. */
export function paramsOf(filters: WebFilters): string {
  const params = new URLSearchParams();
  if (filters.host) params.set("host", filters.host);
  if (filters.path) params.set("path", filters.path);
  if (filters.dateFrom !== DEFAULT_DATE_FROM) params.set("date_from", filters.dateFrom);
  return params.toString();
}

export function dateRangeLabel(value: DateRangeValue): string {
  return DATE_RANGES.find((range) => range.value === value)!.label;
}
