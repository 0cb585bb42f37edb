"use client";

import { useState } from "react";
import { bucketTick, intervalOfDays, queryInterval } from "./bucket-dates";
import { LegendSwatch } from "./chart-legend";
import { numberFormat } from "./chart-parts";
import { legendEntries } from "./series-legend";
import type { TimeSeriesItem } from "./series-chart";

/** Columns per bucket are shown up to this many buckets; past it the table keeps to totals. */
const BUCKET_COLUMNS_UP_TO = 12;

type SortKey = "name" | "total";
interface Sort {
  key: SortKey;
  descending: boolean;
}

const share = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });

/**
 * The table display (ActionsTable): a row per series and breakdown value with its total and
 * share, a column per bucket when the result has few; sorted by total, largest first, or by
 * any column header (a button; `aria-sort` says which).
 */
export function TrendsTable({ query, result }: { query: unknown; result: readonly TimeSeriesItem[] }) {
  const [sort, setSort] = useState<Sort>({ key: "total", descending: true });
  const entries = legendEntries(result);
  const sum = entries.reduce((total, entry) => total + (entry.previous ? 0 : entry.total), 0);
  const reference = result[0];
  const bucketCount = reference?.data.length ?? 0;
  const buckets = bucketCount > 0 && bucketCount <= BUCKET_COLUMNS_UP_TO ? (reference?.days ?? reference?.labels ?? []) : [];
  const interval = intervalOfDays(reference?.days, queryInterval(query));
  const rows = [...entries].sort((a, b) => {
    const order = sort.key === "name" ? a.name.localeCompare(b.name) : a.total - b.total;
    return sort.descending ? -order : order;
  });
  const header = (key: SortKey, label: string, className: string) => {
    const active = sort.key === key;
    return (
      <th scope="col" className={className} aria-sort={active ? (sort.descending ? "descending" : "ascending") : "none"}>
        <button
          type="button"
          className="inline-flex items-center gap-1 rounded-sm font-medium uppercase hover:text-gray-800 focus-visible:outline-2 focus-visible:outline-brand-600"
          onClick={() => setSort({ key, descending: active ? !sort.descending : key === "total" })}
          data-testid={`sort-${key}`}
        >
          {label}
          <span aria-hidden="true" className={active ? "text-gray-700" : "text-gray-300"}>
            {active && !sort.descending ? "▲" : "▼"}
          </span>
        </button>
      </th>
    );
  };
  return (
    <div className="h-full overflow-auto" data-testid="insight-chart" data-display="ActionsTable">
      <table className="w-full text-left text-sm" data-testid="trends-table">
        <thead className="sticky top-0 z-10 bg-white text-xs text-gray-500">
          <tr className="border-b border-gray-200">
            {header("name", "Series", "py-1.5 pr-3")}
            {buckets.map((day, index) => (
              <th key={index} scope="col" className="px-2 py-1.5 text-right font-medium whitespace-nowrap">
                {bucketTick(day, interval)}
              </th>
            ))}
            {header("total", "Total", "py-1.5 pl-2 text-right")}
            <th scope="col" className="hidden py-1.5 pl-3 text-right font-medium uppercase sm:table-cell">
              Share
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-100">
          {rows.map((entry) => (
            <tr key={entry.index} data-testid="trends-table-row">
              <th scope="row" className="max-w-0 py-1.5 pr-3 font-normal text-gray-800" title={entry.name}>
                <span className="flex min-w-0 items-center gap-1.5">
                  <LegendSwatch color={entry.color} dashed={entry.previous} />
                  <span className="truncate">{entry.name}</span>
                </span>
              </th>
              {buckets.map((_, bucket) => (
                <td key={bucket} className="px-2 py-1.5 text-right text-gray-700 tabular-nums">
                  {numberFormat.format(result[entry.index]!.data[bucket] ?? 0)}
                </td>
              ))}
              <td className="py-1.5 pl-2 text-right font-semibold text-gray-900 tabular-nums" data-testid="trends-table-total">
                {numberFormat.format(entry.total)}
              </td>
              <td className="hidden py-1.5 pl-3 text-right text-gray-500 tabular-nums sm:table-cell">{entry.previous || sum === 0 ? "" : share.format(entry.total / sum)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
