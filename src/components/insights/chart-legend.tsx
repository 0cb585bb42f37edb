"use client";

import { cn } from "@/components/ui";
import { numberFormat } from "./chart-parts";
import type { LegendEntry } from "./series-legend";

/**
 * A chart's legend: each series (and breakdown value) in its colour with its total. With
 * `onToggle`, an entry is a button that hides or shows its series on the chart.
 */
export function ChartLegend({
  entries,
  hidden,
  onToggle,
  className,
}: {
  entries: readonly LegendEntry[];
  hidden?: ReadonlySet<number>;
  onToggle?: (index: number) => void;
  className?: string;
}) {
  return (
    <ul className={cn("flex max-h-16 shrink-0 flex-wrap gap-x-3 gap-y-0.5 overflow-y-auto pt-1 text-xs", className)} aria-label="Legend" data-testid="chart-legend">
      {entries.map((entry) => {
        const off = hidden?.has(entry.index) ?? false;
        const content = (
          <>
            <LegendSwatch color={entry.color} dashed={entry.previous} />
            <span className="max-w-40 truncate text-gray-700" title={entry.name}>
              {entry.name}
            </span>
            <span className="font-semibold text-gray-900 tabular-nums" data-testid="legend-total">
              {numberFormat.format(entry.total)}
            </span>
          </>
        );
        return (
          <li key={entry.index} data-testid="legend-item" data-hidden={off || undefined}>
            {onToggle ? (
              <button
                type="button"
                className={cn(
                  "flex items-center gap-1.5 rounded-sm py-0.5 focus-visible:outline-2 focus-visible:outline-brand-600",
                  off && "opacity-40 [&>span]:line-through",
                )}
                // Named by its visible text (series and total); pressed while the series is drawn.
                aria-pressed={!off}
                title={`${off ? "Show" : "Hide"} on the chart`}
                onClick={() => onToggle(entry.index)}
              >
                {content}
              </button>
            ) : (
              <span className="flex items-center gap-1.5 py-0.5">{content}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** A series' colour as a small bar; dashed for a previous period, as its line is drawn. */
export function LegendSwatch({ color, dashed = false }: { color: string; dashed?: boolean }) {
  return (
    <span
      className="inline-block h-2.5 w-2.5 shrink-0 rounded-sm"
      style={dashed ? { border: `2px dashed ${color}` } : { background: color }}
      aria-hidden="true"
    />
  );
}
