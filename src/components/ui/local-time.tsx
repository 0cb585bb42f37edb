"use client";

import { useSyncExternalStore } from "react";
import { formatAs, type DateFormat } from "./format";

const never = () => () => {};

/**
 * A date or time in the reader's time zone, for text the server renders too (a page's
 * prefetched data). The server knows no reader's zone, and hydration must see the text the
 * server wrote, so both say UTC; the reader's own zone replaces it right after hydration
 * (useSyncExternalStore's server snapshot is used only until then). In UTC nothing changes.
 */
export function LocalTime({ value, format = "dateTime" }: { value: string | number | Date; format?: DateFormat }) {
  const hydrated = useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
  return <time dateTime={typeof value === "string" ? value : new Date(value).toISOString()}>{formatAs(format, value, hydrated ? undefined : "UTC")}</time>;
}
