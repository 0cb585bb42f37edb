/**
 * The explorer's filter bar choices and its "Export CSV" link. The filters themselves, and
 * the list parameters they stand for, are the server's contract (server/events/contract.ts):
 * the tRPC `events.list` procedure reads the same parameters the link sends to
 * `GET /api/projects/:id/events/?format=csv`, so both read the filter identically.
 */
import { filterParams, type EventFilters, type FilterRowInput, type PropertyFilterInput } from "@/server/events/contract";
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

/** The URL parameters of the explorer's filters: the REST list's own names, so a link reads as an API call. */
export const EXPLORER_URL_PARAMS = ["event", "distinct_id", "after", "before", "person_id", "properties"] as const;

/** The explorer's address for a filter: `/events` and the list parameters (blank ones left out). */
export function explorerHref(filters: EventFilters): string {
  const search = new URLSearchParams(filterParams(filters)).toString();
  return search ? `/events?${search}` : "/events";
}

const OPERATORS = new Set<string>(Object.keys(OPERATOR_LABELS));
const FILTER_TYPES = new Set(["event", "person"]);

/** One PostHog property leaf of the URL's `properties` as a filter-bar row, or null when it is none the bar can show. */
function rowOf(leaf: unknown): FilterRowInput | null {
  if (typeof leaf !== "object" || leaf === null || Array.isArray(leaf)) return null;
  const { key, operator, value, type } = leaf as Record<string, unknown>;
  if (type === "cohort") {
    const id = Number(value);
    if (!Number.isInteger(id) || id <= 0) return null;
    return { type: "cohort", cohortId: id, operator: operator === "not_in" ? "not_in" : "in" };
  }
  if (typeof key !== "string" || key === "") return null;
  const op = typeof operator === "string" && OPERATORS.has(operator) ? (operator as PropertyFilterInput["operator"]) : "exact";
  const text = value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
  return { key, operator: op, value: text, type: typeof type === "string" && FILTER_TYPES.has(type) ? (type as "event" | "person") : "event" };
}

/**
 * The filters a URL's query stands for (the inverse of `explorerHref`). It reads what a
 * person may have edited by hand leniently: a `properties` that is not a JSON list, and
 * leaves the bar cannot show, are dropped rather than failing the page.
 */
export function filtersFromSearch(search: Pick<URLSearchParams, "get">): EventFilters {
  const filters: EventFilters = {};
  const event = search.get("event");
  if (event) filters.event = event;
  const distinctId = search.get("distinct_id");
  if (distinctId) filters.distinctId = distinctId;
  const after = search.get("after");
  if (after) filters.after = after;
  const before = search.get("before");
  if (before) filters.before = before;
  const personId = search.get("person_id");
  if (personId) filters.personId = personId;
  const properties = search.get("properties");
  if (properties) {
    let leaves: unknown = null;
    try {
      leaves = JSON.parse(properties);
    } catch {
      // not JSON: no property rows
    }
    const rows = (Array.isArray(leaves) ? leaves : []).map(rowOf).filter((row): row is FilterRowInput => row !== null);
    if (rows.length > 0) filters.properties = rows.slice(0, 50);
  }
  return filters;
}

const thousands = new Intl.NumberFormat("en-US");

/**
 * The list footer's words: how many rows are loaded of how many match. `total` is the count
 * query's answer (null while it runs or when it failed); past the count's cap it is a floor.
 */
export function matchSummary(loaded: number, total: { count: number; capped: boolean } | null): string {
  const shown = `Showing ${thousands.format(loaded)}`;
  if (total === null) return `${shown} ${loaded === 1 ? "event" : "events"}`;
  // Events arriving between the two queries can make the page outrun the count.
  const count = Math.max(total.count, loaded);
  const of = total.capped ? `${thousands.format(count)}+` : thousands.format(count);
  return `${shown} of ${of} matching ${count === 1 && !total.capped ? "event" : "events"}`;
}
