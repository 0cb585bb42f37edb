/**
 * The explorer's filters and how they become the events API's query parameters. Pure (no
 * React, no server code): the tRPC `events.list` procedure parses these parameters with the
 * REST endpoint's own `parseListQuery`, and the "Export CSV" link sends the same ones to
 * `GET /api/projects/:id/events/?format=csv`, so both read the filter identically.
 */
import { z } from "zod";
import { PROPERTY_OPERATORS, PROPERTY_FILTER_TYPES } from "@/server/properties/contract";

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

/** Operators that take no value. */
export const VALUELESS = new Set<string>(["is_set", "is_not_set"]);

/** Time range choices: the `after` parameter each sends (relative forms the API accepts). */
export const TIME_RANGES = [
  { value: "-1h", label: "Last hour" },
  { value: "-1d", label: "Last 24 hours" },
  { value: "-7d", label: "Last 7 days" },
  { value: "-30d", label: "Last 30 days" },
  { value: "", label: "All time" },
] as const;

export const propertyFilterInput = z.object({
  key: z.string().max(10_000),
  operator: z.enum(PROPERTY_OPERATORS),
  value: z.string().max(10_000).optional(),
  type: z.enum(PROPERTY_FILTER_TYPES).default("event"),
});
export type PropertyFilterInput = z.input<typeof propertyFilterInput>;

export const eventFiltersInput = z.object({
  event: z.string().max(10_000).optional(),
  distinctId: z.string().max(10_000).optional(),
  /** ISO 8601, a relative time (-1h, -7d …) or `now`, as the REST API accepts. */
  after: z.string().max(100).optional(),
  before: z.string().max(100).optional(),
  properties: z.array(propertyFilterInput).max(50).optional(),
});
export type EventFilters = z.input<typeof eventFiltersInput>;

/**
 * The query parameters of a filter. Blank fields and property rows without a key are left
 * out (as the REST API treats an empty parameter as not given).
 */
export function filterSearchParams(filters: EventFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.event?.trim()) params.set("event", filters.event.trim());
  if (filters.distinctId?.trim()) params.set("distinct_id", filters.distinctId.trim());
  if (filters.after?.trim()) params.set("after", filters.after.trim());
  if (filters.before?.trim()) params.set("before", filters.before.trim());
  const properties = (filters.properties ?? [])
    .filter((filter) => filter.key.trim() !== "")
    .map((filter) => {
      const type = filter.type ?? "event";
      if (VALUELESS.has(filter.operator)) return { key: filter.key.trim(), operator: filter.operator, type };
      return { key: filter.key.trim(), operator: filter.operator, value: filter.value ?? "", type };
    });
  if (properties.length > 0) params.set("properties", JSON.stringify(properties));
  return params;
}

/** The CSV export of a filter: the REST list, which accepts the browser's session for GET. */
export function csvExportHref(projectId: number, filters: EventFilters): string {
  const params = new URLSearchParams([["format", "csv"], ...filterSearchParams(filters)]);
  return `/api/projects/${projectId}/events/?${params.toString()}`;
}
