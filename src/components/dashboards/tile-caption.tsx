"use client";

import { useEffect, useState } from "react";
import { formatDateTime, Popover } from "@/components/ui";
import type { EffectiveFilters } from "@/server/dashboards/present";
import { conditionLabel, dateRangeLabel } from "./dashboard-filters-state";

/** "just now", "3 min ago", "2 h ago", "4 d ago". */
export function timeAgo(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/**
 * The current time, updated each minute, so "3 min ago" stays true on an open page; null until
 * the page has hydrated (the server's minute may be gone by then, and hydration must see the
 * server's text).
 */
function useMinuteClock(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * A tile's footer: what its chart shows ("Last 30 days · 2 filters", the conditions listed
 * in a popover) and when it was computed ("Computed 3 min ago", the exact time on hover).
 */
export function TileCaption({ effective, lastRefresh, pending = false }: { effective?: EffectiveFilters; lastRefresh: string | null; pending?: boolean }) {
  const now = useMinuteClock();
  const conditions = effective ? [...effective.dashboard_properties, ...effective.insight_properties] : [];
  const range = effective ? dateRangeLabel(effective.date_from, effective.date_to) : null;
  const summary = range && `${range}${conditions.length > 0 ? ` · ${conditions.length} filter${conditions.length === 1 ? "" : "s"}` : ""}`;
  return (
    <div className="flex min-w-0 items-center justify-between gap-2">
      {summary ? (
        <Popover
          button={<span className="truncate">{summary}</span>}
          buttonLabel={`${summary}: show this tile's filters`}
          buttonClassName="min-w-0 truncate rounded-sm text-left text-gray-600 underline decoration-dotted underline-offset-2 hover:text-gray-900 focus-visible:outline-2 focus-visible:outline-brand-600"
          buttonTestId="tile-filters"
          panelTestId="tile-filters-panel"
          side="above"
          panelClassName="w-72 max-w-[80vw]"
          className="min-w-0"
        >
          {() => (
            <div className="flex flex-col gap-2 px-3.5 py-2 text-xs text-gray-700">
              <p>
                <span className="font-medium text-gray-900">Date range:</span> {range}
                {effective?.date_from && <span className="text-gray-500"> ({effective.date_from}{effective.date_to ? ` → ${effective.date_to}` : ""})</span>}
              </p>
              <FilterList title="Dashboard filters" items={effective?.dashboard_properties ?? []} />
              <FilterList title="Insight filters" items={effective?.insight_properties ?? []} />
              {effective && (
                <p data-testid="tile-test-accounts">
                  <span className="font-medium text-gray-900">Internal and test users:</span> {effective.filter_test_accounts ? "filtered out" : "included"}
                </p>
              )}
            </div>
          )}
        </Popover>
      ) : (
        <span />
      )}
      <span className="shrink-0 text-gray-500" title={lastRefresh ? formatDateTime(lastRefresh) : undefined} data-testid="tile-computed-at">
        {pending ? "Computing…" : lastRefresh ? `Computed${now === null ? "" : ` ${timeAgo(lastRefresh, now)}`}` : "Not computed yet"}
      </span>
    </div>
  );
}

function FilterList({ title, items }: { title: string; items: EffectiveFilters["dashboard_properties"] }) {
  return (
    <div>
      <p className="font-medium text-gray-900">{title}</p>
      {items.length === 0 ? (
        <p className="text-gray-500">None</p>
      ) : (
        <ul className="list-disc pl-4">
          {items.map((item, index) => (
            <li key={index} className="break-words">
              {conditionLabel(item)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
