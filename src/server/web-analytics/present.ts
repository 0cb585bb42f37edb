/**
 * PostHog's web analytics answers from the store's: the overview's items (web_overview.py
 * `to_data`) and the stats table's columns and rows (stats_table.py).
 */
import type { WebGoalOverviewAnswer, WebGoalStatsAnswer, WebOverviewAnswer, WebStatsAnswer } from "@/server/db/events";
import { WEB_STATS_COLUMNS, type WebOverviewItem, type WebOverviewKey, type WebStatsRow } from "./contract";

/** PostHog's change: round(100 · (value − previous) / previous), null when either is missing or previous is 0. */
export function changeFromPrevious(value: number | null, previous: number | null): number | null {
  if (value === null || previous === null || previous === 0) return null;
  return Math.round((100 * (value - previous)) / previous);
}

function item(key: WebOverviewKey, kind: WebOverviewItem["kind"], value: number | null, previous: number | null, isIncreaseBad = false): WebOverviewItem {
  // Percentages travel as 0–100 (to_data multiplies them).
  const scale = (n: number | null) => (n === null || kind !== "percentage" ? n : n * 100);
  const [v, p] = [scale(value), scale(previous)];
  return { key, kind, isIncreaseBad, value: v, previous: p, changeFromPreviousPct: changeFromPrevious(v, p) };
}

export function webOverviewItems(answer: WebOverviewAnswer): WebOverviewItem[] {
  const { current, previous } = answer;
  return [
    item("visitors", "unit", current.visitors, previous?.visitors ?? null),
    item("views", "unit", current.views, previous?.views ?? null),
    item("sessions", "unit", current.sessions, previous?.sessions ?? null),
    item("session duration", "duration_s", current.duration, previous?.duration ?? null),
    item("bounce rate", "percentage", current.bounceRate, previous?.bounceRate ?? null, true),
  ];
}

export function webStatsColumns(includeBounceRate: boolean): string[] {
  const { breakdownValue, visitors, views, bounceRate, fillFraction, crossSell } = WEB_STATS_COLUMNS;
  return [breakdownValue, visitors, views, ...(includeBounceRate ? [bounceRate] : []), fillFraction, crossSell];
}

export function webStatsRows(answer: WebStatsAnswer): WebStatsRow[] {
  return answer.rows.map((row) => [row.value, row.visitors, row.views, ...(row.bounceRate === null ? [] : [row.bounceRate]), row.fillFraction, ""]);
}

/** PostHog's overview with a conversion goal: visitors, total and unique conversions, conversion rate. */
export function webGoalOverviewItems(answer: WebGoalOverviewAnswer): WebOverviewItem[] {
  const { current, previous } = answer;
  return [
    item("visitors", "unit", current.visitors, previous?.visitors ?? null),
    item("total conversions", "unit", current.conversions, previous?.conversions ?? null),
    item("unique conversions", "unit", current.converters, previous?.converters ?? null),
    item("conversion rate", "percentage", current.rate, previous?.rate ?? null),
  ];
}

export function webGoalStatsColumns(): string[] {
  const { breakdownValue, visitors, totalConversions, uniqueConversions, conversionRate, fillFraction, crossSell } = WEB_STATS_COLUMNS;
  return [breakdownValue, visitors, totalConversions, uniqueConversions, conversionRate, fillFraction, crossSell];
}

/** One row with a goal: `[value, [visitors, previous], [total conversions, previous], [unique conversions, previous], [rate 0–1, previous], ui_fill_fraction, ""]`. */
export function webGoalStatsRows(answer: WebGoalStatsAnswer): WebStatsRow[] {
  return answer.rows.map((row) => [row.value, row.visitors, row.conversions, row.converters, row.rate, row.fillFraction, ""]);
}
