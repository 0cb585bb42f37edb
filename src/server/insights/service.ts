/**
 * Insights: list, retrieve (with the computed result), create, update, soft delete and
 * restore; and `computeInsight`, which answers an insight or a bare query from the cache or
 * by computing it — the one path for REST, tRPC, dashboards and shared pages.
 */
import { randomInt } from "node:crypto";
import { changesBetween, logActivity } from "@/server/activity/service";
import { NO_INSIGHT_EDIT_PERMISSION } from "@/server/access/contract";
import { canEditInsight, dashboardPermissions } from "@/server/access/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db/client";
import { inTransaction, type DbClient, type Tx } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { checkQuery, computeQuery, projectZone, type QueryOptions } from "@/server/query/service";
import { normaliseTags, setTags, tagNames } from "@/server/tags/service";
import { filtersOverrideSchema, type FiltersOverride, type InsightCreateBody, type InsightListQuery, type InsightUpdateBody } from "./contract";
import { isoInZone } from "@/server/analytics/date-range";
import { insightResource, type ComputedInsight, type InsightResource } from "./present";
import {
  findDashboardAccess,
  findDashboardFilters,
  findDashboardsShowing,
  findInsight,
  findInsightPage,
  findInsightTiles,
  insertInsight,
  insertTile,
  recordLastRefresh,
  removeTiles,
  restoreTile,
  updateInsightRow,
  type InsightRow,
} from "./store";

const ACTIVITY_SCOPE = "Insight";

export { clearQueryCache as clearInsightCache } from "@/server/query/service";

/** PostHog's short ids (generate_short_id): 8 letters and digits. */
const SHORT_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
export function newInsightShortId(): string {
  let id = "";
  for (let i = 0; i < 8; i++) id += SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)];
  return id;
}

const notComputed = (zone: string): ComputedInsight => ({
  result: null,
  hasMore: false,
  columns: null,
  personlessVisitors: null,
  is_cached: false,
  computed_at: null,
  last_refresh: null,
  cache_target_age: null,
  timezone: zone,
  resolved_date_range: null,
});

/** A saved insight (with its id, so that it records `last_refresh`), or a bare query node as `{query}`. */
export interface InsightSource {
  id?: number | null;
  query: unknown;
}

export type ComputeOptions = QueryOptions;

/**
 * The result of an insight or query, in the project's time zone: from the cache while it
 * is fresh, else computed (query/service.ts). A saved insight records when it was last
 * computed.
 */
export async function computeInsight(db: Database, projectId: number, source: InsightSource, options: ComputeOptions = {}): Promise<ComputedInsight> {
  const insightId = source.id ?? null;
  const computed = await computeQuery(db, projectId, source.query, options);
  const { answer, zone } = computed;
  if (!answer) return notComputed(zone);
  if (insightId !== null && !computed.cached) await recordLastRefresh(db.prisma, projectId, insightId, computed.computedAt!);
  const computedAt = computed.computedAt!.toISOString();
  return {
    result: answer.results as unknown[],
    hasMore: answer.extra?.hasMore === true,
    columns: Array.isArray(answer.extra?.columns) ? answer.extra.columns : null,
    personlessVisitors: typeof answer.extra?.personlessVisitors === "number" ? answer.extra.personlessVisitors : null,
    is_cached: computed.cached,
    computed_at: computedAt,
    last_refresh: computedAt,
    cache_target_age: computed.freshUntil!.toISOString(),
    timezone: zone,
    resolved_date_range: answer.range ? { date_from: isoInZone(answer.range.from, zone), date_to: isoInZone(answer.range.to, zone) } : null,
  };
}

/**
 * The filters a dashboard lays over one of its insights: the dashboard's own, then its
 * tile's overrides, then `override` (each later one's fields win).
 */
export async function dashboardFiltersFor(
  db: Database,
  projectId: number,
  dashboardId: number,
  insightId: number,
  override: FiltersOverride | null = null,
): Promise<FiltersOverride> {
  const dashboard = await findDashboardFilters(db.prisma, projectId, dashboardId, insightId);
  if (!dashboard) throw new AppError("invalid_input", `Dashboard ${dashboardId} does not exist.`, "from_dashboard");
  return mergeDashboardFilters(dashboard.filters, dashboard.tileOverrides, override);
}

/**
 * The dashboard's stored filters, then a tile's overrides, then `override` (each later
 * one's set fields win): what a tile's insight is computed under. Stored filters the
 * insights cannot read are a 400 naming `from_dashboard`.
 */
export function mergeDashboardFilters(filters: unknown, tileOverrides: unknown, override: FiltersOverride | null = null): FiltersOverride {
  const asObject = (value: unknown) => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  const merged = { ...asObject(filters), ...asObject(tileOverrides) };
  const result = filtersOverrideSchema.safeParse(merged);
  if (!result.success) {
    throw new AppError("invalid_input", `The dashboard's filters are not supported: ${result.error.issues[0]!.message}`, "from_dashboard");
  }
  const defined = (value: object) => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined && item !== null));
  return { ...defined(result.data), ...defined(override ?? {}) } as FiltersOverride;
}

