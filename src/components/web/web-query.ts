/**
 * The query nodes the web analytics page runs through the query API (PostHog's
 * WebOverviewQuery, WebStatsTableQuery, WebTopClicksQuery and the TrendsQuery its graphs use) and readers of
 * their results. Results are checked here, never trusted: a shape this page does not know
 * reads as null and the page says so.
 */
import { conversionGoalOf, tableOrder, type WebFilters } from "./web-filters";
import { isObject } from "@/server/input/json-object";

export type WebBreakdown =
  | "Page"
  | "InitialPage"
  | "ExitPage"
  | "InitialReferringDomain"
  | "InitialUTMSource"
  | "InitialUTMMedium"
  | "InitialUTMCampaign"
  | "DeviceType"
  | "Browser"
  | "OS"
  | "Viewport"
  | "Country"
  | "Region"
  | "City"
  | "Language"
  | "Timezone";

export interface WebTableTab {
  breakdown: WebBreakdown;
  /** The tab's name. */
  label: string;
  /** The first column's heading. */
  column: string;
}

export interface WebTableGroup {
  id: "paths" | "sources" | "devices" | "geography";
  title: string;
  tabs: readonly WebTableTab[];
}

/** The tables, grouped as PostHog's web analytics page groups them. */
export const WEB_TABLE_GROUPS: readonly WebTableGroup[] = [
  {
    id: "paths",
    title: "Paths",
    tabs: [
      { breakdown: "Page", label: "Page", column: "Path" },
      { breakdown: "InitialPage", label: "Entry", column: "Entry path" },
      { breakdown: "ExitPage", label: "Exit", column: "Exit path" },
    ],
  },
  {
    id: "sources",
    title: "Sources",
    tabs: [
      { breakdown: "InitialReferringDomain", label: "Referring domain", column: "Referring domain" },
      { breakdown: "InitialUTMSource", label: "UTM source", column: "UTM source" },
      { breakdown: "InitialUTMMedium", label: "UTM medium", column: "UTM medium" },
      { breakdown: "InitialUTMCampaign", label: "UTM campaign", column: "UTM campaign" },
    ],
  },
  {
    id: "devices",
    title: "Devices",
    tabs: [
      { breakdown: "DeviceType", label: "Device type", column: "Device type" },
      { breakdown: "Browser", label: "Browser", column: "Browser" },
      { breakdown: "OS", label: "OS", column: "OS" },
      { breakdown: "Viewport", label: "Viewport", column: "Viewport" },
    ],
  },
  {
    id: "geography",
    title: "Geography",
    tabs: [
      { breakdown: "Country", label: "Country", column: "Country" },
      { breakdown: "Region", label: "Region", column: "Region" },
      { breakdown: "City", label: "City", column: "City" },
      { breakdown: "Language", label: "Language", column: "Language" },
      { breakdown: "Timezone", label: "Timezone", column: "Timezone" },
    ],
  },
];

/**
 * The tables with a bounce rate column: the entry pages. PostHog's Page tab shows one too, but
 * a page's rate is its entry sessions' — the Entry tab's figure, looked up by path — and with
 * includeBounceRate PostHog's Page counts only the views of sessions starting in the range,
 * which joins every view with its session: on PostgreSQL at 1M events that made the default
 * tab take about 750 ms instead of under 500 (bench:web), for a figure the next tab shows.
 */
const BOUNCE_RATE_BREAKDOWNS: ReadonlySet<WebBreakdown> = new Set(["InitialPage"]);

export function showsBounceRate(breakdown: WebBreakdown): boolean {
  return BOUNCE_RATE_BREAKDOWNS.has(breakdown);
}

/** Rows a table shows at first, and how many more each "Show more" adds. */
export const TABLE_PAGE = 10;

/** The page's filters as PostHog's event property filters. */
export function propertiesOf(filters: WebFilters) {
  const properties: { type: "event"; key: string; operator: "exact"; value: string[] }[] = [];
  if (filters.host) properties.push({ type: "event", key: "$host", operator: "exact", value: [filters.host] });
  if (filters.path) properties.push({ type: "event", key: "$pathname", operator: "exact", value: [filters.path] });
  return properties;
}

