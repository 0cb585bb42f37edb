"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { Button, ErrorState, Popover, popoverItemClasses, Spinner } from "@/components/ui";
import type { z } from "zod";
import { TILE_COLORS, type tilePatchSchema } from "@/server/dashboards/contract";
import type { TileRect } from "@/server/dashboards/tile-layout";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { EmptyTiles, InsightTileBody, insightTitle, TextTileBody, TileCard } from "./dashboard-tiles";
import { filtersBody, type DashboardFilters } from "./dashboard-filters-state";
import { TileCaption } from "./tile-caption";
import type { ActorsSelection } from "@/components/insights/actors-query";
import { PersonsDialog } from "@/components/insights/persons-dialog";
import { TileGrid, type TileControls } from "./tile-grid";
import { AddInsightDialog, TextTileDialog } from "./tile-dialogs";
import type { DashboardData, TileResultData } from "./types";

type Tile = DashboardData["tiles"][number];
type Open = null | "insight" | "text" | { edit: { id: number; body: string } };

/**
 * The dashboard page's tiles: every insight's result in one request (`dashboards.results`,
 * cached on the server), streamed so that each tile shows as soon as it is computed; "Refresh
 * all" recomputes them (streamed the same way), a tile's refresh button just its own; under
 * the page's filters; texts; and for editors adding, moving, resizing, recoloring and
 * removing tiles.
 */