// ---------------------------------------------------------------------------------------
// The insight resource

/** An insight of the project, live unless `state` is "any", or 404. */
async function requireInsight(client: DbClient, projectId: number, id: number, state: "live" | "any" = "live"): Promise<InsightRow> {
  const row = await findInsight(client, projectId, id, state);
  if (!row) throw new AppError("not_found", "Not found.");
  return row;
}

/**
 * A page of live insights, most recently changed first. Results are not computed here:
 * each carries its cached result when there is a fresh one (`is_cached`), else null.
 */
export async function listInsights(ctx: Context, query: InsightListQuery): Promise<{ count: number; results: InsightResource[] }> {
  const { db, project } = ctx;
  const projectId = project.id;
  const filter = { shortId: query.short_id, saved: query.saved, favorited: query.favorited, search: query.search?.trim() || undefined };
  const zone = await projectZone(db.prisma, projectId);
  const { count, rows } = await findInsightPage(db.prisma, projectId, filter, pageWindow(query));
  const results = await Promise.all(
    rows.map(async (row) => {
      let computed = notComputed(zone);
      try {
        computed = await computeInsight(db, projectId, row, { refresh: "cache_only" });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
      }
      return insightResource(row, computed);
    }),
  );
  return { count, results };
}

export interface RetrieveOptions extends ComputeOptions {
  /** Lay this dashboard's filters (and its tile's) over the insight. */
  fromDashboard?: number;
}

async function computeRow(db: Database, projectId: number, row: InsightRow, options: RetrieveOptions): Promise<ComputedInsight> {
  const filtersOverride =
    options.fromDashboard !== undefined
      ? await dashboardFiltersFor(db, projectId, options.fromDashboard, row.id, options.filtersOverride ?? null)
      : (options.filtersOverride ?? null);
  return computeInsight(db, projectId, row, { ...options, filtersOverride });
}

/**
 * The result of a live insight of the project (404 otherwise), as `getInsight` computes it.
 * Takes no actor: shared dashboards compute their tiles with it too.
 */
export async function computeSavedInsight(db: Database, projectId: number, id: number, options: RetrieveOptions = {}): Promise<ComputedInsight> {
  return computeRow(db, projectId, await requireInsight(db.prisma, projectId, id), options);
}

/** A live insight of the project as callers with no user see it (subscriptions' deliveries); null when gone or deleted. */
export async function findLiveInsight(db: Database, projectId: number, id: number): Promise<{ id: number; shortId: string; name: string; query: unknown } | null> {
  const row = await findInsight(db.prisma, projectId, id, "live");
  return row ? { id: row.id, shortId: row.shortId, name: row.name || row.derivedName || "Untitled insight", query: row.query } : null;
}

/** One live insight with its result (cached or computed, see `computeInsight`). */
export async function getInsight(ctx: Context, id: number, options: RetrieveOptions = {}): Promise<InsightResource> {
  const row = await requireInsight(ctx.db.prisma, ctx.project.id, id);
  return insightResource(row, await computeRow(ctx.db, ctx.project.id, row, options));
}

/** What the editors ask to compute: a saved insight (optionally as shown on a dashboard) or an unsaved query. */
export interface ComputeRequest extends Pick<ComputeOptions, "refresh" | "filtersOverride"> {
  insightId?: number;
  query?: unknown;
  dashboardId?: number;
}

/** The result alone, of a saved insight (`insightId`, on `dashboardId` if given) or of a bare `query` (e.g. while editing). */
export async function computeResult(ctx: Context, request: ComputeRequest): Promise<ComputedInsight> {
  const options = { refresh: request.refresh, fromDashboard: request.dashboardId, filtersOverride: request.filtersOverride ?? null };
  if (request.insightId !== undefined) return computeSavedInsight(ctx.db, ctx.project.id, request.insightId, options);
  if (request.dashboardId !== undefined) throw new AppError("invalid_input", "dashboardId needs insightId.", "dashboardId");
  return computeInsight(ctx.db, ctx.project.id, { query: request.query }, options);
}

/**
 * Puts the insight on exactly `dashboardIds` (live dashboards of the project the caller may
 * edit): a tile on each new one (a removed tile comes back), the tiles on others removed.
 */
async function placeOnDashboards(tx: Tx, ctx: Context, insightId: number, dashboardIds: number[]) {
  const projectId = ctx.project.id;
  const wanted = [...new Set(dashboardIds)];
  const tiles = await findInsightTiles(tx, insightId);
  const current = new Set(tiles.filter((tile) => !tile.deleted).map((tile) => tile.dashboardId));
  const changed = [...wanted.filter((id) => !current.has(id)), ...[...current].filter((id) => !wanted.includes(id))];
  for (const dashboardId of changed) {
    const dashboard = await findDashboardAccess(tx, projectId, dashboardId, ctx.actor.id);
    if (!dashboard) throw new AppError("invalid_input", `Invalid pk "${dashboardId}" - object does not exist.`, "dashboards");
    if (!dashboardPermissions(dashboard, ctx, dashboard.collaboratorLevel).canEdit) {
      throw new AppError("permission_denied", `You don't have permission to add insights to dashboard: ${dashboardId}`);
    }
  }
  for (const dashboardId of wanted.filter((id) => !current.has(id))) {
    const removed = tiles.find((tile) => tile.dashboardId === dashboardId);
    if (removed) await restoreTile(tx, removed.id);
    else await insertTile(tx, dashboardId, insightId);
  }
  const leaving = [...current].filter((id) => !wanted.includes(id));
  if (leaving.length > 0) await removeTiles(tx, insightId, leaving);
}

