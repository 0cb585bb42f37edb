/**
 * A dashboard's public link. One configuration is in force per dashboard (the newest one
 * not expired); the first read creates it disabled; a refresh expires it and creates a new
 * one with a new token, so the old link dies at once. The public page resolves a token to
 * the dashboard only while its configuration is enabled, in force, and the dashboard is
 * not deleted.
 */
import { randomBytes } from "node:crypto";
import { Prisma } from "@/generated/prisma/client";
import { logActivity } from "@/server/activity/service";
import { assertCanEdit, type DashboardActor } from "@/server/access/service";
import { isShown, sharedDashboard, type SharedDashboard, type TileComputation } from "@/server/dashboards/present";
import { requireDashboard } from "@/server/dashboards/service";
import { currentSharingWhere, detailInclude } from "@/server/dashboards/store";
import type { Database, PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { computeSavedInsight } from "@/server/insights/service";
import { accessTokenSchema, type SharingUpdateBody } from "./contract";

export interface SharingConfigurationResource {
  /** null: no configuration is stored yet (shown to someone who cannot edit; see getDashboardSharing). */
  created_at: string | null;
  enabled: boolean;
  /** null for someone who cannot edit the dashboard while sharing is off. */
  access_token: string | null;
  settings: Record<string, unknown> | null;
}

/** 22 random bytes (176 bits) as 30 URL-safe characters: PostHog's `secrets.token_urlsafe(22)`. */
export const newAccessToken = () => randomBytes(22).toString("base64url");

type SharingRow = Prisma.SharingConfigurationGetPayload<object>;

function sharingResource(row: SharingRow): SharingConfigurationResource {
  return {
    created_at: row.createdAt.toISOString(),
    enabled: row.enabled,
    access_token: row.accessToken,
    settings: (row.settings as Record<string, unknown> | null) ?? null,
  };
}

/**
 * The configuration in force, created (disabled) if there is none. The dashboard row is
 * locked first so that concurrent first reads or refreshes cannot leave two in force.
 */
async function currentConfiguration(tx: Prisma.TransactionClient, projectId: number, dashboardId: number, userId: number): Promise<SharingRow> {
  await tx.$queryRaw`SELECT id FROM dashboards WHERE id = ${dashboardId} FOR UPDATE`;
  const existing = await tx.sharingConfiguration.findFirst({ where: { dashboardId, ...currentSharingWhere }, orderBy: { id: "desc" } });
  if (existing) return existing;
  return tx.sharingConfiguration.create({ data: { projectId, dashboardId, enabled: false, accessToken: newAccessToken(), createdById: userId } });
}

/**
 * `GET …/sharing/`. An editor gets the configuration in force, created (disabled) on first
 * read. Someone who cannot edit creates nothing by reading, and gets no token while sharing
 * is off: a token they could keep would become a working public link the moment an editor
 * turns sharing on. While it is on, the link is public anyway and they see it.
 */
export async function getDashboardSharing(prisma: PrismaClient, projectId: number, actor: DashboardActor, dashboardId: number): Promise<SharingConfigurationResource> {
  const { permissions } = await requireDashboard(prisma, projectId, actor, dashboardId);
  if (permissions.canEdit) return sharingResource(await prisma.$transaction((tx) => currentConfiguration(tx, projectId, dashboardId, actor.userId)));
  const current = await prisma.sharingConfiguration.findFirst({ where: { dashboardId, ...currentSharingWhere }, orderBy: { id: "desc" } });
  if (!current) return { created_at: null, enabled: false, access_token: null, settings: null };
  const resource = sharingResource(current);
  return current.enabled ? resource : { ...resource, access_token: null };
}

export async function updateDashboardSharing(
  prisma: PrismaClient,
  projectId: number,
  actor: DashboardActor,
  dashboardId: number,
  body: SharingUpdateBody,
): Promise<SharingConfigurationResource> {
  const { row: dashboard, permissions } = await requireDashboard(prisma, projectId, actor, dashboardId);
  assertCanEdit(permissions);
  return sharingResource(
    await prisma.$transaction(async (tx) => {
      const current = await currentConfiguration(tx, projectId, dashboardId, actor.userId);
      const updated = await tx.sharingConfiguration.update({
        where: { id: current.id },
        data: { enabled: body.enabled, settings: body.settings === null ? Prisma.DbNull : (body.settings as Prisma.InputJsonValue | undefined) },
      });
      if (updated.enabled !== current.enabled) {
        await logActivity(tx, {
          projectId,
          userId: actor.userId,
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
export async function refreshDashboardSharing(prisma: PrismaClient, projectId: number, actor: DashboardActor, dashboardId: number): Promise<SharingConfigurationResource> {
  const { row: dashboard, permissions } = await requireDashboard(prisma, projectId, actor, dashboardId);
  assertCanEdit(permissions);
  return sharingResource(
    await prisma.$transaction(async (tx) => {
      const current = await currentConfiguration(tx, projectId, dashboardId, actor.userId);
      await tx.sharingConfiguration.update({ where: { id: current.id }, data: { expiresAt: new Date() } });
      const fresh = await tx.sharingConfiguration.create({
        data: {
          projectId,
          dashboardId,
          enabled: current.enabled,
          settings: (current.settings ?? undefined) as Prisma.InputJsonValue | undefined,
          accessToken: newAccessToken(),
          createdById: actor.userId,
        },
      });
      await logActivity(tx, { projectId, userId: actor.userId, scope: "Dashboard", itemId: dashboardId, activity: "sharing_token_refreshed", name: dashboard.name });
      return fresh;
    }),
  );
}

/** The dashboard behind a live share link, or null (unknown, disabled, replaced, or the dashboard deleted). */
async function findSharedRow(prisma: PrismaClient, token: string) {
  if (!accessTokenSchema.safeParse(token).success) return null;
  const config = await prisma.sharingConfiguration.findUnique({
    where: { accessToken: token },
    // No user has id 0: the view is nobody's, and the presenter shows no people anyway.
    include: { dashboard: { include: detailInclude(0) } },
  });
  if (!config || !config.enabled || config.expiresAt !== null || !config.dashboard || config.dashboard.deleted) return null;
  return config.dashboard;
}

/**
 * What the public page at `/shared/<token>` shows, or null (a 404) when the token is
 * unknown, disabled, replaced by a refresh, or its dashboard is deleted. Tiles come
 * without their charts; see `findSharedDashboardWithCharts`.
 */
export async function findSharedDashboard(prisma: PrismaClient, token: string): Promise<SharedDashboard | null> {
  const row = await findSharedRow(prisma, token);
  return row && sharedDashboard(row);
}

/**
 * The shared dashboard with every insight tile computed on the server (from the insights
 * cache while fresh, under the dashboard's filters), so the page needs no session and the
 * browser never learns an insight's id. A tile whose query fails carries its error.
 */
export async function findSharedDashboardWithCharts(db: Database, token: string): Promise<SharedDashboard | null> {
  const row = await findSharedRow(db.prisma, token);
  if (!row) return null;
  const computations = new Map<number, TileComputation>();
  await Promise.all(
    row.tiles.filter(isShown).map(async (tile) => {
      if (!tile.insightId) return;
      try {
        const computed = await computeSavedInsight(db, row.projectId, tile.insightId, { fromDashboard: row.id });
        computations.set(tile.id, { state: "ready", result: computed.result ?? [], hasMore: computed.hasMore, computed_at: computed.computed_at, timezone: computed.timezone });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        computations.set(tile.id, { state: "error", message: error.message });
      }
    }),
  );
  return sharedDashboard(row, computations);
}
