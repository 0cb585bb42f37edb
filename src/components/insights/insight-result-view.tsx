"use client";

import type { ReactNode } from "react";
import type { SelectHandler } from "./chart-parts";
import { ResultMismatch } from "./chart-parts";
import { FunnelStepsView, FunnelTimeView, FunnelTrendsView } from "./funnel-view";
import { HogQLTable } from "./hogql-table";
import { LifecycleView } from "./lifecycle-view";
import { PathsView } from "./paths-view";
import { resultKindOf, sourceOf } from "./query-source";
import { RetentionView } from "./retention-view";
import { StickinessView } from "./stickiness-view";
import { TrendsView } from "./trends-view";

/** What a computed insight gives its renderer: the kind's `results`, and a HogQL query's columns. */
export interface InsightResponse {
  results: unknown;
  columns?: unknown;
  /** A lifecycle's visitors left out for want of a person profile (Burrow's field beside PostHog's results). */
  personlessVisitors?: unknown;
}

/**
 * An insight's result drawn for its kind (TrendsQuery, FunnelsQuery in each visualisation,
 * RetentionQuery, LifecycleQuery, StickinessQuery, PathsQuery, HogQLQuery), in PostHog's
 * result shapes. With `onSelect`, the points that stand for persons (funnel steps,
 * retention cells, trend/lifecycle/stickiness points) report an ActorsQuery source. `compact`
 * (a dashboard tile) keeps notes beside the chart to one line.
 */
export function InsightResultView({ query, response, onSelect, compact = false }: { query: unknown; response: InsightResponse; onSelect?: SelectHandler; compact?: boolean }): ReactNode {
  const { results } = response;
  const props = { query, results, onSelect };
  const kind = resultKindOf(query);
  switch (kind) {
    case "trends":
      return <TrendsView {...props} />;
    case "funnel-steps":
      return <FunnelStepsView {...props} />;
    case "funnel-time":
      return <FunnelTimeView results={results} />;
    case "funnel-trends":
      return <FunnelTrendsView {...props} />;
    case "retention":
      return <RetentionView {...props} />;
    case "lifecycle":
      return <LifecycleView {...props} personless={typeof response.personlessVisitors === "number" ? response.personlessVisitors : 0} compact={compact} />;
    case "stickiness":
      return <StickinessView {...props} />;
    case "paths":
      return <PathsView results={results} />;
    case "hogql":
      return <HogQLTable results={results} columns={response.columns} />;
    default: {
      const named = sourceOf(query).kind;
      return <ResultMismatch kind="unknown" message={`This page cannot draw ${typeof named === "string" ? named : "this query"} results yet.`} />;
    }
  }
}
