/**
 * Web analytics reads (PostHog's WebOverviewQuery and WebStatsTableQuery runners,
 * products/web_analytics/backend/hogql_queries/web_overview.py and stats_table.py): the
 * `$pageview`/`$screen` events of a range joined with their session's row of the sessions
 * table (sessions/: kept by the store's insert) by `$session_id`. Both stores answer the
 * same, with sessions/session.ts's session (its start, duration and bounce), and:
 *
 * - a session belongs to a period by its start (its earliest event, whatever its name);
 * - a visitor is the event's person, or its distinct id when it has none;
 * - a property's empty text is no value (missing and null alike).
 */
import type { PropertyNode } from "@/server/properties/contract";
import type { TrendInterval } from "../trend/query";
import { VIEW_EVENTS } from "../sessions/session";

/** An inclusive range of instants. */
export interface WebPeriod {
  from: Date;
  to: Date;
}

export interface WebQueryBase {
  current: WebPeriod;
  /** The period compared with (compareFilter), or null. */
  previous: WebPeriod | null;
  /** Event and person property filters (ANDed). */
  filters: PropertyNode[];
  now: Date;
}

export interface WebOverviewTotals {
  visitors: number;
  views: number;
  sessions: number;
  /** Average session duration in seconds; null without sessions. */
  duration: number | null;
  /** The share of sessions with a page view that bounced, 0–1; null without such sessions. */
  bounceRate: number | null;
}

export interface WebOverviewAnswer {
  current: WebOverviewTotals;
  previous: WebOverviewTotals | null;
}

/**
 * Where a breakdown's value comes from: properties of the event (one, or a tuple), a column
 * of the event's session, or the time-zone offset in hours.
 */
export type WebBreakdownSource =
  | { from: "event"; keys: readonly string[]; numeric?: boolean }
  | { from: "session"; column: "entry_pathname" | "exit_pathname" | "entry_referring_domain" | `entry_utm_${"source" | "medium" | "campaign" | "term" | "content"}` }
  | { from: "timezone" };

export const WEB_BREAKDOWNS = {
  Page: { source: { from: "event", keys: ["$pathname"] }, dropNull: true },
  InitialPage: { source: { from: "session", column: "entry_pathname" }, dropNull: true },
  ExitPage: { source: { from: "session", column: "exit_pathname" }, dropNull: true },
  InitialReferringDomain: { source: { from: "session", column: "entry_referring_domain" }, dropNull: false },
  InitialUTMSource: { source: { from: "session", column: "entry_utm_source" }, dropNull: false },
  InitialUTMMedium: { source: { from: "session", column: "entry_utm_medium" }, dropNull: false },
  InitialUTMCampaign: { source: { from: "session", column: "entry_utm_campaign" }, dropNull: false },
  InitialUTMTerm: { source: { from: "session", column: "entry_utm_term" }, dropNull: false },
  InitialUTMContent: { source: { from: "session", column: "entry_utm_content" }, dropNull: false },
  Country: { source: { from: "event", keys: ["$geoip_country_code"] }, dropNull: false },
  Region: { source: { from: "event", keys: ["$geoip_country_code", "$geoip_subdivision_1_code", "$geoip_subdivision_1_name"] }, dropNull: false },
  City: { source: { from: "event", keys: ["$geoip_country_code", "$geoip_city_name"] }, dropNull: false },
  DeviceType: { source: { from: "event", keys: ["$device_type"] }, dropNull: false },
  Browser: { source: { from: "event", keys: ["$browser"] }, dropNull: false },
  OS: { source: { from: "event", keys: ["$os"] }, dropNull: false },
  Viewport: { source: { from: "event", keys: ["$viewport_width", "$viewport_height"], numeric: true }, dropNull: false },
  Language: { source: { from: "event", keys: ["$browser_language"] }, dropNull: false },
  Timezone: { source: { from: "timezone" }, dropNull: false },
} as const satisfies Record<string, { source: WebBreakdownSource; dropNull: boolean }>;

export type WebBreakdown = keyof typeof WEB_BREAKDOWNS;

/** How many value columns (v0, v1, …) a breakdown's rows carry. */
export function valueColumns(breakdown: WebBreakdown): number {
  const source: WebBreakdownSource = WEB_BREAKDOWNS[breakdown].source;
  return source.from === "event" ? source.keys.length : 1;
}