/**
 * PostHog's `CanEditInsight`: an insight shown on live dashboards is edited (renamed, its
 * query changed, deleted, moved off a dashboard) only by someone who may edit one of them,
 * so a restricted dashboard's charts cannot be changed behind its editors' backs.
 */
async function assertCanEditInsight(tx: Tx, ctx: Context, insightId: number): Promise<void> {
  const dashboards = await findDashboardsShowing(tx, insightId, ctx.actor.id);
  if (!canEditInsight(dashboards, ctx)) throw new AppError("permission_denied", NO_INSIGHT_EDIT_PERMISSION);
}

export async function createInsight(ctx: Context, body: InsightCreateBody): Promise<InsightResource> {
  const { db } = ctx;
  const projectId = ctx.project.id;
  await checkQuery(db, projectId, body.query);
  const id = await inTransaction(db, async (tx) => {
    const created = await insertInsight(tx, {
      shortId: newInsightShortId(),
      projectId,
      name: body.name ?? null,
      derivedName: body.derived_name ?? null,
      description: body.description ?? "",
      query: body.query,
      saved: body.saved ?? false,
      favorited: body.favorited ?? false,
      deleted: body.deleted ?? false,
      createdById: ctx.actor.id,
    });
    if (body.tags) await setTags(tx, projectId, { insightId: created.id }, body.tags);
    if (body.dashboards) await placeOnDashboards(tx, ctx, created.id, body.dashboards);
    await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: created.id, activity: "created", name: created.name ?? created.derivedName });
    return created.id;
  });
  const row = await requireInsight(db.prisma, projectId, id, "any");
  return insightResource(row, row.deleted ? notComputed(await projectZone(db.prisma, projectId)) : await computeInsight(db, projectId, row));
}

function activityFields(row: Pick<InsightRow, "name" | "derivedName" | "description" | "query" | "saved" | "favorited" | "deleted">, tags: string[]) {
  return {
    name: row.name,
    derived_name: row.derivedName,
    description: row.description,
    query: row.query,
    saved: row.saved,
    favorited: row.favorited,
    deleted: row.deleted,
    tags,
  };
}

/**
 * PATCH: changes fields; `deleted: true` soft-deletes (the insight leaves lists and its
 * tiles stop showing it), `deleted: false` is the one request that finds a deleted insight
 * and restores it. The answer carries the result, except for a deleted insight.
 */
export async function updateInsight(ctx: Context, id: number, body: InsightUpdateBody): Promise<InsightResource> {
  const { db } = ctx;
  const projectId = ctx.project.id;
  if (body.query !== undefined) await checkQuery(db, projectId, body.query);
  await inTransaction(db, async (tx) => {
    const row = await requireInsight(tx, projectId, id, body.deleted === false ? "any" : "live");
    await assertCanEditInsight(tx, ctx, id);
    const updated = await updateInsightRow(tx, id, {
      name: body.name,
      derivedName: body.derived_name,
      description: body.description,
      query: body.query,
      saved: body.saved,
      favorited: body.favorited,
      deleted: body.deleted,
      lastModifiedById: ctx.actor.id,
      lastModifiedAt: new Date(),
    });
    if (body.dashboards !== undefined) await placeOnDashboards(tx, ctx, id, body.dashboards);
    const tagsBefore = tagNames(row.taggedItems);
    let tagsAfter = tagsBefore;
    if (body.tags !== undefined) {
      await setTags(tx, projectId, { insightId: id }, body.tags);
      tagsAfter = normaliseTags(body.tags).sort();
    }
    const changes = changesBetween(activityFields(row, tagsBefore), activityFields(updated, tagsAfter));
    if (changes.length > 0) {
      const activity = updated.deleted && !row.deleted ? "deleted" : !updated.deleted && row.deleted ? "restored" : "updated";
      await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity, name: updated.name ?? updated.derivedName, changes });
    }
  });
  const row = await requireInsight(db.prisma, projectId, id, "any");
  return insightResource(row, row.deleted ? notComputed(await projectZone(db.prisma, projectId)) : await computeInsight(db, projectId, row));
}

/** What an alert reads of its insight: its name, short id and query (null: no such insight, or deleted). */
export async function insightForAlert(client: DbClient, projectId: number, id: number): Promise<{ id: number; shortId: string; name: string; query: unknown } | null> {
  const row = await findInsight(client, projectId, id, "live");
  return row ? { id: row.id, shortId: row.shortId, name: row.name || row.derivedName || `Insight ${row.shortId}`, query: row.query } : null;
}
