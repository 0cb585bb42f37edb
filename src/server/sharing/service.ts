/**
 * A dashboard's public link. One configuration is in force per dashboard (the newest one
 * not expired); the first read creates it disabled; a refresh expires it and creates a new
 * one with a new token, so the old link dies at once. The public page resolves a token to
 * the dashboard only while its configuration is enabled, in force, and the dashboard is
 * not deleted.
 */
import { randomBytes } from "node:crypto";
import { assertCanEdit } from "@/server/access/service";
import { logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import { resultKindOf } from "@/server/analytics/drawn-kind";
import { sharedDashboard, sharedTileOrder, type SharedDashboard, type TileComputation, type TileResult } from "@/server/dashboards/present";
import { findPublicDashboard, requireDashboard } from "@/server/dashboards/service";
import type { Database } from "@/server/db/client";
import { inTransaction, type Tx } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { computeTilesAsCompleted } from "@/server/dashboards/service";
import { accessTokenSchema, type SharingUpdateBody } from "./contract";
import { noSharing, sharingResource, type SharingConfigurationResource } from "./present";
import { expireConfiguration, findConfigurationByToken, findCurrentConfiguration, insertConfiguration, lockCurrentConfiguration, updateConfiguration } from "./store";

/** 22 random bytes (176 bits) as 30 URL-safe characters: PostHog's `secrets.token_urlsafe(22)`. */
export const newAccessToken = () => randomBytes(22).toString("base64url");

/** The configuration in force for the caller's transaction, created (disabled) if there is none. */
const currentConfiguration = (tx: Tx, ctx: Context, dashboardId: number) =>
  lockCurrentConfiguration(tx, { projectId: ctx.project.id, dashboardId, createdById: ctx.actor.id, accessToken: newAccessToken() });

/**
 * `GET …/sharing/`. An editor gets the configuration in force, created (disabled) on first
 * read. Someone who cannot edit creates nothing by reading, and gets no token while sharing
 * is off: a token they could keep would become a working public link the moment an editor
 * turns sharing on. While it is on, the link is public anyway and they see it.
 */
export async function getDashboardSharing(ctx: Context, dashboardId: number): Promise<SharingConfigurationResource> {
  const { permissions } = await requireDashboard(ctx, dashboardId);
  if (permissions.canEdit) return sharingResource(await inTransaction(ctx.db, (tx) => currentConfiguration(tx, ctx, dashboardId)));
  const current = await findCurrentConfiguration(ctx.db.prisma, dashboardId);
  if (!current) return noSharing();
  const resource = sharingResource(current);
  return current.enabled ? resource : { ...resource, access_token: null };
}

export async function updateDashboardSharing(ctx: Context, dashboardId: number, body: SharingUpdateBody): Promise<SharingConfigurationResource> {
  const { row: dashboard, permissions } = await requireDashboard(ctx, dashboardId);
  assertCanEdit(permissions);
  return sharingResource(
    await inTransaction(ctx.db, async (tx) => {
      const current = await currentConfiguration(tx, ctx, dashboardId);
      const updated = await updateConfiguration(tx, current.id, { enabled: body.enabled, settings: body.settings });
      if (updated.enabled !== current.enabled) {
        await logActivity(tx, {
          projectId: ctx.project.id,
          userId: ctx.actor.id,
          scope: "Dashboard",
          itemId: dashboardId,
          activity: updated.enabled ? "sharing_enabled" : "sharing_disabled",
          name: dashboard.name,
          changes: [{ field: "is_shared", before: current.enabled, after: updated.enabled }],
        });
      }
      return updated;
    }),
  );
}

/** `POST …/sharing/refresh/`: a new token with the same state; the old token stops working now. */
export async function refreshDashboardSharing(ctx: Context, dashboardId: number): Promise<SharingConfigurationResource> {
  const { row: dashboard, permissions } = await requireDashboard(ctx, dashboardId);
  assertCanEdit(permissions);
  const projectId = ctx.project.id;
  return sharingResource(
    await inTransaction(ctx.db, async (tx) => {
      const current = await currentConfiguration(tx, ctx, dashboardId);
      await expireConfiguration(tx, current.id, new Date());
      const fresh = await insertConfiguration(tx, {
        projectId,
        dashboardId,
        enabled: current.enabled,
        settings: current.settings,
        accessToken: newAccessToken(),
        createdById: ctx.actor.id,
      });
      await logActivity(tx, { projectId, userId: ctx.actor.id, scope: "Dashboard", itemId: dashboardId, activity: "sharing_token_refreshed", name: dashboard.name });
      return fresh;
    }),
  );
}

/** The dashboard behind a live share link, or null (unknown, disabled, replaced, or the dashboard deleted). */
async function findSharedRow(db: Database, token: string) {
  if (!accessTokenSchema.safeParse(token).success) return null;
  const config = await findConfigurationByToken(db.prisma, token);
  if (!config || !config.enabled || config.expiresAt !== null || config.dashboardId === null) return null;
  return findPublicDashboard(db, config.projectId, config.dashboardId);
}

/**
 * What the public page at `/shared/<token>` shows, or null (a 404) when the token is
 * unknown, disabled, replaced by a refresh, or its dashboard is deleted. Tiles come
 * without their charts; see `findSharedDashboardCharting`.
 */
export async function findSharedDashboard(db: Database, token: string): Promise<SharedDashboard | null> {
  const row = await findSharedRow(db, token);
  return row && sharedDashboard(row);
}

/**
 * A tile's result as the public page shows it: no insight id, its chart or its error — and
 * only a result the page draws. A kind it has no chart for (ActorsQuery, EventsQuery, the web
 * analytics kinds …) shows "cannot draw" and is sent without its rows: a shared ActorsQuery
 * tile carried 100 persons with every property (e-mails) to anyone with the link (issue 32).
 * The kinds drawn (trends, funnels, retention, lifecycle, stickiness, paths) carry aggregates
 * only; a HogQL tile is the table its owner chose to share.
 */
function publicComputation(tile: TileResult, query: unknown): TileComputation {
  if (tile.state !== "ready") return { state: "error", message: tile.message, effective: tile.effective };
  const drawn = resultKindOf(query) !== "unknown";
  return {
    state: "ready",
    result: drawn ? tile.result : [],
    hasMore: drawn ? tile.hasMore : false,
    columns: resultKindOf(query) === "hogql" ? tile.columns : null,
    // A count, no one in it: the lifecycle tile's note on the visitors it leaves out.
    personlessVisitors: resultKindOf(query) === "lifecycle" ? tile.personlessVisitors : null,
    computed_at: tile.last_refresh,
    timezone: tile.timezone,
    effective: tile.effective,
  };
}

/** The shared dashboard, and each insight tile's chart as a promise by the tile's id on the page. */
export interface ChartingSharedDashboard {
  dashboard: SharedDashboard;
  charts: Record<number, Promise<TileComputation>>;
}

/**
 * The shared dashboard at once, its insight tiles computed on the server (from the insights
 * cache while fresh, under the dashboard's filters, a few at a time): each tile's promise
 * settles as soon as it is computed, so the page can stream it in. The page needs no session
 * and the browser never learns an insight's id. A tile whose query fails carries its error;
 * one that could not be computed at all (the database gone) says so, and the page stays up.
 */
export async function findSharedDashboardCharting(db: Database, token: string): Promise<ChartingSharedDashboard | null> {
  const row = await findSharedRow(db, token);
  if (!row) return null;
  const settle = new Map<number, (computation: TileComputation) => void>();
  const queries = new Map<number, unknown>();
  const charts: Record<number, Promise<TileComputation>> = {};
  sharedTileOrder(row).forEach((tile, position) => {
    if (!tile.insight) return;
    charts[position] = new Promise((resolve) => settle.set(tile.id, resolve));
    queries.set(tile.id, tile.insight.query);
  });
  void (async () => {
    try {
      for await (const tile of computeTilesAsCompleted(db, row, { override: null })) {
        settle.get(tile.tile_id)?.(publicComputation(tile, queries.get(tile.tile_id)));
        settle.delete(tile.tile_id);
      }
    } catch (error) {
      console.error("shared dashboard: a tile could not be computed:", error);
    } finally {
      for (const resolve of settle.values()) resolve({ state: "error", message: "This insight could not be computed." });
    }
  })();
  return { dashboard: sharedDashboard(row), charts };
}
