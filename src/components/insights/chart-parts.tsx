"use client";

import { useState, type KeyboardEvent, type ReactNode } from "react";
import { cn } from "@/components/ui";
import type { ActorsSelection } from "./actors-query";

/**
 * What every insight renderer shares: the palette and number formats, the frame that tells
 * tests and screen readers which kind and state a tile shows, the empty and "cannot show"
 * states, and keyboard access to a chart's points.
 */

export { colorAt, PALETTE } from "./palette";

export const numberFormat = new Intl.NumberFormat("en-US");
export const compactFormat = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
export const axisTick = { fontSize: 12, fill: "#6b7280" };

export type SelectHandler = (selection: ActorsSelection) => void;

/** A tile body in its state, naming the kind it draws (`data-kind`) for tests and styles. */
export function ResultFrame({ kind, state, children, className }: { kind: string; state: "ready" | "empty" | "error"; children: ReactNode; className?: string }) {
  return (
    <div className={cn("h-full min-h-0", className)} data-testid="tile-body" data-state={state} data-kind={kind}>
      {children}
    </div>
  );
}

/** Nothing in range: the same words on every kind. */
export function ResultEmpty({ kind, title = "No events in this range", detail = "Events captured for it will show here." }: { kind: string; title?: string; detail?: string }) {
  return (
    <ResultFrame kind={kind} state="empty" className="flex flex-col items-center justify-center text-center">
      <p className="text-sm font-medium text-gray-700">{title}</p>
      <p className="text-xs text-gray-500">{detail}</p>
    </ResultFrame>
  );
}

/** A result whose shape is not the kind's (an older server, a kind this page cannot draw). */
export function ResultMismatch({ kind, message }: { kind: string; message: string }) {
  return (
    <ResultFrame kind={kind} state="error" className="flex flex-col items-center justify-center gap-1 px-2 text-center">
      <p role="alert" className="text-sm font-medium text-red-700">
        Cannot show this result
      </p>
      <p className="line-clamp-3 text-xs text-gray-600">{message}</p>
    </ResultFrame>
  );
}

/** One selectable point of a chart: what it says, and the persons behind it. */
export interface ChartPoint {
  description: string;
  selection: ActorsSelection;
}

/**
 * Keyboard access to a chart's points, with `grid[bucket][series]`: the chart takes focus;
 * Left/Right move between buckets, Up/Down between series, Enter or Space list the point's
 * persons. The chosen point is announced and shown under the chart; `children` gets its
 * bucket to highlight. Without `onSelect` (the shared page) the chart is only a picture.
 */
export function PointPicker({
  grid,
  label,
  onSelect,
  children,
}: {
  grid: (ChartPoint | null)[][];
  label: string;
  onSelect?: SelectHandler;
  children: (activeBucket: number | null) => ReactNode;
}) {
  const [active, setActive] = useState<{ bucket: number; series: number } | null>(null);
  if (!onSelect) return <>{children(null)}</>;
  const buckets = grid.length;
  const point = active ? (grid[active.bucket]?.[active.series] ?? null) : null;

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    // Keys pressed on a control inside the chart (a legend entry) are that control's.
    if (buckets === 0 || event.target !== event.currentTarget) return;
    const current = active ?? { bucket: 0, series: 0 };
    const seriesCount = grid[current.bucket]?.length ?? 1;
    let next = current;
    switch (event.key) {
      case "ArrowRight":
        next = active ? { ...current, bucket: Math.min(buckets - 1, current.bucket + 1) } : current;
        break;
      case "ArrowLeft":
        next = active ? { ...current, bucket: Math.max(0, current.bucket - 1) } : current;
        break;
      case "ArrowDown":
        next = active ? { ...current, series: Math.min(seriesCount - 1, current.series + 1) } : current;
        break;
      case "ArrowUp":
        next = active ? { ...current, series: Math.max(0, current.series - 1) } : current;
        break;
      case "Home":
        next = { ...current, bucket: 0 };
        break;
      case "End":
        next = { ...current, bucket: buckets - 1 };
        break;
      case "Enter":
      case " ": {
        event.preventDefault();
        if (point) onSelect!(point.selection);
        else setActive(current);
        return;
      }
      default:
        return;
    }
    event.preventDefault();
    setActive(next);
  }

  return (
    <div
      className="flex h-full min-h-0 flex-col rounded-control focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
      tabIndex={0}
      role="group"
      aria-label={`${label}. Arrow keys choose a point, Enter lists its persons.`}
      onKeyDown={onKeyDown}
      onBlur={() => setActive(null)}
      data-testid="chart-points"
    >
      <div className="min-h-0 flex-1">{children(active?.bucket ?? null)}</div>
      <p className="truncate text-xs text-gray-600" aria-live="polite" data-testid="chart-point">
        {point ? `${point.description} · Enter for persons` : ""}
      </p>
    </div>
  );
}

/** Recharts' click data: the bucket index under the pointer, if any. */
export function clickedBucket(state: { activeTooltipIndex?: unknown; activeIndex?: unknown } | null | undefined): number | null {
  const raw = state?.activeTooltipIndex ?? state?.activeIndex;
  const index = typeof raw === "number" ? raw : typeof raw === "string" && raw !== "" ? Number(raw) : NaN;
  return Number.isInteger(index) && index >= 0 ? index : null;
}
