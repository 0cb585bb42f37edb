/**
 * Rules for reading a stored cohort definition, and the time window of a behavioral leaf.
 * Stored filters were checked when written; a row that no longer parses (edited by hand,
 * or written by an older rule) reads as "no definition" and its computation fails with a
 * message instead of matching everyone.
 */
import { filterDate } from "@/server/properties/coerce";
import type { BehavioralFilter, PropertyGroup } from "@/server/properties/contract";
import type { EventCountQuery } from "@/server/db/events";
import { cohortFiltersSchema } from "./contract";

/** The stored `filters.properties` tree, or null when there is none that parses. */
export function storedTree(filters: unknown): PropertyGroup | null {
  const parsed = cohortFiltersSchema.safeParse(filters);
  return parsed.success ? parsed.data.properties : null;
}

/** A definition with no conditions (a static cohort's, or one whose filters name none). */
export const EMPTY_TREE: PropertyGroup = { type: "AND", values: [] };

const DAY_MS = 86_400_000;

/** When a behavioral leaf's window starts: `time_value` `time_interval`s before `now` (calendar months and years), or `explicit_datetime`. */
export function behavioralSince(filter: BehavioralFilter, now: Date): Date {
  const since = windowStart(filter, now);
  // Far-back windows (100,000 years) would leave the database's date range; no event is older than 1970 anyway.
  return since.getTime() < 0 || Number.isNaN(since.getTime()) ? new Date(0) : since;
}

function windowStart(filter: BehavioralFilter, now: Date): Date {
  if (filter.explicit_datetime) return filterDate(filter.explicit_datetime, now) ?? now;
  const n = filter.time_value ?? 30;
  const since = new Date(now);
  switch (filter.time_interval) {
    case "week":
      return new Date(now.getTime() - n * 7 * DAY_MS);
    case "month":
      since.setUTCMonth(since.getUTCMonth() - n);
      return since;
    case "year":
      since.setUTCFullYear(since.getUTCFullYear() - n);
      return since;
    default:
      return new Date(now.getTime() - n * DAY_MS);
  }
}

/** What a behavioral leaf counts: performed_event is "at least once". */
export function eventCountOf(filter: BehavioralFilter, now: Date): EventCountQuery {
  return {
    event: filter.key,
    since: behavioralSince(filter, now),
    count: filter.value === "performed_event_multiple" ? { operator: filter.operator ?? "gte", value: filter.operator_value ?? 1 } : { operator: "gte", value: 1 },
  };
}
