import type { ReactNode } from "react";

/** A table still loading: five grey bars of falling length, announced once. */
export function TableLoading({ testId, label = "Loading…" }: { testId: string; label?: string }) {
  return (
    <div className="flex flex-col gap-2 p-4" aria-busy="true" data-testid={testId}>
      <span role="status" className="sr-only">
        {label}
      </span>
      {Array.from({ length: 5 }, (_, index) => (
        <div key={index} className="h-7 animate-pulse motion-reduce:animate-none rounded bg-gray-100" style={{ width: `${90 - index * 12}%` }} />
      ))}
    </div>
  );
}

/** A row's first cell: its label (truncated, whole in the tooltip) over a bar of the row's share, 0–1. */
export function BarCell({ fraction, title, children }: { fraction: number; title: string; children: ReactNode }) {
  return (
    <th scope="row" className="relative px-4 py-1.5 text-left font-normal sm:px-5">
      <span aria-hidden="true" className="absolute inset-y-0.5 left-2 rounded bg-brand-100/70 sm:left-3" style={{ width: `calc(${(fraction * 100).toFixed(2)}% - 0.5rem)` }} />
      <span className="relative block truncate text-gray-900" title={title}>
        {children}
      </span>
    </th>
  );
}

/** A figure column's width and padding: narrow on phones, so that the label keeps room; the last one holds the card's right padding too. */
export function figureColumn(last: boolean): string {
  return last ? "w-[5.5rem] pr-4 sm:w-28 sm:pr-5" : "w-[4.5rem] sm:w-24";
}
