/**
 * The insights' tables: insights, and the dashboard tiles that put them on dashboards (the
 * insights service places an insight on the dashboards its editor names).
 */
import type { Prisma } from "@/generated/prisma/client";
import type { DbClient } from "@/server/db/transaction";
import { likeLiteral } from "@/server/properties/sql";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";

const userPart = { select: USER_BASIC_COLUMNS } as const;

/** What an insight resource is made from. */
export const insightInclude = {
  createdBy: userPart,
  lastModifiedBy: userPart,
  taggedItems: { include: { tag: { select: { name: true } } } },
  // The live tiles of live dashboards: the dashboards the insight is on.
  tiles: { where: { deleted: false, dashboard: { deleted: false } }, select: { id: true, dashboardId: true, deleted: true }, orderBy: { id: "asc" } },
} satisfies Prisma.InsightInclude;

export type InsightRow = Prisma.InsightGetPayload<{ include: typeof insightInclude }>;

/** Records when the insight's result was last computed. */
export async function recordLastRefresh(client: DbClient, projectId: number, insightId: number, at: Date): Promise<void> {
  await client.insight.updateMany({ where: { id: insightId, projectId }, data: { lastRefresh: at } });
}

/** A live dashboard's filters and its tile's overrides for the insight (null if the tile is gone), or null without such a dashboard. */
export async function findDashboardFilters(
  client: DbClient,
  projectId: number,
  dashboardId: number,
  insightId: number,
): Promise<{ filters: unknown; tileOverrides: unknown } | null> {
  const dashboard = await client.dashboard.findFirst({
    where: { id: dashboardId, projectId, deleted: false },
    select: { filters: true, tiles: { where: { insightId, deleted: false }, select: { filtersOverrides: true }, take: 1 } },
  });
  return dashboard ? { filters: dashboard.filters, tileOverrides: dashboard.tiles[0]?.filtersOverrides ?? null } : null;
}

/** An insight of the project, live unless `state` is "any". */
export function findInsight(client: DbClient, projectId: number, id: number, state: "live" | "any"): Promise<InsightRow | null> {
  return client.insight.findFirst({ where: { id, projectId, ...(state === "live" ? { deleted: false } : {}) }, include: insightInclude });
}

export interface InsightFilter {
  shortId?: string;
  saved?: boolean;
  favorited?: boolean;
  /** In the name, derived name or description, case-insensitively. */
  search?: string;
}

/** A page of the project's live insights matching `filter`, most recently changed first, and how many match. */
export async function findInsightPage(
  client: DbClient,
  projectId: number,
  filter: InsightFilter,
  page: { take: number; skip: number },
): Promise<{ count: number; rows: InsightRow[] }> {
  // Prisma passes `contains` into LIKE as it is: its wildcards must match themselves.
  const search = filter.search ? likeLiteral(filter.search) : undefined;
  const where: Prisma.InsightWhereInput = {
    projectId,
    deleted: false,
    ...(filter.shortId !== undefined ? { shortId: filter.shortId } : {}),
    ...(filter.saved !== undefined ? { saved: filter.saved } : {}),
    ...(filter.favorited !== undefined ? { favorited: filter.favorited } : {}),
    ...(search
      ? {
          OR: [
            { name: { contains: search, mode: "insensitive" } },
            { derivedName: { contains: search, mode: "insensitive" } },
            { description: { contains: search, mode: "insensitive" } },
          ],
        }
      : {}),
  };
  const [count, rows] = await Promise.all([
    client.insight.count({ where }),
    client.insight.findMany({ where, include: insightInclude, orderBy: [{ lastModifiedAt: "desc" }, { id: "desc" }], take: page.take, skip: page.skip }),
  ]);
  return { count, rows };
}

export interface NewInsight {
  shortId: string;
  projectId: number;
  name: string | null;
  derivedName: string | null;
  description: string;
  query: unknown;
  saved: boolean;
  favorited: boolean;
  deleted: boolean;
  createdById: number;
}

export function insertInsight(client: DbClient, insight: NewInsight) {
  return client.insight.create({ data: { ...insight, query: insight.query as Prisma.InputJsonValue, lastModifiedById: insight.createdById } });
}

/** The fields an edit sets (undefined: unchanged). */
export interface InsightChanges {
  name?: string | null;
  derivedName?: string | null;
  description?: string;
  query?: unknown;
  saved?: boolean;
  favorited?: boolean;
  deleted?: boolean;
  lastModifiedById: number;
  lastModifiedAt: Date;
}

export function updateInsightRow(client: DbClient, id: number, changes: InsightChanges) {
  return client.insight.update({
    where: { id },
    data: { ...changes, query: changes.query === undefined ? undefined : (changes.query as Prisma.InputJsonValue) },
  });
}

/** Every tile of the insight, removed ones too. */
export function findInsightTiles(client: DbClient, insightId: number): Promise<{ id: number; dashboardId: number; deleted: boolean }[]> {
  return client.dashboardTile.findMany({ where: { insightId }, select: { id: true, dashboardId: true, deleted: true } });
}

/** What deciding who may edit a dashboard needs: its restriction, owner and `userId`'s collaborator level there. */
export interface DashboardAccessRow {
  restrictionLevel: number;
  createdById: number | null;
  collaboratorLevel: number | null;
}

const dashboardAccess = (userId: number) =>
  ({ restrictionLevel: true, createdById: true, collaborators: { where: { userId }, select: { level: true } } }) satisfies Prisma.DashboardSelect;

const accessRow = (dashboard: { restrictionLevel: number; createdById: number | null; collaborators: { level: number }[] }): DashboardAccessRow => ({
  restrictionLevel: dashboard.restrictionLevel,
  createdById: dashboard.createdById,
  collaboratorLevel: dashboard.collaborators[0]?.level ?? null,
});

/** A live dashboard of the project, as `userId` may access it; null if there is none. */
export async function findDashboardAccess(client: DbClient, projectId: number, dashboardId: number, userId: number): Promise<DashboardAccessRow | null> {
  const dashboard = await client.dashboard.findFirst({ where: { id: dashboardId, projectId, deleted: false }, select: dashboardAccess(userId) });
  return dashboard ? accessRow(dashboard) : null;
}

/** The live dashboards the insight is shown on (by a live tile), as `userId` may access them. */
export async function findDashboardsShowing(client: DbClient, insightId: number, userId: number): Promise<DashboardAccessRow[]> {
  const tiles = await client.dashboardTile.findMany({
    where: { insightId, deleted: false, dashboard: { deleted: false } },
    select: { dashboard: { select: dashboardAccess(userId) } },
  });
  return tiles.map(({ dashboard }) => accessRow(dashboard));
}

export async function restoreTile(client: DbClient, tileId: number): Promise<void> {
  await client.dashboardTile.update({ where: { id: tileId }, data: { deleted: false } });
}

export async function insertTile(client: DbClient, dashboardId: number, insightId: number): Promise<void> {
  await client.dashboardTile.create({ data: { dashboardId, insightId } });
}

/** Removes the insight's tiles on `dashboardIds`. */
export async function removeTiles(client: DbClient, insightId: number, dashboardIds: number[]): Promise<void> {
  await client.dashboardTile.updateMany({ where: { insightId, dashboardId: { in: dashboardIds } }, data: { deleted: true } });
}
