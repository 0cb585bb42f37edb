"use client";

import { useState, type ReactNode } from "react";
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { bucketTick, bucketTitle, intervalOfDays, queryInterval, spansYears, type BucketInterval } from "./bucket-dates";
import { ChartLegend } from "./chart-legend";
import { TooltipBox, tooltipFrame } from "./chart-tooltip";
import { axisTick, clickedBucket, compactFormat, numberFormat } from "./chart-parts";
import { legendEntries, type LegendEntry, type LegendSource } from "./series-legend";
import { pointShown } from "./series-points";

/** One result item charted over time (the server's TrendsSeriesResult). */
export interface TimeSeriesItem extends LegendSource {
  labels: string[];
  days?: string[];
}

type Row = { x: string; label: string } & Record<`s${number}`, number>;

/**
 * Trends over time as PostHog draws them: lines with their points, areas filled (stacked),
 * bars stacked (ActionsBar, ActionsStackedBar) or side by side (ActionsUnstackedBar); a
 * previous period dashed in its series' colour. Ticks are short dates for the interval; one
 * tooltip lists every series at the hovered bucket; the legend gives each series' total and
 * hides or shows it.
 */
export function SeriesChart({
  query,
  display,
  result,
  activeBucket,
  onBucketClick,
}: {
  query: unknown;
  display: string;
  result: readonly TimeSeriesItem[];
  activeBucket: number | null;
  onBucketClick?: (bucket: number, series?: number) => void;
}) {
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const cumulative = display === "ActionsLineGraphCumulative";
  const entries = legendEntries(result, { cumulative });
  const reference = result.find((item) => item.compare_label !== "previous") ?? result[0];
  const labels = reference?.labels ?? [];
  const days = reference?.days ?? [];
  const interval = intervalOfDays(days, queryInterval(query));
  const withYear = spansYears(days);
  const rows: Row[] = labels.map((label, bucket) => {
    const row = { x: days[bucket] ?? label, label } as Row;
    result.forEach((item, index) => (row[`s${index}`] = item.data[bucket] ?? 0));
    return row;
  });
  const shown = entries.filter((entry) => !hidden.has(entry.index));
  const largest = Math.max(1, ...shown.flatMap((entry) => result[entry.index]!.data));
  const toggle = (index: number) =>
    setHidden((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });
  const summary = entries.map((entry) => `${entry.name}: ${numberFormat.format(entry.total)}`).join("; ");

  const chartClick = onBucketClick
    ? (state: Parameters<typeof clickedBucket>[0]) => {
        const bucket = clickedBucket(state);
        if (bucket !== null) onBucketClick(bucket);
      }
    : undefined;
  const common = {
    data: rows,
    margin: { top: 8, right: 12, bottom: 0, left: 0 },
    accessibilityLayer: false,
  };
  const frame: ReactNode[] = [
    <CartesianGrid key="grid" vertical={false} stroke="#e5e7eb" />,
    <XAxis
      key="x"
      dataKey="x"
      tick={axisTick}
      tickFormatter={(value: string) => bucketTick(value, interval, { withYear })}
      minTickGap={20}
      tickMargin={6}
      interval="preserveStartEnd"
      axisLine={{ stroke: "#d1d5db" }}
      tickLine={false}
    />,
    <YAxis
      key="y"
      tick={axisTick}
      tickFormatter={(value: number) => compactFormat.format(value)}
      allowDecimals={false}
      width={Math.max(28, 10 + 7 * compactFormat.format(largest).length)}
      axisLine={false}
      tickLine={false}
    />,
    <Tooltip
      key="tooltip"
      cursor={display.includes("Bar") ? { fill: "#f3f4f6" } : { stroke: "#9ca3af", strokeDasharray: "3 3" }}
      {...tooltipFrame}
      content={({ active, payload }) => <SeriesTooltip active={active} row={(payload?.[0]?.payload as Row | undefined) ?? null} entries={shown} interval={interval} />}
    />,
    activeBucket !== null && rows[activeBucket] ? <ReferenceLine key="active" x={rows[activeBucket].x} stroke="#4f46e5" strokeDasharray="3 3" /> : null,
  ];

  let chart: ReactNode;
  if (display === "ActionsBar" || display === "ActionsStackedBar" || display === "ActionsUnstackedBar") {
    const stacked = display !== "ActionsUnstackedBar";
    chart = (
      <BarChart {...common} barCategoryGap={rows.length > 20 ? 1 : "20%"}>
        {frame}
        {entries.map((entry) => (
          <Bar
            key={entry.index}
            dataKey={`s${entry.index}`}
            name={entry.name}
            hide={hidden.has(entry.index)}
            stackId={stacked ? (entry.previous ? "previous" : "current") : undefined}
            fill={entry.color}
            fillOpacity={entry.previous ? 0.45 : 1}
            maxBarSize={48}
            isAnimationActive={false}
            cursor={onBucketClick ? "pointer" : undefined}
            onClick={onBucketClick ? (_, bucket) => onBucketClick(bucket, entry.index) : undefined}
          />
        ))}
      </BarChart>
    );
  } else if (display === "ActionsAreaGraph") {
    chart = (
      <AreaChart {...common} onClick={chartClick}>
        <defs>
          {entries.map((entry) => (
            <linearGradient key={entry.index} id={`area-fill-${entry.index}-${entry.color.slice(1)}`} x1="0" y1="0" x2="0" y2="1">
              <stop offset="0%" stopColor={entry.color} stopOpacity={entry.previous ? 0.12 : 0.4} />
              <stop offset="100%" stopColor={entry.color} stopOpacity={0.04} />
            </linearGradient>
          ))}
        </defs>
        {frame}
        {entries.map((entry) => (
          <Area
            key={entry.index}
            type="linear"
            dataKey={`s${entry.index}`}
            name={entry.name}
            hide={hidden.has(entry.index)}
            stackId={entry.previous ? "previous" : "current"}
            stroke={entry.color}
            strokeWidth={2}
            strokeDasharray={entry.previous ? "5 4" : undefined}
            fill={`url(#area-fill-${entry.index}-${entry.color.slice(1)})`}
            fillOpacity={1}
            dot={pointDot(result[entry.index]!.data, entry)}
            activeDot={{ r: 5, stroke: "#fff", strokeWidth: 2 }}
            isAnimationActive={false}
          />
        ))}
      </AreaChart>
    );
  } else {
    chart = (
      <LineChart {...common} onClick={chartClick}>
        {frame}
        {entries.map((entry) => (
          <Line
            key={entry.index}
            type="linear"
            dataKey={`s${entry.index}`}
            name={entry.name}
            hide={hidden.has(entry.index)}
            stroke={entry.color}
            strokeWidth={2}
            strokeDasharray={entry.previous ? "5 4" : undefined}
            strokeOpacity={entry.previous ? 0.75 : 1}
            dot={pointDot(result[entry.index]!.data, entry)}
            activeDot={{ r: 5, stroke: "#fff", strokeWidth: 2 }}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    );
  }

  return (
    <figure className="flex h-full min-h-0 flex-col" data-testid="insight-chart" data-display={display} aria-label={summary}>
      <div className="min-h-0 flex-1">
        <ResponsiveContainer width="100%" height="100%" minHeight={80}>
          {chart}
        </ResponsiveContainer>
      </div>
      <ChartLegend entries={entries} hidden={hidden} onToggle={toggle} />
    </figure>
  );
}

/** A line's dots: see series-points.ts for which points show one. */
function pointDot(data: readonly number[], entry: LegendEntry) {
  function PointDot(props: { cx?: number; cy?: number; index?: number }) {
    const { cx, cy, index = 0 } = props;
    if (cx === undefined || cy === undefined || !pointShown(data, index)) return <g key={index} />;
    return <circle key={index} cx={cx} cy={cy} r={data.length > 20 ? 2.5 : 3.5} fill={entry.previous ? "#fff" : entry.color} stroke={entry.color} strokeWidth={entry.previous ? 1.5 : 0} />;
  }
  return PointDot;
}

/** The hovered bucket: its date, then each shown series' value there, largest first. */
function SeriesTooltip({ active, row, entries, interval }: { active?: boolean; row: Row | null; entries: readonly LegendEntry[]; interval: BucketInterval }) {
  if (!active || !row) return null;
  const rows = entries
    .map((entry) => ({ key: entry.index, name: entry.name, color: entry.color, dashed: entry.previous, value: row[`s${entry.index}`] ?? 0 }))
    .sort((a, b) => b.value - a.value);
  return <TooltipBox title={bucketTitle(row.x, interval)} rows={rows} />;
}
