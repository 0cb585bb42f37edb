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
