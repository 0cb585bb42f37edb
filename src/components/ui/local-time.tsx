"use client";

import { formatAs, type DateFormat } from "./format";
import { useHydrated } from "./hydrated";

/**
 * A date or time in the reader's time zone, for text the server renders too (a page's
 * prefetched data). The server knows no reader's zone, and hydration must see the text the
 * server wrote, so both say UTC; the reader's own zone replaces it right after hydration
 * (useHydrated). In UTC nothing changes.
 */
export function LocalTime({ value, format = "dateTime" }: { value: string | number | Date; format?: DateFormat }) {
  const hydrated = useHydrated();
  return <time dateTime={typeof value === "string" ? value : new Date(value).toISOString()}>{formatAs(format, value, hydrated ? undefined : "UTC")}</time>;
}
