/**
 * What a trends chart, its legend, its tooltip and its table agree on: each result item's
 * name, colour, total and period. Colours follow the series (and breakdown value), so an
 * item keeps its colour in every part of the chart, and the previous period of a comparison
 * takes its current counterpart's colour (drawn dashed).
 */
import { colorAt } from "./palette";
import { breakdownName } from "./series-names";

/** What the legend reads of one trends result item. */
export interface LegendSource {
  label: string;
  data: number[];
  count?: number;
  aggregated_value?: number;
  breakdown_value?: unknown;
  compare_label?: "current" | "previous";
  action?: { order?: number; custom_name?: string | null } | null;
}

export interface LegendEntry {
  /** The item's index in the results. */
  index: number;
  /** The series (and breakdown value) in words; " (previous)" marks the previous period. */
  name: string;
  color: string;
  total: number;
  previous: boolean;
}

/**
 * An item's name: a breakdown value in words (as PostHog names them), the series' custom
 * name, else its label; with several series a breakdown value follows its series' label.
 */
export function itemName(item: LegendSource): string {
  if (item.breakdown_value !== undefined && item.breakdown_value !== null) {
    const value = breakdownName(item.breakdown_value);
    // The server labels "<event> - <value>" with several series, the value alone with one; a cohort's label names it.
    if (typeof item.breakdown_value === "number" || item.breakdown_value === "all") return item.label;
    return item.label.endsWith(` - ${String(item.breakdown_value)}`) ? `${item.label.slice(0, -String(item.breakdown_value).length - 3)} - ${value}` : value;
  }
  return item.action?.custom_name || item.label;
}

/**
 * An item's total for the legend: the aggregated value of a total-value display, the last
 * point of a cumulative line (which already sums), else the sum of its points.
 */
export function itemTotal(item: LegendSource, { cumulative = false }: { cumulative?: boolean } = {}): number {
  if (typeof item.aggregated_value === "number") return item.aggregated_value;
  if (cumulative) return item.data[item.data.length - 1] ?? 0;
  return item.data.reduce((sum, value) => sum + value, 0);
}

/** The key that pairs a previous-period item with its current one: series and breakdown value. */
const pairKey = (item: LegendSource) => `${item.action?.order ?? item.label}\u0000${String(item.breakdown_value ?? "")}`;

/**
 * One entry per item, in the results' order, with a colour per series and breakdown value:
 * the palette in order over the current items, each previous item with its counterpart's.
 */
export function legendEntries(items: readonly LegendSource[], options: { cumulative?: boolean } = {}): LegendEntry[] {
  const colorOf = new Map<string, string>();
  for (const item of items) {
    if (item.compare_label === "previous") continue;
    const key = pairKey(item);
    if (!colorOf.has(key)) colorOf.set(key, colorAt(colorOf.size));
  }
  let spare = colorOf.size;
  return items.map((item, index) => {
    const previous = item.compare_label === "previous";
    const key = pairKey(item);
    let color = colorOf.get(key);
    if (!color) colorOf.set(key, (color = colorAt(spare++)));
    return { index, name: `${itemName(item)}${previous ? " (previous)" : ""}`, color, total: itemTotal(item, options), previous };
  });
}
