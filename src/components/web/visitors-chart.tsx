"use client";

import { InsightChart } from "@/components/dashboards/insight-chart";
import { Card, CardBody, CardHeader, EmptyState, ErrorState } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import type { TrendSeries } from "./web-query";

export interface VisitorsChartProps {
  query: object;
  series: TrendSeries[] | null | undefined;
  error: unknown;
  onRetry: () => void;
}

/** Visitors and page views over the range, from the TrendsQuery PostHog's web graphs use. */
export function VisitorsChart({ query, series, error, onRetry }: VisitorsChartProps) {
  const shown = series?.filter((s) => s.key === "visitors" || s.key === "views");
  const empty = shown?.every((s) => s.data.every((n) => n === 0));
  return (
    <Card aria-labelledby="web-chart-title" data-testid="web-chart" data-state={error && !series ? "error" : !series ? "loading" : empty ? "empty" : "ready"}>
      <CardHeader titleId="web-chart-title" title="Visitors and page views" />
      <CardBody>
        {error && !series ? (
          <ErrorState title="Could not load the graph" message={errorMessage(error)} onRetry={onRetry} />
        ) : !shown ? (
          <div className="h-64 animate-pulse motion-reduce:animate-none rounded-control bg-gray-100" aria-busy="true">
            <span role="status" className="sr-only">
              Loading the graph…
            </span>
          </div>
        ) : empty ? (
          <EmptyState title="No page views in this range" description="Widen the range or clear the filters." className="py-16" />
        ) : (
          <div className="h-64">
            <InsightChart query={query} result={shown.map((s) => ({ label: s.label, data: s.data, labels: s.labels, days: s.days }))} />
          </div>
        )}
      </CardBody>
    </Card>
  );
}
