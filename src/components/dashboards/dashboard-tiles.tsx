"use client";

import { Suspense, use, type ReactNode } from "react";
import { Card, cn, EmptyState } from "@/components/ui";
import type { SharedTile, TileComputation } from "@/server/dashboards/present";
import type { SelectHandler } from "@/components/insights/chart-parts";
import { InsightResultView } from "@/components/insights/insight-result-view";
import { MarkdownText } from "./markdown-text";
import { TileCaption } from "./tile-caption";
import { TileGrid } from "./tile-grid";

/**
 * The pieces of a dashboard's tiles shared by the admin page (editable-tiles.tsx) and the
 * public shared page: the empty grid, a tile's frame, and an insight's chart in its
 * loading, error, empty and ready states.
 */

/** PostHog's tile colors as an accent along the tile's top edge. */
const ACCENTS: Record<string, string> = {
  blue: "border-t-blue-500",
  green: "border-t-green-500",
  purple: "border-t-purple-500",
  black: "border-t-gray-900",
};

export function EmptyTiles({ description, action }: { description: string; action?: ReactNode }) {
  return (
    <Card data-testid="dashboard-tiles" data-state="empty">
      <EmptyState
        title="No tiles yet"
        description={description}
        action={action}
        icon={
          <svg viewBox="0 0 20 20" fill="currentColor">
            <path d="M3 4.5A1.5 1.5 0 0 1 4.5 3h3A1.5 1.5 0 0 1 9 4.5v3A1.5 1.5 0 0 1 7.5 9h-3A1.5 1.5 0 0 1 3 7.5v-3Zm8 0A1.5 1.5 0 0 1 12.5 3h3A1.5 1.5 0 0 1 17 4.5v3A1.5 1.5 0 0 1 15.5 9h-3A1.5 1.5 0 0 1 11 7.5v-3Zm-8 8A1.5 1.5 0 0 1 4.5 11h3A1.5 1.5 0 0 1 9 12.5v3A1.5 1.5 0 0 1 7.5 17h-3A1.5 1.5 0 0 1 3 15.5v-3Zm8 0a1.5 1.5 0 0 1 1.5-1.5h3a1.5 1.5 0 0 1 1.5 1.5v3a1.5 1.5 0 0 1-1.5 1.5h-3a1.5 1.5 0 0 1-1.5-1.5v-3Z" />
          </svg>
        }
      />
    </Card>
  );
}

/** A tile's frame: header (handle, title, actions), body filling the rest, optional footer line. */
export function TileCard({
  title,
  description,
  color,
  handle,
  actions,
  footer,
  children,
  testId,
}: {
  title?: string;
  description?: string;
  color: string | null;
  handle?: ReactNode;
  actions?: ReactNode;
  footer?: ReactNode;
  children: ReactNode;
  testId: string;
}) {
  const accent = color ? ACCENTS[color] : undefined;
  return (
    <Card className={cn("flex h-full flex-col overflow-hidden", accent && cn("border-t-4", accent))} data-testid={testId} data-color={color ?? "white"}>
      {(title || handle || actions) && (
        <div className="flex items-start gap-1.5 px-3 pt-3 pb-1">
          {handle}
          <div className="min-w-0 flex-1 pt-0.5">
            {title && (
              <h2 className="truncate text-sm font-semibold text-gray-900" title={title} data-testid="tile-title">
                {title}
              </h2>
            )}
            {description && (
              <p className="truncate text-xs text-gray-500" title={description}>
                {description}
              </p>
            )}
          </div>
          {actions && <div className="flex shrink-0 items-center gap-0.5">{actions}</div>}
        </div>
      )}
      <div className="min-h-0 flex-1 px-3 pb-2">{children}</div>
      {footer && <div className="border-t border-gray-100 px-3 py-1.5 text-xs text-gray-500">{footer}</div>}
    </Card>
  );
}

export const insightTitle = (insight: { name: string | null; derived_name: string | null }) => insight.name || insight.derived_name || "Untitled insight";

/** An insight's result in its state: computing, failed, nothing in range, or the chart. */
export type InsightTileState =
  | { state: "loading" }
  | { state: "error"; message: string; retry?: ReactNode }
  | { state: "ready"; result: unknown; columns?: unknown; personlessVisitors?: unknown };

/**
 * A tile's body: computing, failed, or the result drawn for its kind (InsightResultView).
 * With `onSelect` (the dashboard page), points that stand for persons can be chosen.
 */
