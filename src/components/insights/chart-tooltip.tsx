"use client";

import { LegendSwatch } from "./chart-legend";
import { numberFormat } from "./chart-parts";

/** One line of a tooltip: a series in its colour and its value at the hovered point. */
export interface TooltipRow {
  key: string | number;
  name: string;
  color: string;
  value: number;
  dashed?: boolean;
}

/** The tooltip listing shows at most this many rows; the rest are counted. */
const TOOLTIP_ROWS = 10;

/** Every chart's tooltip: the hovered bucket's title, then a row per series (colour, name, value). */
export function TooltipBox({ title, rows, format = (value) => numberFormat.format(value) }: { title: string; rows: readonly TooltipRow[]; format?: (value: number) => string }) {
  const listed = rows.slice(0, TOOLTIP_ROWS);
  return (
    <div className="max-w-72 min-w-40 rounded-md border border-gray-200 bg-white/95 px-2.5 py-2 text-xs shadow-lg" data-testid="chart-tooltip">
      <p className="mb-1 font-medium text-gray-900">{title}</p>
      <ul className="flex flex-col gap-0.5">
        {listed.map((row) => (
          <li key={row.key} className="flex items-center gap-1.5" data-testid="chart-tooltip-row">
            <LegendSwatch color={row.color} dashed={row.dashed} />
            <span className="min-w-0 flex-1 truncate text-gray-700">{row.name}</span>
            <span className="pl-2 font-semibold text-gray-900 tabular-nums">{format(row.value)}</span>
          </li>
        ))}
      </ul>
      {rows.length > listed.length && <p className="mt-1 text-gray-500">and {rows.length - listed.length} more</p>}
    </div>
  );
}

/** Props every recharts Tooltip gets: the tooltip stays above the tile and appears at once. */
export const tooltipFrame = { wrapperStyle: { zIndex: 20, outline: "none" }, isAnimationActive: false } as const;
