"use client";

import Link from "next/link";
import { useRef, useState, type KeyboardEvent } from "react";
import { Button, Card, cn, EmptyState, ErrorState } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { BarCell, figureColumn, TableLoading } from "./table-parts";
import { nextOrder, paramsOf, replayHref, shownOrder, tableOrder, type TableOrder, type TableOrderField, type WebFilters } from "./web-filters";
import { breakdownLabel, formatCount, formatRate } from "./web-format";
import { showsBounceRate, statsTable, statsTableQuery, TABLE_PAGE, type WebBreakdown, type WebTableGroup } from "./web-query";
import { useWebQuery } from "./use-web-query";

const PATH_BREAKDOWNS = new Set<WebBreakdown>(["Page", "InitialPage", "ExitPage"]);

/** One group of tables (Paths, Sources, …) as tabs, keyboard-operable as a WAI-ARIA tablist. */
export function StatsTables({
  projectId,
  group,
  filters,
  onOrder,
}: {
  projectId: number;
  group: WebTableGroup;
  filters: WebFilters;
  onOrder: (order: TableOrder | null) => void;
}) {
  const [selected, setSelected] = useState(0);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const tab = group.tabs[selected]!;
  const id = (index: number) => `web-${group.id}-tab-${index}`;

  function onKeyDown(event: KeyboardEvent) {
    const last = group.tabs.length - 1;
    const next =
      event.key === "ArrowRight" ? (selected === last ? 0 : selected + 1)
      : event.key === "ArrowLeft" ? (selected === 0 ? last : selected - 1)
      : event.key === "Home" ? 0
      : event.key === "End" ? last
      : null;
    if (next === null) return;
    event.preventDefault();
    setSelected(next);
    tabs.current[next]?.focus();
  }

  return (
    <Card aria-labelledby={`web-${group.id}-title`} className="flex min-w-0 flex-col" data-testid={`web-table-${group.id}`}>
      <div className="flex flex-col gap-2 border-b border-gray-200 px-4 pt-3.5 sm:px-5">
        <h2 id={`web-${group.id}-title`} className="text-sm font-semibold text-gray-900">
          {group.title}
        </h2>
        <div role="tablist" aria-labelledby={`web-${group.id}-title`} className="-mb-px flex gap-1 overflow-x-auto" onKeyDown={onKeyDown}>
          {group.tabs.map((item, index) => (
            <button
              key={item.breakdown}
              ref={(element) => {
                tabs.current[index] = element;
              }}
              type="button"
              role="tab"
              id={id(index)}
              aria-selected={index === selected}
              aria-controls={`${id(index)}-panel`}
              tabIndex={index === selected ? 0 : -1}
              onClick={() => setSelected(index)}
              className={cn(
                "shrink-0 border-b-2 px-2.5 py-2 text-sm font-medium whitespace-nowrap focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600",
                index === selected ? "border-brand-600 text-brand-700" : "border-transparent text-gray-600 hover:border-gray-300 hover:text-gray-800",
              )}
              data-testid={`web-tab-${item.breakdown}`}
            >
              {item.label}
            </button>
          ))}
        </div>
      </div>
      <div role="tabpanel" id={`${id(selected)}-panel`} aria-labelledby={id(selected)} className="min-w-0 flex-1">
        {/* A panel per tab and filters: "Show more" starts again from one page. A new order keeps the panel (and the focus on its header). */}
        <StatsTable
          key={`${tab.breakdown}:${paramsOf({ ...filters, order: null })}`}
          projectId={projectId}
          breakdown={tab.breakdown}
          column={tab.column}
          filters={filters}
          onOrder={onOrder}
        />
      </div>
    </Card>
  );
}

