"use client";

import { Card, CardHeader, cn, EmptyState, ErrorState } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { BarCell, figureColumn, TableLoading } from "./table-parts";
import type { WebFilters } from "./web-filters";
import { formatCount } from "./web-format";
import { topClicks, topClicksQuery } from "./web-query";
import { useWebQuery } from "./use-web-query";

/** PostHog's top clicks: the ten element texts autocapture saw clicked most, through the page's range and filters. */
export function TopClicks({ projectId, filters }: { projectId: number; filters: WebFilters }) {
  const result = useWebQuery(projectId, topClicksQuery(filters));
  const rows = result.data ? topClicks(result.data) : undefined;
  // The previous answer stays on screen while the next loads: "loading" until it is in.
  const state = (result.error && !result.data) || rows === null ? "error" : !rows || result.isFetching ? "loading" : rows.length === 0 ? "empty" : "ready";

  return (
    <Card aria-labelledby="web-top-clicks-title" className="flex min-w-0 flex-col" data-testid="web-top-clicks" data-state={state}>
      <CardHeader titleId="web-top-clicks-title" title="Top clicks" description="Clicked buttons and links, by their text" />
      {/* Beside a longer Paths card, the states sit in the middle of the space. */}
      <div className={cn("flex min-w-0 flex-1 flex-col", state !== "ready" && state !== "loading" && "justify-center")}>
        {result.error && !result.data ? (
          <div className="p-4">
            <ErrorState title="Could not load the top clicks" message={errorMessage(result.error)} onRetry={() => void result.refetch()} />
          </div>
        ) : rows === null ? (
          <div className="p-4">
            <ErrorState title="Could not read the top clicks" message="The server answered with a shape this page does not know." />
          </div>
        ) : !rows ? (
          <TableLoading testId="web-top-clicks-loading" />
        ) : rows.length === 0 ? (
          <EmptyState
            title="No clicks yet"
            description="Clicks on buttons and links show here by their text once posthog-js's autocapture records them. It is on unless the snippet sets autocapture: false."
            icon={
              <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6">
                <path d="M7.5 7.5l8 3-3.5 1.5-1.5 3.5-3-8zM4 4l1.5 1.5M8 2.5v2M2.5 8h2" strokeLinecap="round" strokeLinejoin="round" />
              </svg>
            }
            className="py-10"
          />
        ) : (
          <table className="w-full table-fixed text-sm">
            <thead>
              <tr className="text-xs font-medium text-gray-500">
                <th scope="col" className="px-4 py-2 text-left font-medium sm:px-5">
                  Element text
                </th>
                <th scope="col" className={`${figureColumn(false)} py-2 text-right font-medium`}>
                  Clicks
                </th>
                <th scope="col" className={`${figureColumn(true)} py-2 text-right font-medium`}>
                  Visitors
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.text} data-testid="web-top-click">
                  {/* The row's share of the clicks shown, drawn behind its text. */}
                  <BarCell fraction={row.fillFraction} title={row.text}>
                    <span data-testid="web-top-click-text">{row.text}</span>
                  </BarCell>
                  <td className="py-1.5 text-right text-gray-900 tabular-nums" data-testid="web-top-click-clicks">
                    {formatCount(row.clicks)}
                  </td>
                  <td className="py-1.5 pr-4 text-right text-gray-700 tabular-nums sm:pr-5" data-testid="web-top-click-visitors">
                    {formatCount(row.visitors)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Card>
  );
}
