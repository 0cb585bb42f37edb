"use client";

import { Bar, BarChart, CartesianGrid, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { insightActors } from "./actors-query";
import { ChartLegend } from "./chart-legend";
import { TooltipBox, tooltipFrame } from "./chart-tooltip";
import { axisTick, colorAt, compactFormat, numberFormat, PointPicker, ResultEmpty, ResultFrame, ResultMismatch, type ChartPoint, type SelectHandler } from "./chart-parts";
import { seriesResults, stickinessBuckets } from "./series-shapes";
import { breakdownName } from "./series-names";

/**
 * A StickinessQuery result: persons by the number of intervals (days, weeks, …) they were
 * active in, one bar per series. A bar lists the persons active exactly that often.
 */
export function StickinessView({ query, results, onSelect }: { query: unknown; results: unknown; onSelect?: SelectHandler }) {
  const kind = "stickiness";
  const series = seriesResults(results);
  if (!series) return <ResultMismatch kind={kind} message="Expected persons by number of active intervals." />;
  const buckets = stickinessBuckets(series);
  if (series.every((item) => item.data.every((value) => value === 0))) return <ResultEmpty kind={kind} />;
  const names = series.map((item) => (item.breakdown_value !== undefined ? breakdownName(item.breakdown_value) : item.label));
  const select = (bucket: number, index: number) => {
    const row = buckets[bucket]!;
    return {
      title: `${names[index]}: active ${row.label}`,
      source: insightActors(query, { day: row.intervals, series: series[index]!.action?.order ?? index, breakdown: series[index]!.breakdown_value }),
    };
  };
  const grid: ChartPoint[][] = buckets.map((row, bucket) =>
    series.map((item, index) => ({ description: `${row.label} · ${names[index]}: ${numberFormat.format(item.data[bucket] ?? 0)}`, selection: select(bucket, index) })),
  );
  const legend = series.map((item, index) => ({ index, name: names[index]!, color: colorAt(index), total: item.data.reduce((sum, value) => sum + value, 0), previous: false }));
  const summary = series.map((item, index) => `${names[index]}: ${item.data.map((value, bucket) => `${buckets[bucket]?.label} ${value}`).join(", ")}`).join("; ");

  return (
    <ResultFrame kind={kind} state="ready">
      <PointPicker grid={grid} label={`Stickiness. ${summary}`} onSelect={onSelect}>
        {(active) => (
          <figure className="flex h-full min-h-0 flex-col" aria-label={summary} data-testid="insight-chart">
            <div className="min-h-0 flex-1">
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={buckets} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                  <CartesianGrid vertical={false} stroke="#e5e7eb" />
                  <XAxis dataKey="label" tick={axisTick} minTickGap={12} tickMargin={6} tickLine={false} />
                  <YAxis tick={axisTick} tickFormatter={(value: number) => compactFormat.format(value)} allowDecimals={false} width={40} axisLine={false} tickLine={false} />
                  <Tooltip
                    {...tooltipFrame}
                    cursor={{ fill: "#f3f4f6" }}
                    content={({ active, payload, label }) => {
                      const row = payload?.[0]?.payload as (typeof buckets)[number] | undefined;
                      if (!active || !row) return null;
                      const rows = legend.map((entry) => ({ key: entry.index, name: entry.name, color: entry.color, value: row[`s${entry.index}`] ?? 0 }));
                      return <TooltipBox title={`Active ${String(label)}`} rows={rows} />;
                    }}
                  />
                  {active !== null && <ReferenceLine x={buckets[active]?.label} stroke="#4f46e5" strokeDasharray="3 3" />}
                  {series.map((_, index) => (
                    <Bar
                      key={index}
                      dataKey={`s${index}`}
                      name={names[index]}
                      fill={colorAt(index)}
                      maxBarSize={48}
                      radius={[3, 3, 0, 0]}
                      isAnimationActive={false}
                      cursor={onSelect ? "pointer" : undefined}
                      onClick={(_, bucket) => onSelect?.(select(bucket, index))}
                    />
                  ))}
                </BarChart>
              </ResponsiveContainer>
            </div>
            <ChartLegend entries={legend} />
          </figure>
        )}
      </PointPicker>
    </ResultFrame>
  );
}