/** How a column's header reads, and which end its descending order starts from (counts: most; rates: highest). */
const FIELD_HEADERS: Record<TableOrderField, { label: string; short?: string; shortAlways?: boolean; most: string; fewest: string }> = {
  Visitors: { label: "Visitors", most: "most", fewest: "fewest" },
  Views: { label: "Views", most: "most", fewest: "fewest" },
  BounceRate: { label: "Bounce rate", short: "Bounce", most: "highest", fewest: "lowest" },
  TotalConversions: { label: "Conversions", most: "most", fewest: "fewest" },
  // Four figures share a half-width card: their short names at every width.
  UniqueConversions: { label: "Unique conversions", short: "Converted", shortAlways: true, most: "most", fewest: "fewest" },
  ConversionRate: { label: "Conversion rate", short: "Rate", shortAlways: true, most: "highest", fewest: "lowest" },
};

/** A figure's column header: a button that orders the table by it (descending first, then flipping), its state in aria-sort. */
function SortHeader({
  field,
  order,
  onOrder,
  className,
  goal = false,
}: {
  field: TableOrderField;
  order: TableOrder | null;
  onOrder: (order: TableOrder | null) => void;
  className: string;
  goal?: boolean;
}) {
  const shown = shownOrder(order, goal);
  const active = shown.field === field;
  const next = shownOrder(nextOrder(order, field, goal), goal);
  const header = FIELD_HEADERS[field];
  return (
    <th scope="col" className={cn("py-1.5 text-right font-medium", className)} aria-sort={active ? (shown.direction === "DESC" ? "descending" : "ascending") : "none"}>
      <button
        type="button"
        onClick={() => onOrder(nextOrder(order, field, goal))}
        className={cn(
          "-mr-1 inline-flex items-center gap-1 rounded px-1 py-0.5 font-medium whitespace-nowrap hover:text-gray-800 focus-visible:outline-2 focus-visible:outline-brand-600",
          active && "text-gray-800",
        )}
        title={`Sort by ${header.label.toLowerCase()}, ${next.direction === "DESC" ? header.most : header.fewest} first`}
        data-testid={`web-sort-${field}`}
      >
        <span aria-hidden="true" className={cn("w-2.5 text-[10px]", !active && "invisible")}>
          {shown.direction === "DESC" ? "▼" : "▲"}
        </span>
        {header.short ? (
          <>
            {/* Phones read the short name; the header's name stays the whole one. */}
            <span aria-hidden="true" className={header.shortAlways ? undefined : "sm:hidden"}>
              {header.short}
            </span>
            <span className={header.shortAlways ? "sr-only" : "max-sm:sr-only"}>{header.label}</span>
          </>
        ) : (
          header.label
        )}
      </button>
    </th>
  );
}

