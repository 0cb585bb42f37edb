/**
 * The web analytics page's filters and its tables' order, kept in the URL
 * (`/web?host=…&path=…&date_from=-30d&order=views-asc&filter_test_accounts=false`) so that
 * links share them and back/forward step through them.
 */

export const DATE_RANGES = [
  { value: "-24h", label: "Last 24 hours" },
  { value: "-7d", label: "Last 7 days" },
  { value: "-14d", label: "Last 14 days" },
  { value: "-30d", label: "Last 30 days" },
  { value: "-90d", label: "Last 90 days" },
] as const;

export type DateRangeValue = (typeof DATE_RANGES)[number]["value"];
export const DEFAULT_DATE_FROM: DateRangeValue = "-7d";

export interface WebFilters {
  /** One `$host`, or every host. */
  host: string | null;
  /** One `$pathname`, exactly, or every path. */
  path: string | null;
  dateFrom: DateRangeValue;
  /** The tables' order (WebStatsTableQuery's orderBy); null for the default (visitors, or with a goal unique conversions, descending). */
  order: TableOrder | null;
  /** The conversion goal (PostHog's conversionGoal), or none. */
  goal: WebGoal | null;
  /**
   * "Filter out internal and test users" (PostHog's filterTestAccounts): on unless the URL
   * says `filter_test_accounts=false`. It leaves out only what the project's test account
   * filters name; without any it is shown off (webTestAccounts).
   */
  filterTestAccounts: boolean;
}

/** A conversion goal as the page offers it: an event, an action, or a page (a `$pageview` of it, given as a path or a full URL). */
export type WebGoal = { kind: "event"; event: string } | { kind: "action"; id: number } | { kind: "page"; page: string };

/**
 * What a page goal matches, by its shape: a path (`/pricing`) the whole `$pathname`; a full
 * URL (`https://shop.example/pricing`) or a path with a query string or fragment
 * (`/pricing?plan=pro`) any `$current_url` containing it, as PostHog's page-view actions
 * match their URL; `*` stands for any characters in both. Null for text that is neither.
 */
