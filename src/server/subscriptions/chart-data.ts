/**
 * What a subscription draws of an insight: its query and computed result reduced to a chart
 * the renderer knows (lines, bars, a number, or a table of values). Pure; no database.
 */

export type ChartKind = "line" | "bar" | "number" | "table";

export interface ChartSeries {
  name: string;
  values: number[];
}

export interface Chart {
  title: string;
  kind: ChartKind;
  /** The x axis (lines and bars), or the rows' names (table). */
  labels: string[];
  series: ChartSeries[];
  /** A BoldNumber's value. */
  value?: number;
  /** Shown instead of a chart when the insight cannot be drawn (a kind with no image yet, or an error). */
  note?: string;
}

/** Series drawn at most (the rest would be unreadable in an e-mail). */
export const MAX_SERIES = 8;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The query's kind and display, through an InsightVizNode wrapper. */
function sourceOf(query: unknown): { kind: string; display: string } {
  const node = isObject(query) && query.kind === "InsightVizNode" && isObject(query.source) ? query.source : query;
  if (!isObject(node)) return { kind: "", display: "" };
  const filter = isObject(node.trendsFilter) ? node.trendsFilter : {};
  return { kind: String(node.kind ?? ""), display: String(filter.display ?? "") };
}

const numeric = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/** The chart of an insight's result. */
export function chartOf(title: string, query: unknown, result: unknown): Chart {
  const { kind, display } = sourceOf(query);
  const rows = Array.isArray(result) ? result : [];
  if (kind === "TrendsQuery") {
    const items = rows.filter(isObject);
    const series = items.slice(0, MAX_SERIES);
    if (display === "BoldNumber") {
      const first = series[0];
      return { title, kind: "number", labels: [], series: [], value: numeric(first?.aggregated_value ?? first?.count) };
    }
    const totals = ["ActionsPie", "ActionsBarValue", "ActionsTable", "WorldMap"].includes(display);
    if (totals || series.every((item) => !Array.isArray(item.data) || item.data.length === 0)) {
      return {
        title,
        kind: "bar",
        labels: series.map((item) => String(item.label ?? item.breakdown_value ?? "")),
        series: [{ name: "Total", values: series.map((item) => numeric(item.aggregated_value ?? item.count)) }],
      };
    }
    const labels = Array.isArray(series[0]?.labels) ? (series[0]!.labels as unknown[]).map(String) : [];
    return {
      title,
      kind: display === "ActionsBar" || display === "ActionsUnstackedBar" || display === "ActionsStackedBar" ? "bar" : "line",
      labels,
      series: series.map((item) => ({
        name: String(item.label ?? "") + (item.breakdown_value !== undefined ? ` (${String(item.breakdown_value)})` : ""),
        values: (item.data as unknown[]).map(numeric),
      })),
    };
  }
  if (kind === "FunnelsQuery") {
    // Steps, or one list of steps per breakdown value: draw the first.
    const steps = (Array.isArray(rows[0]) ? (rows[0] as unknown[]) : rows).filter(isObject);
    return {
      title,
      kind: "bar",
      labels: steps.map((step, index) => `${index + 1}. ${String(step.custom_name ?? step.name ?? "")}`),
      series: [{ name: "Persons", values: steps.map((step) => numeric(step.count)) }],
    };
  }
  if (kind === "StickinessQuery" || kind === "LifecycleQuery") {
    const series = rows.filter(isObject).slice(0, MAX_SERIES);
    const labels = Array.isArray(series[0]?.labels) ? (series[0]!.labels as unknown[]).map(String) : [];
    return {
      title,
      kind: kind === "LifecycleQuery" ? "bar" : "line",
      labels,
      series: series.map((item) => ({ name: String(item.label ?? item.status ?? ""), values: Array.isArray(item.data) ? (item.data as unknown[]).map(numeric) : [] })),
    };
  }
  return { title, kind: "table", labels: [], series: [], note: "This kind of insight has no image yet: open it in Burrow." };
}
