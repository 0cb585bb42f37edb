"use client";

import { cn } from "@/components/ui";
import { bucketTitle } from "./bucket-dates";
import { numberFormat } from "./chart-parts";
import { periodChange } from "./number-change";
import { itemName, itemTotal, type LegendSource } from "./series-legend";

/** What the number reads of a result item: its total, its days and (from Burrow) its per-day sparkline. */
export interface NumberItem extends LegendSource {
  days?: string[];
  sparkline?: number[];
}

/**
 * The number display (BoldNumber): the first series' value over the range, large; with a
 * comparison (`compareFilter.compare`) the change against the previous period, up green or
 * down red; and a sparkline of the value per day. The figure scales with its tile.
 */
export function NumberView({ result }: { result: readonly NumberItem[] }) {
  const current = result.find((item) => item.compare_label !== "previous") ?? result[0];
  if (!current) return null;
  const previous = result.find((item) => item.compare_label === "previous" && item.label === current.label && item.breakdown_value === current.breakdown_value);
  const value = itemTotal(current);
  const change = previous ? periodChange(value, itemTotal(previous)) : null;
  const spark = current.sparkline ?? [];
  const summary = `${itemName(current)}: ${numberFormat.format(value)}${change && previous ? `, ${change.text} vs previous period (${numberFormat.format(itemTotal(previous))})` : ""}`;
  return (
    <figure className="@container flex h-full min-h-0 flex-col items-center justify-center gap-1 text-center" data-testid="insight-chart" data-display="BoldNumber" aria-label={summary}>
      <p
        className="text-4xl leading-none font-semibold tracking-tight text-gray-900 tabular-nums @xs:text-5xl @md:text-6xl"
        data-testid="bold-number"
        title={numberFormat.format(value)}
      >
        {numberFormat.format(value)}
      </p>
      {change && previous && (
        <p className="flex flex-wrap items-baseline justify-center gap-x-1.5 text-sm" data-testid="number-change" data-direction={change.direction}>
          <span
            className={cn(
              "rounded px-1.5 py-0.5 font-semibold tabular-nums",
              change.direction === "up" && "bg-green-50 text-green-700",
              change.direction === "down" && "bg-red-50 text-red-700",
              change.direction === "flat" && "bg-gray-100 text-gray-600",
            )}
            data-testid="number-change-value"
          >
            {change.text}
          </span>
          <span className="text-gray-500">
            vs previous period <span className="tabular-nums">({numberFormat.format(itemTotal(previous))})</span>
          </span>
        </p>
      )}
      {spark.length > 1 && <Sparkline values={spark} days={current.days} previous={previous?.sparkline} />}
    </figure>
  );
}

const SPARK_WIDTH = 240;
const SPARK_HEIGHT = 40;

/** A line of the value per day, filled below, the previous period's dashed and grey behind it. */
function Sparkline({ values, days, previous }: { values: readonly number[]; days?: readonly string[]; previous?: readonly number[] }) {
  const top = Math.max(1, ...values, ...(previous ?? []));
  const x = (index: number, length: number) => (length <= 1 ? 0 : (index / (length - 1)) * SPARK_WIDTH);
  const y = (value: number) => SPARK_HEIGHT - 2 - (value / top) * (SPARK_HEIGHT - 4);
  const line = (points: readonly number[]) => points.map((value, index) => `${index === 0 ? "M" : "L"}${x(index, points.length).toFixed(1)},${y(value).toFixed(1)}`).join(" ");
  const path = line(values);
  const first = days?.[0];
  const last = days?.[days.length - 1];
  return (
    <div className="mt-1 w-full max-w-72 px-2">
      <svg
        viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`}
        preserveAspectRatio="none"
        className="block h-10 w-full"
        role="img"
        aria-label={`Per day${first && last ? ` from ${bucketTitle(first, "day")} to ${bucketTitle(last, "day")}` : ""}: ${values.map((value) => numberFormat.format(value)).join(", ")}`}
        data-testid="number-sparkline"
      >
        {previous && previous.length > 1 && <path d={line(previous)} fill="none" stroke="#9ca3af" strokeWidth={1.5} strokeDasharray="4 3" vectorEffect="non-scaling-stroke" />}
        <path d={`${path} L${SPARK_WIDTH},${SPARK_HEIGHT} L0,${SPARK_HEIGHT} Z`} fill="#4f46e5" fillOpacity={0.12} stroke="none" />
        <path d={path} fill="none" stroke="#4f46e5" strokeWidth={2} strokeLinejoin="round" vectorEffect="non-scaling-stroke" />
      </svg>
    </div>
  );
}