export function pageGoalMatch(page: string): "path" | "url" | null {
  if (page.length === 0 || page.length > MAX_TEXT) return null;
  if (page.startsWith("/")) return /[?#]/.test(page) ? "url" : "path";
  return /^https?:\/\/./i.test(page) ? "url" : null;
}

/** The goal in the URL's `goal=` (`event:signup`, `action:12`, `page:/thanks`, `page:https://shop.example/thanks`). */
export function goalParam(goal: WebGoal): string {
  return goal.kind === "event" ? `event:${goal.event}` : goal.kind === "action" ? `action:${goal.id}` : `page:${goal.page}`;
}

export function goalFromParam(value: string | null): WebGoal | null {
  const match = /^(event|action|page):(.+)$/s.exec(value ?? "");
  if (!match || match[2]!.length > MAX_TEXT) return null;
  const [, kind, rest] = match as unknown as [string, string, string];
  if (kind === "event") return { kind, event: rest };
  if (kind === "page") return pageGoalMatch(rest) ? { kind, page: rest } : null;
  const id = Number(rest);
  return Number.isSafeInteger(id) && id > 0 ? { kind: "action", id } : null;
}

/** The goal as the query API's conversionGoal (a page: Burrow's `pathname` or `url`, see pageGoalMatch). */
export function conversionGoalOf(goal: WebGoal) {
  if (goal.kind === "event") return { customEventName: goal.event };
  if (goal.kind === "action") return { actionId: goal.id };
  return pageGoalMatch(goal.page) === "path" ? { pathname: goal.page } : { url: goal.page };
}

/** A column the tables sort by, as PostHog's WebAnalyticsOrderByFields names it (the last three with a goal). */
export type TableOrderField = "Visitors" | "Views" | "BounceRate" | "TotalConversions" | "UniqueConversions" | "ConversionRate";
const GOAL_FIELDS = new Set<TableOrderField>(["Visitors", "TotalConversions", "UniqueConversions", "ConversionRate"]);
export interface TableOrder {
  field: TableOrderField;
  direction: "ASC" | "DESC";
}

/** Each orderable column's name in the URL's `order=` (`bounce-rate-desc`). */
const FIELD_PARAMS: Record<TableOrderField, string> = {
  Visitors: "visitors",
  Views: "views",
  BounceRate: "bounce-rate",
  TotalConversions: "conversions",
  UniqueConversions: "unique-conversions",
  ConversionRate: "conversion-rate",
};

const orderParam = (order: TableOrder) => `${FIELD_PARAMS[order.field]}-${order.direction.toLowerCase()}`;

/** The orders a URL may name (the default, visitors-desc, is left out). */
const ORDER_PARAMS = new Map<string, TableOrder>(
  (Object.keys(FIELD_PARAMS) as TableOrderField[])
    .flatMap((field) => (["DESC", "ASC"] as const).map((direction): TableOrder => ({ field, direction })))
    .filter((order) => !(order.field === "Visitors" && order.direction === "DESC"))
    .map((order) => [orderParam(order), order]),
);

/** The order a table is shown in: the default is visitors descending, with a goal unique conversions (as PostHog's). */
export function shownOrder(order: TableOrder | null, goal = false): TableOrder {
  return order ?? { field: goal ? "UniqueConversions" : "Visitors", direction: "DESC" };
}

/**
 * The order after a click on `field`'s header: a new column starts descending (the biggest
 * first), the current one flips; back at the default it is null again, out of the URL.
 */
export function nextOrder(order: TableOrder | null, field: TableOrderField, goal = false): TableOrder | null {
  const current = shownOrder(order, goal);
  const next: TableOrder = current.field === field ? { field, direction: current.direction === "DESC" ? "ASC" : "DESC" } : { field, direction: "DESC" };
  const fallback = shownOrder(null, goal);
  return next.field === fallback.field && next.direction === "DESC" ? null : next;
}

/**
 * The page's order as a table without a bounce rate column honours it: ordering by a column
 * the table does not show (the query API refuses BounceRate without includeBounceRate) leaves
 * it in its default order.
 */
export function tableOrder(order: TableOrder | null, showsBounceRate: boolean, goal = false): TableOrder | null {
  if (order === null) return null;
  if (goal) return GOAL_FIELDS.has(order.field) ? order : null;
  if (order.field !== "Visitors" && GOAL_FIELDS.has(order.field)) return null;
  return order.field === "BounceRate" && !showsBounceRate ? null : order;
}

/** Longest host or path read from the URL; anything longer is ignored rather than sent. */
const MAX_TEXT = 1_000;

function text(value: string | null): string | null {
  const trimmed = value?.trim() ?? "";
  return trimmed === "" || trimmed.length > MAX_TEXT ? null : trimmed;
}

function isDateRange(value: string | null): value is DateRangeValue {
  return DATE_RANGES.some((range) => range.value === value);
}

/** The filters a URL's query names; unknown or broken values fall back to the defaults. */
export function filtersFromParams(params: Pick<URLSearchParams, "get">): WebFilters {
  const dateFrom = params.get("date_from");
  const order = ORDER_PARAMS.get(params.get("order") ?? "") ?? null;
  return {
    host: text(params.get("host")),
    path: text(params.get("path")),
    dateFrom: isDateRange(dateFrom) ? dateFrom : DEFAULT_DATE_FROM,
    order,
    goal: goalFromParam(params.get("goal")),
    filterTestAccounts: params.get("filter_test_accounts") !== "false",
  };
}

/** The query string of `filters` (defaults left out), without the leading `?`. */
export function paramsOf(filters: WebFilters): string {
  const params = new URLSearchParams();
  if (filters.host) params.set("host", filters.host);
  if (filters.path) params.set("path", filters.path);
  if (filters.dateFrom !== DEFAULT_DATE_FROM) params.set("date_from", filters.dateFrom);
  if (filters.order !== null && ORDER_PARAMS.has(orderParam(filters.order))) params.set("order", orderParam(filters.order));
  if (filters.goal !== null) params.set("goal", goalParam(filters.goal));
  if (!filters.filterTestAccounts) params.set("filter_test_accounts", "false");
  return params.toString();
}

/**
 * Whether the page leaves out test accounts, as its switch shows it: on by default, but a
 * project without test account filters has nothing to leave out, and its switch shows off.
 */
export function webTestAccounts(filters: Pick<WebFilters, "filterTestAccounts">, projectFilters: readonly unknown[]): boolean {
  return filters.filterTestAccounts && projectFilters.length > 0;
}

export function dateRangeLabel(value: DateRangeValue): string {
  return DATE_RANGES.find((range) => range.value === value)!.label;
}

/** The Replay page's range nearest this page's (Replay offers 24 h, 3 d, 7 d, 30 d, 1 y): never narrower. */
const REPLAY_RANGE: Record<DateRangeValue, string> = { "-24h": "-24h", "-7d": "-7d", "-14d": "-30d", "-30d": "-30d", "-90d": "-1y" };

/**
 * "Watch recordings" from here: the recordings of the range, or, for a page, of the sessions
 * that viewed it (the Replay page's "events performed" filter: `$pageview` on that `$pathname`).
 */
export function replayHref(filters: Pick<WebFilters, "dateFrom">, path?: string): string {
  const params = new URLSearchParams({ range: REPLAY_RANGE[filters.dateFrom] });
  if (path !== undefined) {
    params.set("event", "$pageview");
    params.set("path", path);
  }
  return `/replay?${params}`;
}
