/** Dates arrive from tRPC as ISO strings (no transformer). */
type DateInput = string | number | Date;

/** `undefined`: the runtime's own zone (the reader's, in a browser). */
type Zone = "UTC" | undefined;

const formats = {
  date: { dateStyle: "medium" },
  dateTime: { dateStyle: "medium", timeStyle: "short" },
  dateTimeSeconds: { dateStyle: "medium", timeStyle: "medium" },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

export type DateFormat = keyof typeof formats;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** "Mar 5, 2026" (date), "Mar 5, 2026, 4:07 PM" (dateTime), "Mar 5, 2026, 4:07:12 PM" (dateTimeSeconds). */
export function formatAs(format: DateFormat, value: DateInput, timeZone?: Zone): string {
  const key = `${format}/${timeZone ?? ""}`;
  let formatter = formatters.get(key);
  if (!formatter) formatters.set(key, (formatter = new Intl.DateTimeFormat("en-US", { ...formats[format], timeZone })));
  return formatter.format(new Date(value));
}

/** "Mar 5, 2026". */
export function formatDate(value: DateInput): string {
  return formatAs("date", value);
}

/** "Mar 5, 2026, 4:07 PM". */
export function formatDateTime(value: DateInput): string {
  return formatAs("dateTime", value);
}
