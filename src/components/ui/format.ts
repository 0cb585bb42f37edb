/** Dates arrive from tRPC as ISO strings (no transformer). */
type DateInput = string | number | Date;

const dateFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium" });
const dateTimeFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

/** "Mar 5, 2026". */
export function formatDate(value: DateInput): string {
  return dateFormat.format(new Date(value));
}

/** "Mar 5, 2026, 4:07 PM". */
export function formatDateTime(value: DateInput): string {
  return dateTimeFormat.format(new Date(value));
}
