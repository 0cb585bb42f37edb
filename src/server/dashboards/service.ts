/**
 * Dashboards: list, retrieve, create (blank, from a template or as a copy), update, soft
 * delete and restore, and add insight tiles, with PostHog's restriction rules enforced
 * here, so REST and tRPC cannot differ.
 */
import { assertCanEdit, type DashboardPermissions } from "@/server/access/service";
import { changesBetween, logActivity } from "@/server/activity/service";
import { overriddenDateRange, type FiltersOverride } from "@/server/analytics/nodes";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { computeInsight, createInsight, mergeDashboardFilters } from "@/server/insights/service";
import { runnableNode } from "@/server/query/contract";
import { asksForTestAccounts } from "@/server/query/service";
import { normaliseTags, setTags, tagNames } from "@/server/tags/service";
import type { DashboardCreateBody, DashboardListQuery, DashboardResultsQuery, DashboardUpdateBody, NewInsightTile } from "./contract";
import {
  dashboardListItem,
  dashboardResource,
  isShown,
  permissionsOf,
  UNSET_SEED,
  type DashboardListItem,
  type DashboardResource,
  type EffectiveFilters,
  type FilterLeaf,
  type TileResult,
} from "./present";
import {
  deleteTiles,
  findDashboard,
  findDashboardPage,
  insertDashboard,
  restoreTiles,
  setInsightTileLayouts,
  touchDashboard,
  updateDashboardRow,
  type DashboardDetailRow,
} from "./store";
import { findTemplate } from "./templates";
import { INSIGHT_TILE_SIZE, firstFreeRect } from "./tile-layout";
import { applyTilePatches, copyTiles, createTemplateTiles, occupiedRects, withSmall } from "./tiles";

const ACTIVITY_SCOPE = "Dashboard";

export const RESTRICT_DENIED =
  "Only the dashboard owner and project admins have the restriction rights required to change the dashboard's restriction level.";

export async function listDashboards(ctx: Context, query: DashboardListQuery): Promise<{ count: number; results: DashboardListItem[] }> {
  const { count, rows } = await findDashboardPage(
    ctx.db.prisma,
    ctx.project.id,
    ctx.actor.id,
    { deleted: query.deleted ?? false, search: query.search, tags: query.tags && normaliseTags(query.tags) },
    pageWindow(query),
  );
  return { count, results: rows.map((row) => dashboardListItem(row, ctx)) };
}

/**
 * A live (not deleted) dashboard of the project and the caller's permissions on it, or a
 * 404 with `notFound` as its detail (PostHog words it differently per endpoint).
 */
export async function requireDashboard(
  ctx: Context,
  id: number,
  notFound = "Not found.",
): Promise<{ row: DashboardDetailRow; permissions: DashboardPermissions }> {
  const row = await findDashboard(ctx.db.prisma, ctx.project.id, id, ctx.actor.id, false);
  if (!row) throw new AppError("not_found", notFound);
  return { row, permissions: permissionsOf(row, ctx) };
}

/** One dashboard with its tiles; records when it was last opened, as PostHog does. */
export async function getDashboard(ctx: Context, id: number): Promise<DashboardResource> {
  const { row } = await requireDashboard(ctx, id);
  const lastAccessedAt = new Date();
  await touchDashboard(ctx.db.prisma, row.id, lastAccessedAt);
  return dashboardResource({ ...row, lastAccessedAt }, ctx);
}

/**
 * A live dashboard with its tiles for the public page of a share link, which has no caller
 * (so no collaborator row is loaded); null when it is gone or deleted.
 */
export function findPublicDashboard(db: Database, projectId: number, id: number): Promise<DashboardDetailRow | null> {
  // No user has id 0: the view is nobody's, and the presenter shows no people anyway.
  return findDashboard(db.prisma, projectId, id, 0, false);
}

const isEmpty = (value: Record<string, unknown> | undefined | null) => !value || Object.keys(value).length === 0;

