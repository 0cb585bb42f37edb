/**
 * Web analytics with a conversion goal (PostHog's `conversionGoal` on WebOverviewQuery and
 * WebStatsTableQuery: web_overview.py and stats_table.py's conversion columns). The goal is
 * a filter tree on the event (an event name, an action's steps, or a `$pageview` of a path);
 * both stores answer the same, reading:
 *
 * - the view events (`$pageview`, `$screen`) and the goal's events of the range (never the
 *   test event), matching the filters, each in the period its timestamp falls in;
 * - per row (the breakdown's value of each event, as the stats table reads it) and period:
 *   visitors (distinct actors, as query.ts's), total conversions (goal events), unique
 *   conversions (distinct actors with a goal event), and the conversion rate, unique
 *   conversions / visitors (null without visitors);
 * - rows ordered as PostHog's: the asked figure first, then unique conversions, total
 *   conversions, visitors (all descending) and the value; the bar fills by the share of
 *   unique conversions.
 */
import type { PropertyGroup } from "@/server/properties/contract";
import { valueColumns, webValueOf, type WebBreakdown, type WebQueryBase } from "./query";

export interface WebGoalQuery extends WebQueryBase {
  /** The events that convert, as a filter tree on the event. */
  goal: PropertyGroup;
}

export const WEB_GOAL_ORDER_FIELDS = ["Visitors", "TotalConversions", "UniqueConversions", "ConversionRate"] as const;
export type WebGoalOrderField = (typeof WEB_GOAL_ORDER_FIELDS)[number];

export interface WebGoalStatsQuery extends WebGoalQuery {
  breakdown: WebBreakdown;
  includeHost?: boolean;
  limit: number;
  offset: number;
  orderBy?: { field: WebGoalOrderField; direction: "ASC" | "DESC" } | null;
}

export interface WebGoalTotals {
  visitors: number;
  conversions: number;
  converters: number;
  /** converters / visitors, 0–1; null without visitors. */
  rate: number | null;
}

export interface WebGoalOverviewAnswer {
  current: WebGoalTotals;
  previous: WebGoalTotals | null;
}

export interface WebGoalRow {
  value: unknown;
  /** (current, previous); previous null without a comparison. */
  visitors: [number, number | null];
  conversions: [number, number | null];
  converters: [number, number | null];
  rate: [number | null, number | null];
  /** The row's share of all rows' unique conversions (0 when none converted). */
  fillFraction: number;
}

export interface WebGoalStatsAnswer {
  rows: WebGoalRow[];
  hasMore: boolean;
}

type Count = number | string | null;

/** A row of either store's goal overview statement. */
export type WebGoalOverviewStoreRow = Record<`${"c" | "p"}_${"visitors" | "conversions" | "converters"}`, Count>;

/** A row of either store's goal stats statement. */
export interface WebGoalStatsStoreRow extends WebGoalOverviewStoreRow {
  [column: `v${number}`]: unknown;
  fill: Count;
}

const rateOf = (converters: number, visitors: number) => (visitors === 0 ? null : converters / visitors);

function totals(row: WebGoalOverviewStoreRow | undefined, flag: "c" | "p"): WebGoalTotals {
  const visitors = Number(row?.[`${flag}_visitors`] ?? 0);
  const converters = Number(row?.[`${flag}_converters`] ?? 0);
  return { visitors, conversions: Number(row?.[`${flag}_conversions`] ?? 0), converters, rate: rateOf(converters, visitors) };
}

export function webGoalOverviewAnswerOf(query: WebQueryBase, row: WebGoalOverviewStoreRow | undefined): WebGoalOverviewAnswer {
  return { current: totals(row, "c"), previous: query.previous === null ? null : totals(row, "p") };
}

/** The answer from the statement's rows (limit + 1 of them). */
export function webGoalStatsAnswerOf(query: WebGoalStatsQuery, rows: WebGoalStatsStoreRow[]): WebGoalStatsAnswer {
  const compare = query.previous !== null;
  const columns = valueColumns(query.breakdown);
  const shown = rows.slice(0, query.limit).map((row): WebGoalRow => {
    const [current, previous] = [totals(row, "c"), totals(row, "p")];
    const pair = <T>(c: T, p: T): [T, T | null] => [c, compare ? p : null];
    return {
      value: webValueOf(query.breakdown, Array.from({ length: columns }, (_, i) => row[`v${i}`] ?? null)),
      visitors: pair(current.visitors, previous.visitors),
      conversions: pair(current.conversions, previous.conversions),
      converters: pair(current.converters, previous.converters),
      rate: [current.rate, compare ? previous.rate : null],
      fillFraction: Number(row.fill ?? 0),
    };
  });
  return { rows: shown, hasMore: rows.length > query.limit };
}

/**
 * The ORDER BY of a goal stats statement over its grouped columns (c_visitors,
 * c_conversions, c_converters, v0…), `rate` being the dialect's converters / visitors and
 * `valueOrder` the values ascending with no value last.
 */
export function webGoalOrderBy(query: WebGoalStatsQuery, valueOrder: string, rate: string): string {
  const defaults = `c_converters DESC, c_conversions DESC, c_visitors DESC, ${valueOrder}`;
  if (!query.orderBy) return defaults;
  const figures: Record<WebGoalOrderField, string> = { Visitors: "c_visitors", TotalConversions: "c_conversions", UniqueConversions: "c_converters", ConversionRate: rate };
  return `${figures[query.orderBy.field]} ${query.orderBy.direction === "ASC" ? "ASC" : "DESC"} NULLS LAST, ${defaults}`;
}
