/**
 * The explorer's filter bar choices and its "Export CSV" link. The filters themselves, and
 * the list parameters they stand for, are the server's contract (server/events/contract.ts):
 * the tRPC `events.list` procedure reads the same parameters the link sends to
 * `GET /api/projects/:id/events/?format=csv`, so both read the filter identically.
 */
import { filterParams, type EventFilters } from "@/server/events/contract";
import type { PROPERTY_OPERATORS } from "@/server/properties/contract";

/** The operators the filter bar offers, with their labels. */
export const OPERATOR_LABELS: Record<(typeof PROPERTY_OPERATORS)[number], string> = {
  exact: "equals",
  is_not: "does not equal",
  icontains: "contains",
  not_icontains: "does not contain",
  regex: "matches regex",
  not_regex: "does not match regex",
  gt: "greater than",
  gte: "at least",
  lt: "less than",
  lte: "at most",
  is_set: "is set",
  is_not_set: "is not set",
  is_date_before: "date before",
  is_date_after: "date after",
};

/** Time range choices: the `after` parameter each sends (relative forms the API accepts). */
export const TIME_RANGES = [
  { value: "-1h", label: "Last hour" },
  { value: "-1d", label: "Last 24 hours" },
  { value: "-7d", label: "Last 7 days" },
  { value: "-30d", label: "Last 30 days" },
  { value: "", label: "All time" },
] as const;

/** The CSV export of a filter: the REST list, which accepts the browser's session for GET. */
export function csvExportHref(projectId: number, filters: EventFilters): string {
  const params = new URLSearchParams({ format: "csv", ...filterParams(filters) });
  return `/api/projects/${projectId}/events/?${params.toString()}`;
}
