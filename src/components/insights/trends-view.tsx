"use client";

import { displayOf, InsightChart, seriesName, type ChartSeries } from "@/components/dashboards/insight-chart";
import { insightActors } from "./actors-query";
import { bucketTitle, intervalOfDays, queryInterval } from "./bucket-dates";
import { numberFormat, PointPicker, ResultEmpty, ResultFrame, ResultMismatch, type ChartPoint, type SelectHandler } from "./chart-parts";
import { seriesResults } from "./series-shapes";

/** Displays drawn over time, where a point is one series on one date. */
const OVER_TIME = new Set(["ActionsLineGraph", "ActionsLineGraphCumulative", "ActionsBar", "ActionsStackedBar", "ActionsUnstackedBar", "ActionsAreaGraph"]);

/**
 * A TrendsQuery result in its display (dashboards/insight-chart.tsx). On charts over time a
 * point — clicked, or chosen with the arrow keys — lists the persons behind it.
 */
export function TrendsView({ query, results, onSelect }: { query: unknown; results: unknown; onSelect?: SelectHandler }) {
  const kind = "trends";
  const series = seriesResults(results) as ChartSeries[] | null;
  if (!series) return <ResultMismatch kind={kind} message="Expected trend series." />;
  // Nothing in either period: a number of 0 against a previous 5 is a change worth showing.
  const empty = series.length === 0 || series.every((item) => (item.aggregated_value ?? item.data.reduce((a, b) => a + b, 0)) === 0);
  if (empty) return <ResultEmpty kind={kind} />;
  const display = displayOf(query);
  const pickable = onSelect && OVER_TIME.has(display) ? onSelect : undefined;
  const labels = series[0]?.labels ?? [];
  const select = (bucket: number, index: number) => {
    const item = series[index]!;
    const action = (item as { action?: { order?: number } | null }).action;
    const previous = item.compare_label === "previous";
    return {
      title: `${seriesName(item)}${previous ? " (previous period)" : ""} on ${item.labels[bucket] ?? labels[bucket] ?? ""}`,
      source: insightActors(query, { day: item.days?.[bucket], series: action?.order ?? index, breakdown: item.breakdown_value, compare: item.compare_label }),
    };
  };
  const days = series[0]?.days;
  const interval = intervalOfDays(days, queryInterval(query));
  const grid: ChartPoint[][] = labels.map((label, bucket) =>
    series.map((item, index) => ({
      description: `${days?.[bucket] ? bucketTitle(days[bucket], interval) : label} · ${seriesName(item)}${item.compare_label === "previous" ? " (previous)" : ""}: ${numberFormat.format(item.data[bucket] ?? 0)}`,
      selection: select(bucket, index),
    })),
  );
  // A click on a line chart names a date, not a line: the first series with anything there.
  const clicked = (bucket: number, index?: number) => {
    const chosen = index ?? Math.max(0, series.findIndex((item) => (item.data[bucket] ?? 0) !== 0));
    pickable?.(select(bucket, chosen));
  };
  return (
    <ResultFrame kind={kind} state="ready">
      <PointPicker grid={grid} label={`Trends over time`} onSelect={pickable}>
        {(active) => <InsightChart query={query} result={series} activeBucket={active} onBucketClick={pickable ? clicked : undefined} />}
      </PointPicker>
    </ResultFrame>
  );
}