/** An order a table's rows are asked in (PostHog's orderBy): by one of its figures, the default order breaking ties. */
export interface WebStatsOrder {
  field: "Visitors" | "Views" | "BounceRate";
  direction: "ASC" | "DESC";
}

export interface WebStatsQuery extends WebQueryBase {
  breakdown: WebBreakdown;
  includeBounceRate: boolean;
  /** PostHog's includeHost: the path breakdowns' values carry their host in front (webHostSource). */
  includeHost?: boolean;
  limit: number;
  offset: number;
  /** Absent or null: visitors, then views (both descending), then the value ascending. */
  orderBy?: WebStatsOrder | null;
}

/**
 * Where the host comes from that includeHost puts in front of a path breakdown's value
 * (PostHog's _prepend_host): the event's `$host` for Page; the host of the session's entry
 * (exit) URL for InitialPage (ExitPage), as PostHog's `$entry_hostname` (`$end_hostname`).
 * Either dialect joins the two as PostHog's `nullIf(concat(host, path), '')`: a missing
 * part counts as empty text, and nothing at all is no value.
 */
export type WebHostSource = { from: "event"; key: "$host" } | { from: "session"; column: "entry_url" | "exit_url" };

const ENTRY_HOST: WebHostSource = { from: "session", column: "entry_url" };
const WEB_BREAKDOWN_HOSTS: Partial<Record<WebBreakdown, WebHostSource>> = {
  Page: { from: "event", key: "$host" },
  InitialPage: ENTRY_HOST,
  ExitPage: { from: "session", column: "exit_url" },
};

/** The host source of the query's breakdown with includeHost, else null (other breakdowns ignore it). */
export function webHostSource(query: Pick<WebStatsQuery, "breakdown" | "includeHost">): WebHostSource | null {
  return query.includeHost ? (WEB_BREAKDOWN_HOSTS[query.breakdown] ?? null) : null;
}

/** The host of Page's bounce rate, which reads sessions by their entry (PostHog's _bounce_entry_pathname_breakdown): the entry URL's with includeHost. */
export function entryHostSource(query: WebStatsQuery): WebHostSource | null {
  return query.includeHost ? ENTRY_HOST : null;
}

/**
 * A URL's host as ClickHouse's `domain()` (PostHog's `$entry_hostname`) reads it: after the
 * scheme and any user info, up to the port or path. One regular expression, the same in both
 * dialects (PostgreSQL's `substring … from`, ClickHouse's `extract`), so that both stores
 * give the same answer on odd URLs too; no quotes or backslashes, so it can stand in a literal.
 */
export const URL_HOST_PATTERN = "^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#]*@)?([^/?#:]*)";

/**
 * The ORDER BY of a stats statement over its grouped columns (c_visitors, c_views, c_bounced,
 * c_sessions, v0…): the default, `valueOrder` being the values ascending with no value last;
 * an asked order goes first, with no bounce rate last either way, and the default breaks its
 * ties. `bounceRate` is the dialect's c_bounced / c_sessions, null without sessions.
 */
export function webStatsOrderBy(query: WebStatsQuery, valueOrder: string, bounceRate: string): string {
  const defaults = `c_visitors DESC, c_views DESC, ${valueOrder}`;
  if (!query.orderBy) return defaults;
  const { field, direction } = query.orderBy;
  const figure = field === "Visitors" ? "c_visitors" : field === "Views" ? "c_views" : bounceRate;
  return `${figure} ${direction === "ASC" ? "ASC" : "DESC"} NULLS LAST, ${defaults}`;
}

export interface WebStatsRow {
  /** The breakdown's value: text, a number (Timezone), or a tuple as a list (Region, City, Viewport); null for none. */
  value: unknown;
  visitors: [number, number | null];
  views: [number, number | null];
  /** 0–1 (current, previous), with includeBounceRate. */
  bounceRate: [number | null, number | null] | null;
  /** The current visitors' share of all rows' (PostHog's ui_fill_fraction). */
  fillFraction: number;
}

export interface WebStatsAnswer {
  rows: WebStatsRow[];
  hasMore: boolean;
}