function StatsTable({
  projectId,
  breakdown,
  column,
  filters,
  onOrder,
}: {
  projectId: number;
  breakdown: WebBreakdown;
  column: string;
  filters: WebFilters;
  onOrder: (order: TableOrder | null) => void;
}) {
  const [limit, setLimit] = useState(TABLE_PAGE);
  const result = useWebQuery(projectId, statsTableQuery(filters, breakdown, limit));
  const table = result.data ? statsTable(result.data) : undefined;

  if (result.error && !result.data) {
    return (
      <div className="p-4">
        <ErrorState title="Could not load this table" message={errorMessage(result.error)} onRetry={() => void result.refetch()} />
      </div>
    );
  }
  if (table === null) {
    return (
      <div className="p-4">
        <ErrorState title="Could not read this table" message="The server answered with a shape this page does not know." />
      </div>
    );
  }
  if (!table) {
    return <TableLoading testId="web-table-loading" />;
  }
  if (table.rows.length === 0) return <EmptyState title="Nothing here yet" description={`No page views${filters.goal ? " or conversions" : ""} in this range have a value for it.`} className="py-10" />;

  const linkable = PATH_BREAKDOWNS.has(breakdown);
  const goal = filters.goal !== null;
  const bounceRate = !goal && showsBounceRate(breakdown);
  // The page's order, unless it is by a column this table does not show.
  const order = tableOrder(filters.order, bounceRate, goal);
  return (
    <div className="flex flex-col" data-testid="web-table" data-breakdown={breakdown} data-state={result.isFetching ? "loading" : "ready"}>
      <table className="w-full table-fixed text-sm">
        <thead>
          <tr className="text-left text-xs font-medium text-gray-500">
            <th scope="col" className="px-4 py-2 font-medium sm:px-5">
              {column}
            </th>
            <SortHeader field="Visitors" order={order} onOrder={onOrder} className={figureColumn(false)} goal={goal} />
            {goal ? (
              <>
                {/* Phones show who converted and the rate; the total waits for a wider screen. */}
                <SortHeader field="TotalConversions" order={order} onOrder={onOrder} className={cn(figureColumn(false), "max-sm:hidden")} goal />
                <SortHeader field="UniqueConversions" order={order} onOrder={onOrder} className={figureColumn(false)} goal />
                <SortHeader field="ConversionRate" order={order} onOrder={onOrder} className={figureColumn(true)} goal />
              </>
            ) : (
              <SortHeader field="Views" order={order} onOrder={onOrder} className={figureColumn(!bounceRate)} />
            )}
            {bounceRate && <SortHeader field="BounceRate" order={order} onOrder={onOrder} className={figureColumn(true)} />}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, index) => {
            const label = breakdownLabel(breakdown, row.value);
            return (
              <tr key={index} className="relative" data-testid="web-table-row">
                {/* The row's share of the visitors, drawn behind its value. */}
                <BarCell fraction={row.fillFraction} title={label}>
                  {linkable && typeof row.value === "string" ? (
                    <span className="flex min-w-0 items-center gap-1.5">
                      <Link href={`/web?${paramsOf({ ...filters, path: row.value })}`} className="min-w-0 truncate hover:text-brand-700 hover:underline" data-testid="web-table-value">
                        {label}
                      </Link>
                      <Link
                        href={replayHref(filters, row.value)}
                        className="shrink-0 rounded px-1 text-xs text-gray-500 hover:bg-brand-50 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-brand-600"
                        title={`Watch recordings of sessions that viewed ${label}`}
                        aria-label={`Watch recordings of sessions that viewed ${label}`}
                        data-testid="web-table-recordings"
                      >
                        ▶
                      </Link>
                    </span>
                  ) : (
                    <span data-testid="web-table-value">{label}</span>
                  )}
                </BarCell>
                <td className="py-1.5 text-right text-gray-900 tabular-nums" data-testid="web-table-visitors">
                  {formatCount(row.visitors)}
                </td>
                {row.goal ? (
                  <>
                    <td className="py-1.5 text-right text-gray-700 tabular-nums max-sm:hidden" data-testid="web-table-conversions">
                      {formatCount(row.goal.conversions)}
                    </td>
                    <td className="py-1.5 text-right text-gray-700 tabular-nums" data-testid="web-table-converters">
                      {formatCount(row.goal.converters)}
                    </td>
                    <td className="py-1.5 pr-4 text-right text-gray-900 tabular-nums sm:pr-5" data-testid="web-table-conversion-rate">
                      {formatRate(row.goal.rate)}
                    </td>
                  </>
                ) : (
                  <td className={cn("py-1.5 text-right text-gray-700 tabular-nums", !bounceRate && "pr-4 sm:pr-5")}>{formatCount(row.views)}</td>
                )}
                {bounceRate && (
                  <td
                    className="py-1.5 pr-4 text-right text-gray-700 tabular-nums sm:pr-5"
                    // Only sessions with a $pageview can bounce (screens alone cannot): the one way an entry page has no rate.
                    title={row.bounceRate === null ? "None of these sessions had a page view, so none could bounce" : undefined}
                    data-testid="web-table-bounce-rate"
                  >
                    {formatRate(row.bounceRate)}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {table.hasMore && (
        <div className="mt-auto border-t border-gray-100 px-4 py-2 sm:px-5">
          <Button variant="ghost" size="sm" onClick={() => setLimit(limit + TABLE_PAGE)} loading={result.isFetching} data-testid="web-table-more">
            Show more
          </Button>
        </div>
      )}
    </div>
  );
}
