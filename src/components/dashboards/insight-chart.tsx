"use client";

import { Area, AreaChart, Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Pie, PieChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { clickedBucket } from "@/components/insights/chart-parts";

/** What a chart reads of one result series (the server's TrendsSeriesResult). */
export interface ChartSeries {
  label: string;
  data: number[];
  labels: string[];
  /** The buckets' dates (InsightActorsQuery's `day`). */
  days?: string[];
  aggregated_value?: number;
  /** A cohort breakdown's is the cohort id (or "all"): the label names the cohort. */
  breakdown_value?: string | number;
}

/** PostHog's breakdown markers (src/server/insights/trends.ts), shown in words. */
const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$";
const BREAKDOWN_NULL = "$$_posthog_breakdown_null_$$";

/** Series colors: distinct at a glance and readable on white. */
const PALETTE = ["#4f46e5", "#0891b2", "#d97706", "#db2777", "#16a34a", "#7c3aed", "#dc2626", "#0d9488", "#ca8a04", "#2563eb", "#6b7280"];
const colorAt = (index: number) => PALETTE[index % PALETTE.length]!;

const numberFormat = new Intl.NumberFormat("en-US");
const compactFormat = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/** A series' name: its breakdown value in words, else its label (a cohort's label holds its name). */
export function seriesName(series: ChartSeries): string {
  if (series.breakdown_value === BREAKDOWN_OTHER) return "Other";
  if (series.breakdown_value === BREAKDOWN_NULL) return "(none)";
  return typeof series.breakdown_value === "string" ? series.breakdown_value : series.label;
}

/** The display a query asks for (`trendsFilter.display`), bare or inside an InsightVizNode. */
export function displayOf(query: unknown): string {
  const node = query as { kind?: string; source?: unknown; trendsFilter?: { display?: string } } | null;
  const source = (node?.kind === "InsightVizNode" ? node.source : node) as { trendsFilter?: { display?: string } } | null;
  return source?.trendsFilter?.display ?? "ActionsLineGraph";
}

const totalOf = (series: ChartSeries) => series.aggregated_value ?? series.data.reduce((sum, value) => sum + value, 0);

/**
 * One insight's result as PostHog draws it: a line, bar or area chart over time, one big
 * number, bars or a pie of totals, or a table. Each chart has a text alternative (its
 * series and totals) for screen readers.
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
  const summary = result.map((series) => `${seriesName(series)}: ${numberFormat.format(totalOf(series))}`).join("; ");

  if (display === "BoldNumber") {
    const value = result[0] ? totalOf(result[0]) : 0;
    return (
      <div className="flex h-full items-center justify-center" data-testid="insight-chart" data-display={display}>
        <p className="text-5xl font-semibold tracking-tight text-gray-900 tabular-nums" data-testid="bold-number">
          {numberFormat.format(value)}
        </p>
      </div>
    );
  }

  if (display === "ActionsTable") {
    return (
      <div className="h-full overflow-auto" data-testid="insight-chart" data-display={display}>
        <table className="w-full text-left text-sm">
          <thead className="sticky top-0 bg-white text-xs text-gray-500 uppercase">
            <tr>
              <th className="py-1.5 pr-3 font-medium">Value</th>
              <th className="py-1.5 text-right font-medium">Count</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {result.map((series, index) => (
              <tr key={index}>
                <td className="max-w-0 truncate py-1.5 pr-3 text-gray-800" title={seriesName(series)}>
                  {seriesName(series)}
                </td>
                <td className="py-1.5 text-right text-gray-900 tabular-nums">{numberFormat.format(totalOf(series))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  const totals = result.map((series, index) => ({ name: seriesName(series), value: totalOf(series), color: colorAt(index) }));

  if (display === "ActionsBarValue") {
    return (
      <figure className="h-full" data-testid="insight-chart" data-display={display} aria-label={summary}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={totals} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 4 }}>
            <CartesianGrid horizontal={false} stroke="#e5e7eb" />
            <XAxis type="number" tickFormatter={(value: number) => compactFormat.format(value)} tick={{ fontSize: 12, fill: "#6b7280" }} allowDecimals={false} />
            <YAxis type="category" dataKey="name" width={110} tick={{ fontSize: 12, fill: "#374151" }} interval={0} />
            <Tooltip formatter={(value) => numberFormat.format(Number(value))} />
            <Bar dataKey="value" name="Count" isAnimationActive={false}>
              {totals.map((entry) => (
                <Cell key={entry.name} fill={entry.color} />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </figure>
    );
  }

  if (display === "ActionsPie") {
    return (
      <figure className="h-full" data-testid="insight-chart" data-display={display} aria-label={summary}>
        <ResponsiveContainer width="100%" height="100%">
          <PieChart>
            <Pie data={totals} dataKey="value" nameKey="name" innerRadius="45%" outerRadius="80%" isAnimationActive={false}>
              {totals.map((entry) => (
                <Cell key={entry.name} fill={entry.color} />
              ))}
            </Pie>
            <Tooltip formatter={(value) => numberFormat.format(Number(value))} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
          </PieChart>
        </ResponsiveContainer>
      </figure>
    );
  }

  // Over time: one row per bucket, one key per series.
  const labels = result[0]?.labels ?? [];
  const rows = labels.map((label, bucket) => {
    const row: Record<string, string | number> = { label };
    result.forEach((series, index) => (row[`s${index}`] = series.data[bucket] ?? 0));
    return row;
  });
  const axes = (
    <>
      <CartesianGrid vertical={false} stroke="#e5e7eb" />
      <XAxis dataKey="label" tick={{ fontSize: 12, fill: "#6b7280" }} minTickGap={24} tickMargin={6} />
      <YAxis tick={{ fontSize: 12, fill: "#6b7280" }} tickFormatter={(value: number) => compactFormat.format(value)} allowDecimals={false} width={40} />
      <Tooltip formatter={(value) => numberFormat.format(Number(value))} />
      {result.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
      {activeBucket !== null && labels[activeBucket] !== undefined && <ReferenceLine x={labels[activeBucket]} stroke="#4f46e5" strokeDasharray="3 3" />}
    </>
  );
  const chartClick = onBucketClick
    ? (state: Parameters<typeof clickedBucket>[0]) => {
        const bucket = clickedBucket(state);
        if (bucket !== null) onBucketClick(bucket);
      }
    : undefined;
  const margin = { top: 8, right: 8, bottom: 0, left: 0 };
  return (
    <figure className="h-full" data-testid="insight-chart" data-display={display} aria-label={summary}>
      <ResponsiveContainer width="100%" height="100%">
        {display === "ActionsBar" ? (
          <BarChart data={rows} margin={margin}>
            {axes}
            {result.map((series, index) => (
              <Bar
                key={index}
                dataKey={`s${index}`}
                name={seriesName(series)}
                stackId="series"
                fill={colorAt(index)}
                isAnimationActive={false}
                cursor={onBucketClick ? "pointer" : undefined}
                onClick={onBucketClick ? (_, bucket) => onBucketClick(bucket, index) : undefined}
              />
            ))}
          </BarChart>
        ) : display === "ActionsAreaGraph" ? (
          <AreaChart data={rows} margin={margin} onClick={chartClick}>
            {axes}
            {result.map((series, index) => (
              <Area key={index} dataKey={`s${index}`} name={seriesName(series)} stroke={colorAt(index)} fill={colorAt(index)} fillOpacity={0.15} isAnimationActive={false} />
            ))}
          </AreaChart>
        ) : (
          <LineChart data={rows} margin={margin} onClick={chartClick}>
            {axes}
            {result.map((series, index) => (
              <Line key={index} dataKey={`s${index}`} name={seriesName(series)} stroke={colorAt(index)} strokeWidth={2} dot={false} isAnimationActive={false} />
            ))}
          </LineChart>
        )}
      </ResponsiveContainer>
    </figure>
  );
}