/** The store's raw columns of a breakdown value as the answer's value. */
export function webValueOf(breakdown: WebBreakdown, columns: unknown[]): unknown {
  const source: WebBreakdownSource = WEB_BREAKDOWNS[breakdown].source;
  if (source.from === "timezone") return columns[0] === null || columns[0] === undefined ? null : Number(columns[0]);
  if (source.from === "session" || source.keys.length === 1) return columns[0] ?? null;
  const texts = columns.map((column) => (column === undefined || column === "" ? null : column));
  if (source.from === "event" && "numeric" in source && source.numeric) return texts.map((text) => (text === null || Number.isNaN(Number(text)) ? text : Number(text)));
  return texts;
}

/** Whether the read needs each event's session row (anything but event-level counts of one period without bounce). */
export function needsSessions(query: WebStatsQuery): boolean {
  return query.previous !== null || query.includeBounceRate || WEB_BREAKDOWNS[query.breakdown].source.from === "session";
}

/** PostHog's Page with bounce rate counts only sessions that start in the current period, even without a comparison. */
export function countsByStart(query: WebStatsQuery): boolean {
  return query.previous !== null || (query.breakdown === "Page" && query.includeBounceRate);
}

/** PostHog's SESSION_BUFFER_DAYS: a range's events join sessions that started at most this long before it. */
const SESSION_BUFFER_MS = 3 * 86_400_000;

/**
 * The earliest start of a session whose views a breakdown by a session's own field counts
 * (the entry/exit pages, read from the sessions table alone): the range's, when sessions
 * count by their start; else up to PostHog's buffer before it.
 */
export function earliestSessionStart(query: WebStatsQuery): Date {
  const from = query.previous?.from ?? query.current.from;
  return countsByStart(query) ? from : new Date(from.getTime() - SESSION_BUFFER_MS);
}

export type WebSessionColumn = Extract<WebBreakdownSource, { from: "session" }>["column"];

/**
 * The session column a breakdown reads when the sessions table alone answers it, else null:
 * the entry and exit pages without filters (they drop the null row, which alone holds the
 * views without a session).
 */
export function sessionsAloneColumn(query: WebStatsQuery): WebSessionColumn | null {
  const { source, dropNull } = WEB_BREAKDOWNS[query.breakdown];
  return source.from === "session" && dropNull && query.filters.length === 0 ? source.column : null;
}

/** A row of either store's stats statement. */
export interface WebStatsStoreRow {
  [column: `v${number}`]: unknown;
  c_visitors: number | string;
  c_views: number | string;
  p_visitors: number | string;
  p_views: number | string;
  c_bounced: number | string;
  c_sessions: number | string;
  p_bounced: number | string;
  p_sessions: number | string;
  fill: number | string;
}

/** Bounced / sessions of a period, null without sessions. */
const rate = (bounced: number | string, sessions: number | string) => (Number(sessions) === 0 ? null : Number(bounced) / Number(sessions));

/**
 * The answer from the statement's rows (limit + 1 of them); `pathBounce` is Page's bounce
 * by entry path (PATH_BOUNCE_QUERY), keyed by path, when asked for.
 */
export function webStatsAnswerOf(query: WebStatsQuery, rows: WebStatsStoreRow[], pathBounce: Map<string, WebStatsStoreRow> | null): WebStatsAnswer {
  const compare = query.previous !== null;
  const columns = valueColumns(query.breakdown);
  const shown = rows.slice(0, query.limit).map((row): WebStatsRow => {
    const raw = Array.from({ length: columns }, (_, i) => row[`v${i}`] ?? null);
    const bounceRow = pathBounce === null ? row : pathBounce.get(String(raw[0]));
    return {
      value: webValueOf(query.breakdown, raw),
      visitors: [Number(row.c_visitors), compare ? Number(row.p_visitors) : null],
      views: [Number(row.c_views), compare ? Number(row.p_views) : null],
      bounceRate: !query.includeBounceRate
        ? null
        : bounceRow === undefined
          ? [null, null]
          : [rate(bounceRow.c_bounced, bounceRow.c_sessions), compare ? rate(bounceRow.p_bounced, bounceRow.p_sessions) : null],
      fillFraction: Number(row.fill),
    };
  });
  return { rows: shown, hasMore: rows.length > query.limit };
}