const dateRangeOf = (filters: WebFilters) => ({ date_from: filters.dateFrom, date_to: null });

const goalOf = (filters: WebFilters) => (filters.goal === null ? {} : { conversionGoal: conversionGoalOf(filters.goal) });

/**
 * Every builder below carries the switch's `filterTestAccounts` (PostHog's, on each web
 * analytics node and the graphs' trends); where the project has no test account filters the
 * server leaves the query as it is.
 */
export function overviewQuery(filters: WebFilters) {
  return {
    kind: "WebOverviewQuery",
    properties: propertiesOf(filters),
    dateRange: dateRangeOf(filters),
    compareFilter: { compare: true },
    filterTestAccounts: filters.filterTestAccounts,
    ...goalOf(filters),
  };
}

export function statsTableQuery(filters: WebFilters, breakdown: WebBreakdown, limit: number) {
  // With a goal the table's figures are visitors and the goal's (PostHog's conversion columns): no views or bounce rate.
  const bounceRate = filters.goal === null && showsBounceRate(breakdown);
  const order = tableOrder(filters.order, bounceRate, filters.goal !== null);
  return {
    kind: "WebStatsTableQuery",
    breakdownBy: breakdown,
    properties: propertiesOf(filters),
    dateRange: dateRangeOf(filters),
    limit,
    filterTestAccounts: filters.filterTestAccounts,
    ...goalOf(filters),
    ...(bounceRate ? { includeBounceRate: true } : {}),
    ...(order === null ? {} : { orderBy: [order.field, order.direction] }),
  };
}

/** The ten most clicked element texts of autocaptured clicks, through the page's range and filters. */
export function topClicksQuery(filters: WebFilters) {
  return { kind: "WebTopClicksQuery", properties: propertiesOf(filters), dateRange: dateRangeOf(filters), filterTestAccounts: filters.filterTestAccounts };
}

/** The series of the visitors/views graph and the overview's sparklines, in this order; keys are the overview's. */
export const TREND_SERIES = [
  { key: "visitors", label: "Visitors", math: "dau" },
  { key: "views", label: "Views", math: "total" },
  { key: "sessions", label: "Sessions", math: "unique_session" },
] as const;

/**
 * The sparklines of session duration and bounce rate: the sessions with a page view in each
 * bucket, each once (a session property math). `scale` puts a value in its card's unit
 * (the overview's bounce rate is a percentage, `$is_bounce` averages to 0–1).
 */
export const SESSION_TREND_SERIES = [
  { key: "session duration", label: "Session duration", property: "$session_duration", scale: 1 },
  { key: "bounce rate", label: "Bounce rate", property: "$is_bounce", scale: 100 },
] as const;

const intervalOf = (filters: WebFilters) => (filters.dateFrom === "-24h" ? "hour" : "day");

/**
 * PostHog's tag of the web analytics product's queries: its trends are then counted by the
 * sessions starting in each bucket, from the sessions table (the server's webTrendsServable),
 * so a month of them reads the sessions, not every page view, and the sparklines' buckets add
 * up to the cards' views and sessions.
 */
const WEB_ANALYTICS_TAGS = { productKey: "web_analytics" } as const;

/** PostHog's web graphs: `$pageview` counted as unique users, events and sessions, hourly over a day. */
export function trendQuery(filters: WebFilters) {
  return {
    kind: "TrendsQuery",
    tags: WEB_ANALYTICS_TAGS,
    series: TREND_SERIES.map((series) => ({ kind: "EventsNode", event: "$pageview", name: series.label, math: series.math })),
    interval: intervalOf(filters),
    dateRange: dateRangeOf(filters),
    properties: propertiesOf(filters),
    filterTestAccounts: filters.filterTestAccounts,
    trendsFilter: { display: "ActionsLineGraph" },
  };
}

