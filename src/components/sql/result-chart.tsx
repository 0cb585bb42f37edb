"use client";

import { useId } from "react";
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { axisTick, compactFormat } from "@/components/insights/chart-parts";
import { TooltipBox, tooltipFrame } from "@/components/insights/chart-tooltip";
import { cn } from "@/components/ui";
import { chartPoints, MAX_CHART_ROWS } from "./result-chart-data";

export type SqlChartKind = "table" | "line" | "bar";
const KINDS: { value: SqlChartKind; label: string }[] = [
  { value: "table", label: "Table" },
  { value: "line", label: "Line" },
  { value: "bar", label: "Bar" },
];
const COLOR = "#4f46e5";

/** Table, line or bar, and the column drawn: the chart's controls above the result. */
export function ChartControls({
  kind,
  onKind,
  columns,
  numeric,
  y,
  onY,
}: {
  kind: SqlChartKind;
  onKind: (kind: SqlChartKind) => void;
  columns: readonly string[];
  numeric: readonly number[];
  y: number | null;
  onY: (y: number) => void;
}) {
  const id = useId();
  const none = numeric.length === 0;
  return (
    <div className="mb-3 flex flex-wrap items-center gap-3" data-testid="sql-chart-controls">
      <div role="radiogroup" aria-label="Show the result as" className="inline-flex rounded-control border border-gray-300 p-0.5">
        {KINDS.map((option) => {
          const disabled = option.value !== "table" && none;
          return (
            <button
              key={option.value}
              type="button"
              role="radio"
              aria-checked={kind === option.value}
              disabled={disabled}
              onClick={() => onKind(option.value)}
              className={cn(
                "rounded px-2.5 py-1 text-sm font-medium focus-visible:outline-2 focus-visible:outline-brand-600 disabled:cursor-not-allowed disabled:text-gray-400",
                kind === option.value ? "bg-brand-600 text-white" : "text-gray-700 hover:bg-gray-100",
              )}
              data-testid={`sql-view-${option.value}`}
            >
              {option.label}
            </button>
          );
        })}
      </div>
      {none ? (
        <span className="text-xs text-gray-600" data-testid="sql-chart-none">
          A chart needs a numeric column after the first.
        </span>
      ) : kind !== "table" ? (
        <label htmlFor={`${id}-y`} className="flex items-center gap-2 text-sm text-gray-800">
          Y axis
          <select
            id={`${id}-y`}
            className="rounded-control border border-gray-300 bg-white px-2 py-1 font-mono text-sm"
            value={y ?? ""}
            onChange={(event) => onY(Number(event.target.value))}
            data-testid="sql-chart-y"
          >
            {numeric.map((index) => (
              <option key={index} value={index}>
                {columns[index]}
              </option>
            ))}
          </select>
          <span className="text-xs text-gray-600">over {columns[0]}</span>
        </label>
      ) : null}
    </div>
  );
}

/** Column `y` over the first column of the first rows, as a line or bars. */
export function ResultChart({ kind, columns, rows, y }: { kind: "line" | "bar"; columns: readonly string[]; rows: readonly unknown[][]; y: number }) {
  const points = chartPoints(rows, y);
  const name = columns[y] ?? "value";
  const tooltip = (
    <Tooltip
      {...tooltipFrame}
      content={({ active, payload, label }) => {
        const point = payload?.[0]?.payload as (typeof points)[number] | undefined;
        if (!active || !point || point.y === null) return null;
        return <TooltipBox title={String(label)} rows={[{ key: name, name, color: COLOR, value: point.y }]} />;
      }}
    />
  );
  const axes = (
    <>
      <CartesianGrid vertical={false} stroke="#e5e7eb" />
      <XAxis dataKey="x" tick={axisTick} minTickGap={24} tickMargin={6} interval="preserveStartEnd" />
      <YAxis tick={axisTick} tickFormatter={(value: number) => compactFormat.format(value)} width={44} axisLine={false} tickLine={false} />
    </>
  );
  return (
    <figure className="mb-4" aria-label={`${name} over ${columns[0]}, ${kind === "line" ? "a line" : "bars"} of ${points.length} rows`} data-testid="sql-chart" data-kind={kind}>
      <div className="h-56 sm:h-72">
        <ResponsiveContainer width="100%" height="100%">
          {kind === "line" ? (
            <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
              {axes}
              {tooltip}
              <Line dataKey="y" name={name} stroke={COLOR} strokeWidth={2} dot={points.length <= 60 ? { r: 2.5 } : false} isAnimationActive={false} />
            </LineChart>
          ) : (
            <BarChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
              {axes}
              {tooltip}
              <Bar dataKey="y" name={name} fill={COLOR} isAnimationActive={false} />
            </BarChart>
          )}
        </ResponsiveContainer>
      </div>
      {rows.length > MAX_CHART_ROWS && (
        <figcaption className="mt-1 text-xs text-gray-600">The first {MAX_CHART_ROWS} of {rows.length} rows.</figcaption>
      )}
    </figure>
  );
}