/**
 * PostHog's WebTopClicksQuery (top_clicks.py): the `$autocapture` events of the current
 * period with `$event_type` click, by the clicked element's text (`$el_text`; none, or
 * empty, is no row): clicks, visitors (our rule, above), most clicks first, then most
 * visitors, then the text.
 */
export interface WebTopClicksQuery extends WebQueryBase {
  limit: number;
}

export interface WebTopClick {
  text: string;
  clicks: number;
  visitors: number;
}

/** A row of either store's top clicks statement. */
export interface WebTopClicksStoreRow {
  el_text: string;
  clicks: number | string;
  visitors: number | string;
}

export const webTopClicksOf = (rows: WebTopClicksStoreRow[]): WebTopClick[] =>
  rows.map((row) => ({ text: row.el_text, clicks: Number(row.clicks), visitors: Number(row.visitors) }));

/** A row of either store's overview statement. */
export type WebOverviewStoreRow = Record<`${"c" | "p"}_${"visitors" | "views" | "sessions" | "duration" | "bounce"}`, number | string | null>;

const finite = (value: number | string | null) => (value === null || !Number.isFinite(Number(value)) ? null : Number(value));

export function webOverviewAnswerOf(query: WebQueryBase, row: WebOverviewStoreRow | undefined): WebOverviewAnswer {
  const totals = (flag: "c" | "p"): WebOverviewTotals => ({
    visitors: Number(row?.[`${flag}_visitors`] ?? 0),
    views: Number(row?.[`${flag}_views`] ?? 0),
    sessions: Number(row?.[`${flag}_sessions`] ?? 0),
    duration: finite(row?.[`${flag}_duration`] ?? null),
    bounceRate: finite(row?.[`${flag}_bounce`] ?? null),
  });
  return { current: totals("c"), previous: query.previous === null ? null : totals("p") };
}

/** The events a web trend counts by session (PostHog's web trends serve `$pageview` and `$screen` series). */
export const WEB_TREND_EVENTS = VIEW_EVENTS;
export type WebTrendEvent = (typeof WEB_TREND_EVENTS)[number];

/**
 * PostHog's web analytics trends (a TrendsQuery tagged productKey "web_analytics", served
 * from session-start-attributed buckets: web_trends_lazy_precompute.py): the sessions
 * starting in [from, to] with one of `event` in it (matching the filters), per bucket of
 * their start on the zone's wall clock — even when their events run into later buckets, so
 * that a month's buckets add up to the overview's views and sessions.
 */
export interface WebTrendQuery {
  event: WebTrendEvent;
  from: Date;
  to: Date;
  zone: string;
  interval: TrendInterval;
  filters: PropertyNode[];
  now: Date;
}

/** One bucket's figures: visitors, the `event`s in the range, sessions, average duration (s) and bounce rate (0–1; null without a `$pageview`). */
export interface WebTrendRow {
  /** The bucket's start as wall text, as TrendRow's. */
  bucket: string;
  visitors: number;
  views: number;
  sessions: number;
  duration: number | null;
  bounce: number | null;
}

/** A row of either store's web trend statement. */
export type WebTrendStoreRow = { bucket: string } & Record<"visitors" | "views" | "sessions" | "duration" | "bounce", number | string | null>;

export const webTrendRowsOf = (rows: WebTrendStoreRow[]): WebTrendRow[] =>
  rows.map((row) => ({
    bucket: row.bucket,
    visitors: Number(row.visitors ?? 0),
    views: Number(row.views ?? 0),
    sessions: Number(row.sessions ?? 0),
    duration: finite(row.duration),
    bounce: finite(row.bounce),
  }));

/** The sessions of a web trend whose actors are listed: those starting at or after `from` and before `before` (a point's bucket). */
export interface WebTrendStarts {
  from: Date;
  before: Date;
}

/** A row of either store's web trend actors statement: an actor's key (actor-events/query.ts) and its events. */
export interface WebTrendActorRow {
  actor: string;
  n: number | string;
}

/** The web query shape of a trend's range, for the statements' shared FROM. */
export const webTrendBase = (query: WebTrendQuery): WebQueryBase => ({ current: { from: query.from, to: query.to }, previous: null, filters: query.filters, now: query.now });
