/** The date range choices of the insight editor and the dashboard filter bar: PostHog's relative `date_from` forms. */
export const DATE_PRESETS = [
  { value: "-24h", label: "Last 24 hours" },
  { value: "-7d", label: "Last 7 days" },
  { value: "-14d", label: "Last 14 days" },
  { value: "-30d", label: "Last 30 days" },
  { value: "-90d", label: "Last 90 days" },
  { value: "-180d", label: "Last 180 days" },
  { value: "mStart", label: "This month" },
  { value: "yStart", label: "Year to date" },
  { value: "all", label: "All time" },
] as const;

type PresetInterval = "hour" | "day" | "week" | "month";

/**
 * The interval to show after the date range becomes `dateFrom`, as PostHog's date filter
 * adjusts it: a range of a day or less ("-24h", "-1d", "dStart", …) reads by the hour (by
 * the day it would be one or two points); a longer one leaves hours for days; else the
 * interval stays as chosen.
 */
export function intervalForRange(dateFrom: string, interval: PresetInterval): PresetInterval {
  const match = /^-(\d+)([hd])$/.exec(dateFrom);
  const hours = match ? Number(match[1]) * (match[2] === "d" ? 24 : 1) : dateFrom === "dStart" || dateFrom === "-0d" ? 24 : null;
  if (hours !== null && hours <= 24) return "hour";
  return interval === "hour" ? "day" : interval;
}