export function InsightTileBody({ query, state, onSelect }: { query: unknown; state: InsightTileState; onSelect?: SelectHandler }) {
  if (state.state === "loading") return <TileSkeleton />;
  if (state.state === "error") {
    return (
      <div className="flex h-full flex-col items-center justify-center gap-2 px-2 text-center" data-testid="tile-body" data-state="error" role="alert">
        <p className="text-sm font-medium text-red-700">Could not compute this insight</p>
        <p className="line-clamp-3 text-xs text-gray-600">{state.message}</p>
        {state.retry}
      </div>
    );
  }
  return <InsightResultView query={query} response={{ results: state.result, columns: state.columns, personlessVisitors: state.personlessVisitors }} onSelect={onSelect} compact />;
}

/** A HogQL result's column names (PostHog's insight `columns`, which the q-api branch adds to results); absent elsewhere. */
export const columnsOf = (computed: object): unknown => (computed as { columns?: unknown }).columns;

/** Bar heights of the skeleton chart, in percent: the shape of a chart, not a spinner. */
const SKELETON_BARS = [45, 70, 55, 85, 60, 75, 40, 90, 65, 50, 80, 58];

/** A chart-shaped placeholder while a tile computes (many tiles loading show as many quiet shapes, not spinners). */
export function TileSkeleton() {
  return (
    <div className="flex h-full flex-col gap-2 pt-1" data-testid="tile-body" data-state="loading" aria-busy="true">
      <span className="sr-only">Computing this insight…</span>
      <div className="h-3 w-1/3 animate-pulse motion-reduce:animate-none rounded bg-gray-100" data-testid="tile-skeleton" aria-hidden="true" />
      <div className="flex min-h-0 flex-1 items-end gap-1.5 border-b border-l border-gray-100 pb-px pl-px" aria-hidden="true">
        {SKELETON_BARS.map((height, index) => (
          <div key={index} className="flex-1 animate-pulse motion-reduce:animate-none rounded-t bg-gray-100" style={{ height: `${height}%`, animationDelay: `${index * 60}ms` }} />
        ))}
      </div>
    </div>
  );
}

export function TextTileBody({ body }: { body: string }) {
  return <MarkdownText body={body} />;
}

/** The public page's tiles: charts the server computes, each shown as soon as its promise settles; nothing to edit. */
export function SharedTiles({ tiles, charts = {} }: { tiles: readonly SharedTile[]; charts?: Record<number, Promise<TileComputation>> }) {
  if (tiles.length === 0) return <EmptyTiles description="This dashboard has nothing on it yet." />;
  return (
    <TileGrid
      tiles={tiles}
      tileName={(tile) => (tile.insight ? insightTitle(tile.insight) : "Text")}
      renderTile={(tile) =>
        tile.insight ? (
          <Suspense fallback={<SharedInsightTile insight={tile.insight} color={tile.color} computation={undefined} />}>
            <StreamedInsightTile insight={tile.insight} color={tile.color} chart={charts[tile.id]} />
          </Suspense>
        ) : (
          <TileCard testId="text-tile" color={tile.color}>
            <div className="pt-3">
              <TextTileBody body={tile.text?.body ?? ""} />
            </div>
          </TileCard>
        )
      }
    />
  );
}

type SharedInsight = NonNullable<SharedTile["insight"]>;

/** A shared insight tile once its chart has come (or the one the tile carries, computed already). */
function StreamedInsightTile({ insight, color, chart }: { insight: SharedInsight; color: string | null; chart: Promise<TileComputation> | undefined }) {
  const computation = chart ? use(chart) : insight.computation;
  return <SharedInsightTile insight={insight} color={color} computation={computation} />;
}

/** A shared insight tile: its chart, its error, or (`computation` undefined) a skeleton while it computes. */
function SharedInsightTile({ insight, color, computation }: { insight: SharedInsight; color: string | null; computation: TileComputation | null | undefined }) {
  return (
    <TileCard
      testId="insight-tile"
      title={insightTitle(insight)}
      description={insight.description || undefined}
      color={color}
      footer={
        computation ? (
          <TileCaption effective={computation.effective} lastRefresh={computation.state === "ready" ? computation.computed_at : null} />
        ) : computation === undefined ? (
          <TileCaption lastRefresh={null} pending />
        ) : undefined
      }
    >
      <InsightTileBody
        query={insight.query}
        state={
          computation === undefined
            ? { state: "loading" }
            : computation === null
              ? { state: "error", message: "This insight was not computed." }
              : computation.state === "error"
                ? { state: "error", message: computation.message }
                : { state: "ready", result: computation.result, columns: columnsOf(computation), personlessVisitors: computation.personlessVisitors }
        }
      />
    </TileCard>
  );
}