export async function createDashboard(ctx: Context, body: DashboardCreateBody): Promise<DashboardResource> {
  const projectId = ctx.project.id;
  const template = body.use_template ? findTemplate(body.use_template) : undefined;
  if (body.use_template && !template) throw new AppError("invalid_input", `Invalid template provided: ${body.use_template}`, "use_template");
  const id = await inTransaction(ctx.db, async (tx) => {
    let source: DashboardDetailRow | null = null;
    if (body.use_dashboard) {
      source = await findDashboard(tx, projectId, body.use_dashboard, ctx.actor.id, false);
      if (!source) throw new AppError("invalid_input", "Invalid value provided", "use_dashboard");
    }
    const created = await insertDashboard(tx, {
      projectId,
      name: body.name || template?.name || null,
      description: body.description || template?.description || "",
      pinned: body.pinned ?? false,
      deleted: body.deleted ?? false,
      restrictionLevel: body.restriction_level,
      creationMode: source ? "duplicate" : template ? "template" : "default",
      filters: !isEmpty(body.filters) ? body.filters : (source?.filters ?? {}),
      variables: !isEmpty(body.variables) ? body.variables : (source?.variables ?? {}),
      breakdownColors: source?.breakdownColors,
      dataColorThemeId: source?.dataColorThemeId ?? null,
      createdById: ctx.actor.id,
    });
    if (source) await copyTiles(tx, ctx, source, created.id, body.duplicate_tiles ?? false);
    if (template) await createTemplateTiles(tx, ctx, created.id, template);
    if (body.tags) await setTags(tx, projectId, { dashboardId: created.id }, body.tags);
    await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: created.id, activity: "created", name: created.name });
    return created.id;
  });
  const row = await findDashboard(ctx.db.prisma, projectId, id, ctx.actor.id);
  return dashboardResource(row!, ctx, {
    use_template: body.use_template ?? "",
    use_dashboard: body.use_dashboard ?? null,
    delete_insights: body.delete_insights ?? false,
  });
}

/** The stored fields of a dashboard that activity records compare. */
function activityFields(row: Pick<DashboardDetailRow, "name" | "description" | "pinned" | "deleted" | "restrictionLevel" | "filters" | "variables">, tags: string[]) {
  return {
    name: row.name,
    description: row.description,
    pinned: row.pinned,
    deleted: row.deleted,
    restriction_level: row.restrictionLevel,
    filters: row.filters,
    variables: row.variables,
    tags,
  };
}

/**
 * PATCH: changes fields, soft-deletes (`deleted: true`, optionally with the insights only
 * this dashboard shows) or restores (`deleted: false` is the one request that finds a
 * deleted dashboard). The caller must be able to edit; changing the restriction level
 * needs the owner or a project admin.
 */
export async function updateDashboard(ctx: Context, id: number, body: DashboardUpdateBody): Promise<DashboardResource> {
  const projectId = ctx.project.id;
  await inTransaction(ctx.db, async (tx) => {
    const row = await findDashboard(tx, projectId, id, ctx.actor.id, body.deleted === false ? undefined : false);
    if (!row) throw new AppError("not_found", "Not found.");
    const permissions = permissionsOf(row, ctx);
    assertCanEdit(permissions);
    if (body.restriction_level !== undefined && !permissions.canRestrict) throw new AppError("permission_denied", RESTRICT_DENIED);

    const deleting = body.deleted === true && !row.deleted;
    const restoring = body.deleted === false && row.deleted;
    const updated = await updateDashboardRow(tx, id, {
      name: body.name,
      description: body.description,
      pinned: body.pinned,
      deleted: body.deleted,
      restrictionLevel: body.restriction_level,
      filters: body.filters,
      variables: body.variables,
    });
    if (body.tiles) await applyTilePatches(tx, ctx, id, body.tiles);
    if (deleting) await deleteTiles(tx, id, body.delete_insights ?? false);
    if (restoring) await restoreTiles(tx, id);

    const tagsBefore = tagNames(row.taggedItems);
    let tagsAfter = tagsBefore;
    if (body.tags !== undefined) {
      await setTags(tx, projectId, { dashboardId: id }, body.tags);
      tagsAfter = normaliseTags(body.tags).sort();
    }
    const changes = changesBetween(activityFields(row, tagsBefore), activityFields(updated, tagsAfter));
    if (changes.length > 0) {
      const activity = deleting ? "deleted" : restoring ? "restored" : "updated";
      await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity, name: updated.name, changes });
    }
  });
  const row = await findDashboard(ctx.db.prisma, projectId, id, ctx.actor.id);
  return dashboardResource(row!, ctx, { ...UNSET_SEED, delete_insights: body.delete_insights ?? false });
}

/**
 * Adds an insight tile at the first free spot: the insight is created (and its query
 * checked) by the insights service, which puts it on the dashboard; then the tile gets its
 * place. Answers the dashboard.
 */
export async function addInsightTile(ctx: Context, dashboardId: number, body: NewInsightTile): Promise<DashboardResource> {
  const { permissions } = await requireDashboard(ctx, dashboardId);
  assertCanEdit(permissions);
  const taken = await occupiedRects(ctx.db.prisma, dashboardId);
  const insight = await createInsight(ctx, { ...body, saved: true, dashboards: [dashboardId] });
  await setInsightTileLayouts(ctx.db.prisma, dashboardId, insight.id, withSmall({}, firstFreeRect(taken, INSIGHT_TILE_SIZE)));
  const row = await findDashboard(ctx.db.prisma, ctx.project.id, dashboardId, ctx.actor.id, false);
  if (!row) throw new AppError("not_found", "Not found.");
  return dashboardResource(row, ctx);
}

