/**
 * Every insight tile of a dashboard computed in one call: the dashboard page asks once
 * (not once per tile) and the shared page computes the same way. Tiles run concurrently,
 * a few at a time, so twelve tiles neither wait in line nor take every database connection.
 * Each tile carries what it was computed under (date range, property filters), for its caption.
 */
import type { Database } from "@/server/db/client";
import { overriddenDateRange, type FiltersOverride } from "@/server/analytics/nodes";
import type { Context } from "@/server/context";
import { AppError } from "@/server/errors";
import { computeInsight, mergeDashboardFilters } from "@/server/insights/service";
import { runnableNode } from "@/server/query/contract";
import type { DashboardResultsQuery } from "./contract";
import { isShown, type EffectiveFilters, type FilterLeaf, type TileResult } from "./present";
import { requireDashboard } from "./service";
import type { DashboardDetailRow } from "./store";

/** How many tiles compute at once: enough to overlap their queries, few enough to leave connections for others. */
export const TILE_CONCURRENCY = 4;

/** The leaves of a property filter as stored (a list, or `{type, values}` groups nested), for display only. */
export function filterLeaves(properties: unknown, depth = 0): FilterLeaf[] {
  if (depth > 8 || properties === null || properties === undefined) return [];
  const list = Array.isArray(properties) ? properties : typeof properties === "object" && Array.isArray((properties as { values?: unknown }).values) ? (properties as { values: unknown[] }).values : [];
  return list.flatMap((item): FilterLeaf[] => {
    if (!item || typeof item !== "object") return [];
    const node = item as Record<string, unknown>;
    if (Array.isArray(node.values) && (node.type === "AND" || node.type === "OR")) return filterLeaves(node, depth + 1);
    if (typeof node.key !== "string" && typeof node.key !== "number") return [];
    return [{ type: String(node.type ?? "event"), key: String(node.key), operator: String(node.operator ?? "exact"), value: node.value ?? null }];
  });
}

/** Runs `work` over `items`, at most `limit` at a time, answers in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      answers[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return answers;
}

/**
 * The insight tiles of a loaded dashboard computed under its filters — or under `override`
 * instead (the page's temporary filters, from its URL), each tile's own overrides on top —
 * from the cache while fresh unless `refresh`. A tile whose query cannot run carries its error.
 */
export async function computeTiles(db: Database, row: DashboardDetailRow, override: FiltersOverride | null, refresh = false, only?: readonly number[]): Promise<TileResult[]> {
  const tiles = row.tiles.filter(isShown).filter((tile) => tile.insight !== null && (!only || only.includes(tile.id)));
  return mapConcurrently(tiles, TILE_CONCURRENCY, async (tile): Promise<TileResult> => {
    const insight = tile.insight!;
    const node = runnableNode(insight.query)?.node ?? {};
    const effective = (filters: FiltersOverride | null): EffectiveFilters => ({
      ...overriddenDateRange(node.dateRange as { date_from?: string | null; date_to?: string | null } | undefined, filters),
      dashboard_properties: filterLeaves(filters?.properties),
      insight_properties: filterLeaves(node.properties),
    });
    let filters: FiltersOverride | null = null;
    try {
      filters = mergeDashboardFilters(override ?? row.filters, tile.filtersOverrides);
      const computed = await computeInsight(db, row.projectId, { id: insight.id, query: insight.query }, { filtersOverride: filters, refresh: refresh ? "force" : "blocking" });
      return {
        tile_id: tile.id,
        effective: effective(filters),
        state: "ready",
        result: computed.result ?? [],
        hasMore: computed.hasMore,
        columns: computed.columns,
        is_cached: computed.is_cached,
        last_refresh: computed.last_refresh,
        timezone: computed.timezone,
        resolved_date_range: computed.resolved_date_range,
      };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { tile_id: tile.id, effective: effective(filters), state: "error", message: error.message };
    }
  });
}

/** tRPC `dashboards.results`: every insight tile of a dashboard the caller can see, in one answer. */
export async function dashboardResults(ctx: Context, id: number, query: DashboardResultsQuery): Promise<{ results: TileResult[] }> {
  const { row } = await requireDashboard(ctx, id);
  return { results: await computeTiles(ctx.db, row, query.filters ?? null, query.refresh ?? false, query.tileIds) };
}
