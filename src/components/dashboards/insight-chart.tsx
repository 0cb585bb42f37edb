"use client";

import { itemName, type LegendSource } from "@/components/insights/series-legend";
import { NumberView } from "@/components/insights/number-view";
import { SeriesChart } from "@/components/insights/series-chart";
import { TotalsBars, TotalsPie } from "@/components/insights/totals-charts";
import { TrendsTable } from "@/components/insights/trends-table";
import { WorldMap } from "@/components/insights/world-map";

/** What a chart reads of one result series (the server's TrendsSeriesResult). */
export interface ChartSeries extends LegendSource {
  label: string;
  data: number[];
  labels: string[];
  /** The buckets' dates (InsightActorsQuery's `day`). */
  days?: string[];
  aggregated_value?: number;
  /** A cohort breakdown's is the cohort id (or "all"): the label names the cohort. */
  breakdown_value?: string | number;
  /** BoldNumber: the value per day (Burrow's addition), drawn as the number's sparkline. */
  sparkline?: number[];
}

/** A series' name: its breakdown value in words, else its label (a cohort's label holds its name). */
export function seriesName(series: ChartSeries): string {
  return itemName(series);
}

/** The display a query asks for (`trendsFilter.display`), bare or inside an InsightVizNode. */
export function displayOf(query: unknown): string {
  const node = query as { kind?: string; source?: unknown; trendsFilter?: { display?: string } } | null;
  const source = (node?.kind === "InsightVizNode" ? node.source : node) as { trendsFilter?: { display?: string } } | null;
  return source?.trendsFilter?.display ?? "ActionsLineGraph";
}

/**
 * One trends result as PostHog draws it, by display: lines, areas or bars over time
 * (insights/series-chart.tsx), one big number with its change and sparkline, bars or a pie
 * of totals, a table, or a world map. Each chart has a text alternative (its series and
 * totals) for screen readers.
 */
export function InsightChart({
  query,
  result,
  activeBucket = null,
  onBucketClick,
}: {
  query: unknown;
  result: readonly ChartSeries[];
  /** A bucket chosen from the keyboard, marked on charts over time. */
  activeBucket?: number | null;
  /** A click on a chart over time: the bucket under the pointer (a bar also gives its series). */
  onBucketClick?: (bucket: number, series?: number) => void;
}) {
  const display = displayOf(query);
  switch (display) {
    case "BoldNumber":
      return <NumberView result={result} />;
    case "ActionsTable":
      return <TrendsTable query={query} result={result} />;
    case "ActionsBarValue":
      return <TotalsBars result={result} />;
    case "ActionsPie":
      return <TotalsPie result={result} />;
    case "WorldMap":
      return <WorldMap result={result} />;
    default:
      return <SeriesChart query={query} display={display} result={result} activeBucket={activeBucket} onBucketClick={onBucketClick} />;
  }
}