/*
 * Every insight tile of a dashboard computed in one call: the dashboard page asks once
 * (not once per tile) and gets each tile's result as soon as it is computed; the shared
 * page computes the same way and streams each chart into its one response. Tiles run concurrently, a few at
 * a time, so twelve tiles neither wait in line nor take every database connection. Each
 * tile carries what it was computed under (date range, property filters), for its caption.
 */

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

/**
 * Runs `work` over `items`, at most `limit` at a time, and yields each answer (with its
 * item's index) as soon as it is ready. The first failure is thrown once the answers before
 * it are yielded; a consumer that stops early (a closed request) stops lanes starting more.
 */
export async function* mapAsCompleted<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): AsyncGenerator<{ index: number; value: R }> {
  const ready: { index: number; value: R }[] = [];
  let failure = null as { error: unknown } | null;
  let stopped = false;
  let wake = null as (() => void) | null;
  let next = 0;
  const lane = async () => {
    while (!stopped && failure === null && next < items.length) {
      const index = next++;
      try {
        ready.push({ index, value: await work(items[index]!) });
      } catch (error) {
        failure ??= { error };
      }
      wake?.();
    }
  };
  for (let count = 0; count < Math.min(limit, items.length); count++) void lane();
  try {
    for (let yielded = 0; yielded < items.length; ) {
      const answer = ready.shift();
      if (answer) {
        yielded++;
        yield answer;
      } else if (failure) {
        throw failure.error;
      } else {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    }
  } finally {
    stopped = true;
  }
}

type DashboardTile = DashboardDetailRow["tiles"][number];

/** How to compute a dashboard's tiles: under its filters or `override` instead, from the cache unless `refresh`, all insight tiles or `only` these. */
export interface TileComputationOptions {
  override: FiltersOverride | null;
  refresh?: boolean;
  only?: readonly number[];
}

/** The shown insight tiles of a dashboard (or of them, the ones in `only`). */
function insightTiles(row: DashboardDetailRow, only: readonly number[] | undefined): DashboardTile[] {
  return row.tiles.filter(isShown).filter((tile) => tile.insight !== null && (!only || only.includes(tile.id)));
}

/**
 * One insight tile computed under the dashboard's filters — or under `override` instead (the
 * page's temporary filters, from its URL), the tile's own overrides on top — from the cache
 * while fresh unless `refresh`. A tile whose query cannot run carries its error.
 */
async function computeTile(db: Database, row: DashboardDetailRow, tile: DashboardTile, override: FiltersOverride | null, refresh: boolean): Promise<TileResult> {
  const insight = tile.insight!;
  const node = runnableNode(insight.query)?.node ?? {};
  const effective = (filters: FiltersOverride | null): EffectiveFilters => ({
    ...overriddenDateRange(node.dateRange as { date_from?: string | null; date_to?: string | null } | undefined, filters),
    dashboard_properties: filterLeaves(filters?.properties),
    insight_properties: filterLeaves(node.properties),
    filter_test_accounts: asksForTestAccounts(insight.query, filters),
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
      personlessVisitors: computed.personlessVisitors,
      is_cached: computed.is_cached,
      last_refresh: computed.last_refresh,
      timezone: computed.timezone,
      resolved_date_range: computed.resolved_date_range,
    };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { tile_id: tile.id, effective: effective(filters), state: "error", message: error.message };
  }
}

/** The insight tiles of a loaded dashboard, each yielded as soon as it is computed (the dashboard page and the shared one). */
export async function* computeTilesAsCompleted(db: Database, row: DashboardDetailRow, options: TileComputationOptions): AsyncGenerator<TileResult> {
  const tiles = insightTiles(row, options.only);
  for await (const { value } of mapAsCompleted(tiles, TILE_CONCURRENCY, (tile) => computeTile(db, row, tile, options.override, options.refresh ?? false))) yield value;
}

/**
 * tRPC `dashboards.results`: the insight tiles of a dashboard the caller can see, each as
 * soon as it is computed. The dashboard is looked up first, so a missing one is an error of
 * the call rather than of the stream.
 */
export async function dashboardResults(ctx: Context, id: number, query: DashboardResultsQuery): Promise<AsyncGenerator<TileResult>> {
  const { row } = await requireDashboard(ctx, id);
  return computeTilesAsCompleted(ctx.db, row, { override: query.filters ?? null, refresh: query.refresh ?? false, only: query.tileIds });
}