/**
 * The average session duration and bounce rate over the same buckets, as a TrendsQuery of its
 * own: seconds and a share have no place on the visitors graph's axis.
 */
export function sessionTrendQuery(filters: WebFilters) {
  return {
    kind: "TrendsQuery",
    tags: WEB_ANALYTICS_TAGS,
    series: SESSION_TREND_SERIES.map((series) => ({
      kind: "EventsNode",
      event: "$pageview",
      name: series.label,
      math: "avg",
      math_property: series.property,
      math_property_type: "session_properties",
    })),
    interval: intervalOf(filters),
    dateRange: dateRangeOf(filters),
    properties: propertiesOf(filters),
    filterTestAccounts: filters.filterTestAccounts,
    trendsFilter: { display: "ActionsLineGraph" },
  };
}

// ---------------------------------------------------------------------------------------
// Results

const numberOrNull = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

export type OverviewKind = "unit" | "duration_s" | "percentage" | "currency";

export interface OverviewItem {
  key: string;
  kind: OverviewKind;
  isIncreaseBad: boolean;
  value: number | null;
  previous: number | null;
  changeFromPreviousPct: number | null;
}

const OVERVIEW_KINDS = new Set<string>(["unit", "duration_s", "percentage", "currency"]);

/** WebOverviewQuery's `results`, or null if they are not its items. */
export function overviewItems(results: unknown): OverviewItem[] | null {
  if (!Array.isArray(results)) return null;
  const items: OverviewItem[] = [];
  for (const item of results) {
    if (!isObject(item) || typeof item.key !== "string" || typeof item.kind !== "string" || !OVERVIEW_KINDS.has(item.kind)) return null;
    items.push({
      key: item.key,
      kind: item.kind as OverviewKind,
      isIncreaseBad: item.isIncreaseBad === true,
      value: numberOrNull(item.value),
      previous: numberOrNull(item.previous),
      changeFromPreviousPct: numberOrNull(item.changeFromPreviousPct),
    });
  }
  return items;
}

export interface StatsRow {
  /** The breakdown value as the server sent it (text, number, a tuple, or null). */
  value: unknown;
  visitors: number;
  views: number;
  /** The share of sessions that bounced, 0–1; null without the column or without sessions (no session entered on that page). */
  bounceRate: number | null;
  /** Share of the column total, 0–1, for the row's bar. */
  fillFraction: number;
  /** With a conversion goal: total conversions, unique conversions and their rate (0–1, null without visitors); else null. */
  goal: { conversions: number; converters: number; rate: number | null } | null;
}

export interface StatsTable {
  rows: StatsRow[];
  hasMore: boolean;
}

/** A cell's current value: the first of a `(current, previous)` tuple, or a bare number. */
function current(cell: unknown): number | null {
  return Array.isArray(cell) ? numberOrNull(cell[0]) : numberOrNull(cell);
}

/** WebStatsTableQuery's response (`columns`, `results`, `hasMore`), or null if it is not one. */
export function statsTable(response: unknown): StatsTable | null {
  if (!isObject(response) || !Array.isArray(response.results)) return null;
  const columns = Array.isArray(response.columns) ? response.columns.map(String) : [];
  const at = (name: string, fallback: number) => {
    const index = columns.indexOf(`context.columns.${name}`);
    return index === -1 ? (columns.length === 0 ? fallback : -1) : index;
  };
  const valueAt = at("breakdown_value", 0);
  const visitorsAt = at("visitors", 1);
  const viewsAt = at("views", 2);
  const fillAt = at("ui_fill_fraction", 3);
  // Only there when asked for (includeBounceRate): never guessed by position.
  const bounceAt = columns.indexOf("context.columns.bounce_rate");
  const [conversionsAt, convertersAt, rateAt] = ["total_conversions", "unique_conversions", "conversion_rate"].map((name) => columns.indexOf(`context.columns.${name}`));
  if (valueAt === -1 || visitorsAt === -1) return null;
  const rows: StatsRow[] = [];
  for (const row of response.results) {
    if (!Array.isArray(row)) return null;
    const visitors = current(row[visitorsAt]);
    if (visitors === null) return null;
    const fill = fillAt === -1 ? null : numberOrNull(row[fillAt]);
    rows.push({
      value: row[valueAt] ?? null,
      visitors,
      views: viewsAt === -1 ? 0 : (current(row[viewsAt]) ?? 0),
      bounceRate: bounceAt === -1 ? null : current(row[bounceAt]),
      fillFraction: Math.min(1, Math.max(0, fill ?? 0)),
      goal: conversionsAt === undefined || conversionsAt === -1 ? null : { conversions: current(row[conversionsAt]) ?? 0, converters: current(row[convertersAt ?? -1]) ?? 0, rate: current(row[rateAt ?? -1]) },
    });
  }
  return { rows, hasMore: response.hasMore === true };
}