export function EditableTiles({ projectId, dashboard, filters }: { projectId: number; dashboard: DashboardData; filters: DashboardFilters | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = dashboard.user_access_level === "editor";
  const [open, setOpen] = useState<Open>(null);
  const dashboardKey = trpc.dashboards.get.queryKey({ projectId, dashboardId: dashboard.id });
  // Memoised: the grid drops its unsaved positions when (and only when) the tiles change.
  const tiles = useMemo(() => dashboard.tiles.filter((tile) => (tile.insight ? !tile.insight.deleted : tile.text !== null)), [dashboard.tiles]);
  const override = filters ? filtersBody(filters) : null;
  const resultsInput = { projectId, dashboardId: dashboard.id, filters: override };
  const resultsOptions = trpc.dashboards.results.queryOptions(resultsInput);
  // The data grows as tiles arrive: an array of the results so far, in the order they were computed.
  const results = useQuery({ ...resultsOptions, enabled: tiles.some((tile) => tile.insight) });
  // "Refresh all" streams into its own entry; watched (never fetched by itself) to show each tile as it comes.
  const refreshOptions = trpc.dashboards.results.queryOptions({ ...resultsInput, refresh: true });
  const refreshed = useQuery({ ...refreshOptions, enabled: false });
  const refreshAll = useMutation({
    mutationFn: () => {
      // Emptied first: the last refresh's results must not pass for this one's while its stream starts.
      queryClient.setQueryData(refreshOptions.queryKey, []);
      return queryClient.fetchQuery({ ...refreshOptions, staleTime: 0 });
    },
    onSuccess: (fresh) => queryClient.setQueryData(resultsOptions.queryKey, fresh),
  });
  // tRPC empties a streamed query's data when it fetches again (after a tile is saved, say):
  // until a tile's new result comes, its last one under the same filters stays on screen.
  const resultsKey = JSON.stringify(resultsOptions.queryKey);
  const lastResults = useRef<{ key: string; byTile: Map<number, NonNullable<typeof results.data>[number]> }>({ key: "", byTile: new Map() });
  const byTile = useMemo(() => {
    const earlier = lastResults.current.key === resultsKey ? lastResults.current.byTile : new Map();
    const merged = new Map([...earlier, ...(results.data ?? []).map((result) => [result.tile_id, result] as const)]);
    lastResults.current = { key: resultsKey, byTile: merged };
    return merged;
  }, [results.data, resultsKey]);
  const freshByTile = useMemo(() => new Map((refreshed.data ?? []).map((result) => [result.tile_id, result])), [refreshed.data]);
  const insightTiles = tiles.filter((tile) => tile.insight).length;
  // A tile added since the results came (or restored) has none yet: ask again, once per change of tiles.
  const missing = results.isSuccess && !results.isFetching && tiles.some((tile) => tile.insight && !byTile.has(tile.id));
  useEffect(() => {
    if (missing) void results.refetch();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- refetch is stable enough; only a change of tiles asks
  }, [missing, tiles]);

  /** One tile recomputed (its refresh button), under the same filters: its entry of the results replaced. */
  async function refreshTile(tile: Tile) {
    const fresh = await queryClient.fetchQuery({ ...trpc.dashboards.results.queryOptions({ ...resultsInput, refresh: true, tileIds: [tile.id] }), staleTime: 0 });
    const entry = fresh[0];
    if (!entry) return;
    queryClient.setQueryData(resultsOptions.queryKey, (old) => (old ? [...old.filter((result) => result.tile_id !== tile.id), entry] : old));
  }

  /** A tile's result to show: while "Refresh all" runs, its fresh one once it has come (until then it loads). */
  const tileResult = (id: number) => (refreshAll.isPending ? freshByTile.get(id) : byTile.get(id));
  const tileLoading = (id: number) => (refreshAll.isPending ? !freshByTile.has(id) : results.isPending || (results.isFetching && !byTile.has(id)));

  const update = useMutation(
    trpc.dashboards.tiles.update.mutationOptions({
      onSuccess: (saved) => queryClient.setQueryData(dashboardKey, saved),
    }),
  );
  // One save at a time, in order: answers to quick successive moves must not arrive reordered.
  const saving = useRef<Promise<unknown>>(Promise.resolve());
  const patch: Patch = (patches) => {
    const next = saving.current.catch(() => undefined).then(() => update.mutateAsync({ projectId, dashboardId: dashboard.id, tiles: patches }));
    saving.current = next;
    return next;
  };
  const commitLayout = (changed: Map<number, TileRect>) => patch([...changed].map(([id, rect]) => ({ id, layouts: { sm: { ...rect } } })));

  const toolbar = (
    <div className="flex flex-wrap items-center gap-2" data-testid="tiles-toolbar">
      {canEdit && (
        <>
          <Button size="sm" onClick={() => setOpen("insight")} data-testid="add-insight">
            Add insight
          </Button>
          <Button size="sm" variant="secondary" onClick={() => setOpen("text")} data-testid="add-text">
            Add text
          </Button>
        </>
      )}
      {insightTiles > 0 && (
        <Button size="sm" variant="secondary" loading={refreshAll.isPending} onClick={() => refreshAll.mutate()} data-testid="refresh-all">
          Refresh all
        </Button>
      )}
      {refreshAll.isPending && (
        <span className="flex items-center gap-2 text-sm text-gray-600" data-testid="refresh-progress">
          <span
            className="relative h-1.5 w-24 overflow-hidden rounded-full bg-gray-100"
            role="progressbar"
            aria-label={`Refreshing ${insightTiles} tiles`}
            aria-valuemin={0}
            aria-valuemax={insightTiles}
            aria-valuenow={freshByTile.size}
          >
            <span className="absolute inset-y-0 left-0 animate-pulse motion-reduce:animate-none rounded-full bg-brand-600 transition-[width]" style={{ width: `${Math.max(10, (100 * freshByTile.size) / Math.max(1, insightTiles))}%` }} />
          </span>
          Refreshing {insightTiles} tile{insightTiles === 1 ? "" : "s"}… <span className="tabular-nums">{freshByTile.size}/{insightTiles}</span>
        </span>
      )}
      {refreshAll.isSuccess && !refreshAll.isPending && (
        <span className="text-sm text-gray-500" role="status" data-testid="refresh-done">
          Refreshed {refreshAll.data.length} tile{refreshAll.data.length === 1 ? "" : "s"}
        </span>
      )}
      {update.isPending && (
        <span className="flex items-center gap-1.5 text-sm text-gray-500" role="status">
          <Spinner label={null} /> Saving…
        </span>
      )}
    </div>
  );

  return (
    <section className="flex flex-col gap-3" aria-label="Dashboard tiles">
      {toolbar}
      {update.isError && <ErrorState title="Could not save the tiles" message={errorMessage(update.error)} />}
      {results.isError && (
        <ErrorState title="Could not compute the tiles" message={errorMessage(results.error)} onRetry={() => void results.refetch()} retrying={results.isRefetching} />
      )}
      {refreshAll.isError && <ErrorState title="Could not refresh the tiles" message={errorMessage(refreshAll.error)} />}
      {tiles.length === 0 ? (
        <EmptyTiles
          description={canEdit ? "Add an insight to chart your events, or a text to explain what the dashboard is for." : "Insights and text added to this dashboard will appear here."}
        />
      ) : (
        <TileGrid
          tiles={tiles}
          editable={canEdit}
          onCommit={commitLayout}
          tileName={(tile) => (tile.insight ? insightTitle(tile.insight) : "text tile")}
          renderTile={(tile, controls) =>
            tile.insight ? (
              <InsightTile
                projectId={projectId}
                tile={tile}
                insight={tile.insight}
                dashboardId={dashboard.id}
                canEdit={canEdit}
                controls={controls}
                result={tileResult(tile.id)}
                loading={tileLoading(tile.id)}
                failed={results.isError}
                onRefresh={() => refreshTile(tile)}
                onPatch={patch}
              />
            ) : (
              <TileCard
                testId="text-tile"
                color={tile.color}
                handle={controls.moveHandle}
                actions={canEdit ? <TileMenu tile={tile} onPatch={patch} onEdit={() => setOpen({ edit: { id: tile.id, body: tile.text?.body ?? "" } })} /> : undefined}
              >
                <TextTileBody body={tile.text?.body ?? ""} />
              </TileCard>
            )
          }
        />
      )}
      <AddInsightDialog projectId={projectId} dashboardId={dashboard.id} open={open === "insight"} onClose={() => setOpen(null)} />
      <TextTileDialog
        projectId={projectId}
        dashboardId={dashboard.id}
        tile={open && typeof open === "object" ? open.edit : undefined}
        open={open === "text" || (open !== null && typeof open === "object")}
        onClose={() => setOpen(null)}
      />
    </section>
  );
}

type Patch = (patches: z.input<typeof tilePatchSchema>[]) => Promise<unknown>;

function InsightTile({
  projectId,
  tile,
  insight,
  dashboardId,
  canEdit,
  controls,
  result,
  loading,
  failed,
  onRefresh,
  onPatch,
}: {
  projectId: number;
  tile: Tile;
  insight: NonNullable<Tile["insight"]>;
  dashboardId: number;
  canEdit: boolean;
  controls: TileControls;
  result: TileResultData | undefined;
  loading: boolean;
  failed: boolean;
  onRefresh: () => Promise<void>;
  onPatch: Patch;
}) {
  const [refreshing, setRefreshing] = useState(false);
  const [refreshError, setRefreshError] = useState<string | null>(null);
  /** The point whose persons the dialog lists. */
  const [persons, setPersons] = useState<ActorsSelection | null>(null);

  async function refresh() {
    setRefreshing(true);
    setRefreshError(null);
    try {
      await onRefresh();
    } catch (error) {
      setRefreshError(errorMessage(error));
    } finally {
      setRefreshing(false);
    }
  }

  const title = insightTitle(insight);
  const retry = (
    <Button size="sm" variant="secondary" onClick={() => void refresh()} data-testid="tile-retry">
      Try again
    </Button>
  );
  const state =
    loading || refreshing || (!result && !failed)
      ? ({ state: "loading" } as const)
      : refreshError !== null
        ? ({ state: "error", message: refreshError, retry } as const)
        : !result
          ? ({ state: "error", message: "The dashboard's results could not be loaded.", retry } as const)
          : result.state === "error"
            ? ({ state: "error", message: result.message, retry } as const)
            : ({ state: "ready", result: result.result, columns: result.columns ?? undefined, personlessVisitors: result.personlessVisitors } as const);

  return (
    <TileCard
      testId="insight-tile"
      title={title}
      description={insight.description || undefined}
      color={tile.color}
      handle={controls.moveHandle}
      footer={<TileCaption effective={result?.effective} lastRefresh={result?.state === "ready" ? result.last_refresh : null} pending={state.state === "loading"} />}
      actions={
        <>
          <button
            type="button"
            className="inline-flex size-7 items-center justify-center rounded-control text-gray-500 hover:bg-gray-100 hover:text-gray-800 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:opacity-50"
            aria-label={`Refresh ${title}`}
            onClick={() => void refresh()}
            disabled={refreshing}
            data-testid="tile-refresh"
          >
            <svg viewBox="0 0 20 20" fill="currentColor" className="size-4" aria-hidden="true">
              <path
                fillRule="evenodd"
                d="M15.312 11.424a5.5 5.5 0 0 1-9.201 2.466l-.312-.311h2.433a.75.75 0 0 0 0-1.5H3.989a.75.75 0 0 0-.75.75v4.242a.75.75 0 0 0 1.5 0v-2.43l.31.31a7 7 0 0 0 11.712-3.138.75.75 0 0 0-1.449-.39Zm1.23-3.723a.75.75 0 0 0 .219-.53V2.929a.75.75 0 0 0-1.5 0V5.36l-.31-.31A7 7 0 0 0 3.239 8.188a.75.75 0 1 0 1.448.389A5.5 5.5 0 0 1 13.89 6.11l.311.31h-2.432a.75.75 0 0 0 0 1.5h4.243a.75.75 0 0 0 .53-.219Z"
                clipRule="evenodd"
              />
            </svg>
          </button>
          {canEdit && <TileMenu tile={tile} onPatch={onPatch} editHref={`/insights/${encodeURIComponent(insight.short_id)}?dashboard=${dashboardId}`} />}
        </>
      }
    >
      <InsightTileBody query={insight.query} state={state} onSelect={setPersons} />
      <PersonsDialog projectId={projectId} selection={persons} onClose={() => setPersons(null)} />
    </TileCard>
  );
}

const COLOR_LABELS: Record<(typeof TILE_COLORS)[number], string> = { white: "No color", black: "Black", blue: "Blue", green: "Green", purple: "Purple" };

/** A tile's menu: edit (texts here, insights in the editor), color, remove. */
function TileMenu({ tile, onPatch, onEdit, editHref }: { tile: Tile; onPatch: Patch; onEdit?: () => void; editHref?: string }) {
  return (
    <Popover
      align="end"
      buttonLabel="Tile options"
      buttonTestId="tile-menu"
      buttonClassName="inline-flex size-7 items-center justify-center rounded-control text-gray-500 hover:bg-gray-100 hover:text-gray-800 focus-visible:outline-2 focus-visible:outline-brand-600"
      panelTestId="tile-menu-panel"
      button={
        <svg viewBox="0 0 20 20" fill="currentColor" className="size-4" aria-hidden="true">
          <path d="M10 3a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm0 5.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm1.5 7a1.5 1.5 0 1 0-3 0 1.5 1.5 0 0 0 3 0Z" />
        </svg>
      }
    >
      {(close) => (
        <>
          {onEdit && (
            <button
              type="button"
              className={popoverItemClasses}
              onClick={() => {
                close();
                onEdit();
              }}
              data-testid="tile-edit-text"
            >
              Edit text
            </button>
          )}
          {editHref && (
            <Link href={editHref} className={popoverItemClasses} onClick={() => close()} data-testid="tile-edit-insight">
              Edit
            </Link>
          )}
          <p className="px-3.5 pt-1.5 pb-1 text-xs font-medium text-gray-500 uppercase">Color</p>
          {TILE_COLORS.map((color) => (
            <button
              key={color}
              type="button"
              className={popoverItemClasses}
              aria-pressed={(tile.color ?? "white") === color}
              onClick={() => {
                close();
                void onPatch([{ id: tile.id, color: color === "white" ? null : color }]);
              }}
              data-testid={`tile-color-${color}`}
            >
              <span className={`size-3 rounded-full ring-1 ring-gray-300 ${COLOR_SWATCHES[color]}`} aria-hidden="true" />
              {COLOR_LABELS[color]}
            </button>
          ))}
          <div className="my-1 border-t border-gray-100" />
          <button
            type="button"
            className={`${popoverItemClasses} text-red-700`}
            onClick={() => {
              close();
              void onPatch([{ id: tile.id, deleted: true }]);
            }}
            data-testid="tile-remove"
          >
            Remove from dashboard
          </button>
        </>
      )}
    </Popover>
  );
}

const COLOR_SWATCHES: Record<(typeof TILE_COLORS)[number], string> = { white: "bg-white", black: "bg-gray-900", blue: "bg-blue-500", green: "bg-green-500", purple: "bg-purple-500" };
