/**
 * The explorer's filters (tRPC `events.list`, the "Export CSV" link) as typed input, and the
 * events list's parameters they stand for. Browser-safe: the explorer builds its CSV link
 * from `filterParams`, and the server reads the same parameters with the REST list's own
 * checks (params.ts `listQueryOf`), so a bad `after` or property filter is the same 400.
 */
import { z } from "zod";
import { PROPERTY_FILTER_TYPES, PROPERTY_OPERATORS } from "@/server/properties/contract";

/** Operators that take no value. */
export const VALUELESS = new Set<string>(["is_set", "is_not_set"]);

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
 * The list parameters of a filter, by their REST names. Blank fields and property rows
 * without a key are left out (as the REST API treats an empty parameter as not given).
 */
export function filterParams(filters: EventFilters): Record<string, string> {
  const params: Record<string, string> = {};
  if (filters.event?.trim()) params.event = filters.event.trim();
  if (filters.distinctId?.trim()) params.distinct_id = filters.distinctId.trim();
  if (filters.after?.trim()) params.after = filters.after.trim();
  if (filters.before?.trim()) params.before = filters.before.trim();
  const properties = (filters.properties ?? [])
    .filter((filter) => filter.key.trim() !== "")
    .map((filter) => {
      const type = filter.type ?? "event";
      if (VALUELESS.has(filter.operator)) return { key: filter.key.trim(), operator: filter.operator, type };
      return { key: filter.key.trim(), operator: filter.operator, value: filter.value ?? "", type };
    });
  if (properties.length > 0) params.properties = JSON.stringify(properties);
  return params;
}

/** Where the next page of the explorer's list starts: the last row shown. */
export const eventPageCursor = z.object({ before: z.string().max(100), beforeUuid: z.string().max(100) });
export type EventPageCursor = z.infer<typeof eventPageCursor>;