export interface TopClick {
  /** The clicked element's text. */
  text: string;
  clicks: number;
  visitors: number;
  /** The row's share of the clicks shown, 0–1, for its bar. */
  fillFraction: number;
}

/** WebTopClicksQuery's response (`columns` el_text, total_clicks, unique_visitors; `results`), or null if it is not one. */
export function topClicks(response: unknown): TopClick[] | null {
  if (!isObject(response) || !Array.isArray(response.results)) return null;
  const columns = Array.isArray(response.columns) ? response.columns.map(String) : ["el_text", "total_clicks", "unique_visitors"];
  const [textAt, clicksAt, visitorsAt] = [columns.indexOf("el_text"), columns.indexOf("total_clicks"), columns.indexOf("unique_visitors")] as const;
  if (textAt === -1 || clicksAt === -1 || visitorsAt === -1) return null;
  const rows: Omit<TopClick, "fillFraction">[] = [];
  for (const row of response.results) {
    if (!Array.isArray(row) || typeof row[textAt] !== "string") return null;
    const clicks = numberOrNull(row[clicksAt]);
    const visitors = numberOrNull(row[visitorsAt]);
    if (clicks === null || visitors === null) return null;
    rows.push({ text: row[textAt] as string, clicks, visitors });
  }
  const total = rows.reduce((sum, row) => sum + row.clicks, 0);
  return rows.map((row) => ({ ...row, fillFraction: total > 0 ? row.clicks / total : 0 }));
}

export interface TrendSeries {
  /** The overview item the series is the sparkline of. */
  key: (typeof TREND_SERIES)[number]["key"] | (typeof SESSION_TREND_SERIES)[number]["key"];
  label: string;
  data: number[];
  labels: string[];
  days: string[];
}

/** A TrendsQuery's series, one per spec in order, or null if the results are not those. */
function seriesOf(results: unknown, specs: readonly { key: TrendSeries["key"]; label: string; scale?: number }[]): TrendSeries[] | null {
  if (!Array.isArray(results) || results.length !== specs.length) return null;
  const out: TrendSeries[] = [];
  for (const [index, item] of results.entries()) {
    if (!isObject(item) || !Array.isArray(item.data) || !item.data.every((n) => typeof n === "number") || !Array.isArray(item.labels)) return null;
    const spec = specs[index]!;
    const scale = spec.scale ?? 1;
    out.push({
      key: spec.key,
      label: spec.label,
      data: (item.data as number[]).map((n) => n * scale),
      labels: item.labels.map(String),
      days: Array.isArray(item.days) ? item.days.map(String) : [],
    });
  }
  return out;
}

/** The graph's series by key, or null if the results are not the TrendsQuery's series. */
export function trendSeries(results: unknown): TrendSeries[] | null {
  return seriesOf(results, TREND_SERIES);
}

/** sessionTrendQuery's series (bounce rate in percent), or null if the results are not those. */
export function sessionTrendSeries(results: unknown): TrendSeries[] | null {
  return seriesOf(results, SESSION_TREND_SERIES);
}
