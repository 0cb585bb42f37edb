"use client";

import { Bar, BarChart, CartesianGrid, Cell, LabelList, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { LegendSwatch } from "./chart-legend";
import { axisTick, compactFormat, numberFormat } from "./chart-parts";
import { legendEntries, type LegendEntry, type LegendSource } from "./series-legend";

/**
 * The total-value displays drawn as shapes: a pie (ActionsPie) and bars of totals
 * (ActionsBarValue). Both name each slice or bar with its value and share.
 */

const share = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });

/** Current-period entries with a positive total (a pie cannot draw a negative slice). */
function slices(result: readonly LegendSource[]): { entries: LegendEntry[]; sum: number } {
  const entries = legendEntries(result).filter((entry) => !entry.previous && entry.total > 0);
  return { entries, sum: entries.reduce((total, entry) => total + entry.total, 0) };
}

/** A donut of each series' (or breakdown value's) total, the sum in its middle, and a legend of values and shares. */
export function TotalsPie({ result }: { result: readonly LegendSource[] }) {
  const { entries, sum } = slices(result);
  const data = entries.map((entry) => ({ name: entry.name, value: entry.total, color: entry.color }));
  const summary = entries.map((entry) => `${entry.name}: ${numberFormat.format(entry.total)} (${share.format(entry.total / sum)})`).join("; ");
  return (
    <figure className="@container h-full min-h-0" data-testid="insight-chart" data-display="ActionsPie" aria-label={summary}>
      <div className="flex h-full min-h-0 flex-col gap-2 @md:flex-row @md:items-center">
        <div className="relative min-h-28 flex-1 @md:h-full">
          <ResponsiveContainer width="100%" height="100%">
            <PieChart accessibilityLayer={false}>
              <Pie data={data} dataKey="value" nameKey="name" innerRadius="58%" outerRadius="92%" paddingAngle={data.length > 1 ? 1 : 0} stroke="#fff" isAnimationActive={false}>
                {data.map((slice) => (
                  <Cell key={slice.name} fill={slice.color} />
                ))}
              </Pie>
              <Tooltip
                wrapperStyle={{ zIndex: 20, outline: "none" }}
                isAnimationActive={false}
                content={({ active, payload }) => {
                  const slice = payload?.[0]?.payload as { name: string; value: number; color: string } | undefined;
                  if (!active || !slice) return null;
                  return (
                    <div className="flex items-center gap-1.5 rounded-md border border-gray-200 bg-white px-2.5 py-1.5 text-xs shadow-lg" data-testid="chart-tooltip">
                      <LegendSwatch color={slice.color} />
                      <span className="text-gray-700">{slice.name}</span>
                      <span className="font-semibold text-gray-900 tabular-nums">{numberFormat.format(slice.value)}</span>
                      <span className="text-gray-500 tabular-nums">{share.format(slice.value / sum)}</span>
                    </div>
                  );
                }}
              />
            </PieChart>
          </ResponsiveContainer>
          <div className="pointer-events-none absolute inset-0 flex flex-col items-center justify-center" aria-hidden="true">
            <span className="text-lg font-semibold text-gray-900 tabular-nums">{compactFormat.format(sum)}</span>
            <span className="text-[11px] text-gray-500">total</span>
          </div>
        </div>
        <ul className="flex max-h-24 shrink-0 flex-col gap-0.5 overflow-y-auto text-xs @md:max-h-full @md:w-2/5" aria-label="Legend" data-testid="chart-legend">
          {entries.map((entry) => (
            <li key={entry.index} className="flex items-center gap-1.5" data-testid="legend-item">
              <LegendSwatch color={entry.color} />
              <span className="min-w-0 flex-1 truncate text-gray-700" title={entry.name}>
                {entry.name}
              </span>
              <span className="font-semibold text-gray-900 tabular-nums" data-testid="legend-total">
                {numberFormat.format(entry.total)}
              </span>
              <span className="w-12 text-right text-gray-500 tabular-nums" data-testid="legend-share">
                {share.format(entry.total / sum)}
              </span>
            </li>
          ))}
        </ul>
      </div>
    </figure>
  );
}

/** Horizontal bars of totals, largest first as the server orders them, each with its value at its end. */
export function TotalsBars({ result }: { result: readonly LegendSource[] }) {
  const entries = legendEntries(result).filter((entry) => !entry.previous);
  const data = entries.map((entry) => ({ name: entry.name, value: entry.total, color: entry.color }));
  const summary = entries.map((entry) => `${entry.name}: ${numberFormat.format(entry.total)}`).join("; ");
  const labelWidth = Math.min(140, Math.max(48, 7 * Math.max(...data.map((row) => row.name.length))));
  return (
    <figure className="h-full" data-testid="insight-chart" data-display="ActionsBarValue" aria-label={summary}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 40, bottom: 4, left: 4 }} accessibilityLayer={false}>
          <CartesianGrid horizontal={false} stroke="#e5e7eb" />
          <XAxis type="number" tickFormatter={(value: number) => compactFormat.format(value)} tick={axisTick} allowDecimals={false} axisLine={false} tickLine={false} />
          <YAxis
            type="category"
            dataKey="name"
            width={labelWidth}
            tick={{ fontSize: 12, fill: "#374151" }}
            tickFormatter={(name: string) => (name.length * 7 > labelWidth ? `${name.slice(0, Math.floor(labelWidth / 7) - 1)}…` : name)}
            interval={0}
            axisLine={false}
            tickLine={false}
          />
          <Tooltip cursor={{ fill: "#f3f4f6" }} formatter={(value) => numberFormat.format(Number(value))} isAnimationActive={false} />
          <Bar dataKey="value" name="Total" maxBarSize={32} radius={[0, 3, 3, 0]} isAnimationActive={false}>
            {data.map((row) => (
              <Cell key={row.name} fill={row.color} />
            ))}
            <LabelList dataKey="value" position="right" formatter={(value: unknown) => numberFormat.format(Number(value))} style={{ fontSize: 12, fill: "#111827" }} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
