/**
 * Data access for dashboards: the list page (one SQL statement), what a single dashboard
 * loads (Prisma includes), shared by the API, the admin UI and the shared page; and every
 * write of a dashboard, its tiles and texts, and the insights its templates and copies add.
 */
import { Prisma } from "@/generated/prisma/client";
import type { PrismaClient } from "@/server/db/client";
import type { DbClient } from "@/server/db/transaction";
import { containsPattern } from "@/server/properties/sql";
import { tagNames } from "@/server/tags/service";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";

/** The sharing configuration in force: the newest one not expired by a token refresh (as sharing's store asks). */
const currentSharingWhere = { expiresAt: null } satisfies Prisma.SharingConfigurationWhereInput;

/**
 * The relations behind a dashboard's list fields (creator, tags, sharing), with the
 * caller's own collaborator row for their privilege.
 */
export function listInclude(userId: number) {
  return {
    createdBy: true,
    taggedItems: { include: { tag: { select: { name: true } } } },
    sharing: { where: { ...currentSharingWhere, enabled: true }, select: { id: true }, take: 1 },
    collaborators: { where: { userId }, select: { level: true } },
  } satisfies Prisma.DashboardInclude;
}

const userPart = { select: USER_BASIC_COLUMNS } as const;

/** What a row knows of a user (creator, last editor): what PostHog's UserBasic shows. */
export type UserRow = Prisma.UserGetPayload<typeof userPart>;

/** A tile with what PostHog shows of its insight or text. */
export const tileInclude = {
  insight: { include: { createdBy: userPart, lastModifiedBy: userPart } },
  text: { include: { createdBy: userPart, lastModifiedBy: userPart } },
} satisfies Prisma.DashboardTileInclude;

/** A single dashboard: a list item and its live tiles. */
export function detailInclude(userId: number) {
  return { ...listInclude(userId), tiles: { where: { deleted: false }, include: tileInclude } } satisfies Prisma.DashboardInclude;
}

export type DashboardListRow = Prisma.DashboardGetPayload<{ include: ReturnType<typeof listInclude> }>;
export type DashboardDetailRow = Prisma.DashboardGetPayload<{ include: ReturnType<typeof detailInclude> }>;
export type TileRow = Prisma.DashboardTileGetPayload<{ include: typeof tileInclude }>;

/** Which dashboards of a project a list shows. */
export interface DashboardFilter {
  deleted: boolean;
  search?: string;
  tags?: string[];
}

/**
 * A list item's data, as the list query reads it and as a loaded dashboard row provides it
 * (`listSource`): the dashboard, its creator, tag names, whether its link is on, and the
 * caller's own collaborator level.
 */
export interface DashboardListSource {
  id: number;
  projectId: number;
  name: string | null;
  description: string;
  pinned: boolean;
  deleted: boolean;
  creationMode: string;
  restrictionLevel: number;
  createdById: number | null;
  createdAt: Date;
  lastAccessedAt: Date | null;
  lastRefresh: Date | null;
  createdBy: UserRow | null;
  tags: string[];
  isShared: boolean;
  collaboratorLevel: number | null;
}

export function listSource(row: DashboardListRow): DashboardListSource {
  return { ...row, tags: tagNames(row.taggedItems), isShared: row.sharing.length > 0, collaboratorLevel: row.collaborators[0]?.level ?? null };
}

interface PageRow {
  id: number;
  project_id: number;
  name: string | null;
  description: string;
  pinned: boolean;
  deleted: boolean;
  creation_mode: string;
  restriction_level: number;
  created_by_id: number | null;
  created_at: Date;
  last_accessed_at: Date | null;
  last_refresh: Date | null;
  user_uuid: string | null;
  user_distinct_id: string | null;
  user_first_name: string | null;
  user_last_name: string | null;
  user_email: string | null;
  user_is_email_verified: boolean | null;
  user_hedgehog_config: unknown;
  tags: string[];
  is_shared: boolean;
  collaborator_level: number | null;
}

/**
 * One page in PostHog's order (pinned first, then by name, unnamed last), and how many
 * match in all. One SQL statement for the page (creator, tags, sharing and the caller's
 * collaborator row as joins and subqueries on the page's rows) and one count: the list
 * must answer in a few milliseconds with 10,000 dashboards in a project.
 */
export async function findDashboardPage(
  prisma: PrismaClient,
  projectId: number,
  userId: number,
  filter: DashboardFilter,
  window: { take: number; skip: number },
): Promise<{ count: number; rows: DashboardListSource[] }> {
  const search = filter.search?.trim();
  const where = Prisma.sql`d.project_id = ${projectId} AND d.deleted = ${filter.deleted} AND d.creation_mode <> 'unlisted'
    ${search ? Prisma.sql`AND (d.name ILIKE ${containsPattern(search)} OR d.description ILIKE ${containsPattern(search)})` : Prisma.empty}
    ${
      filter.tags && filter.tags.length > 0
        ? Prisma.sql`AND EXISTS (SELECT 1 FROM tagged_items ti JOIN tags t ON t.id = ti.tag_id WHERE ti.dashboard_id = d.id AND t.name IN (${Prisma.join(filter.tags)}))`
        : Prisma.empty
    }`;
  const [counted, rows] = await Promise.all([
    prisma.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM dashboards d WHERE ${where}`,
    // The page's ids first, so that the subqueries run for its rows only, not for every row an offset skips.
    prisma.$queryRaw<PageRow[]>`
      WITH page AS (
        SELECT d.id FROM dashboards d WHERE ${where}
         ORDER BY d.pinned DESC, d.name ASC NULLS LAST, d.id ASC
         LIMIT ${window.take} OFFSET ${window.skip}
      )
      SELECT d.id, d.project_id, d.name, d.description, d.pinned, d.deleted, d.creation_mode, d.restriction_level,
             d.created_by_id, d.created_at, d.last_accessed_at, d.last_refresh,
             u.uuid::text AS user_uuid, u.distinct_id AS user_distinct_id, u.first_name AS user_first_name, u.last_name AS user_last_name,
             u.email AS user_email, u.is_email_verified AS user_is_email_verified, u.hedgehog_config AS user_hedgehog_config,
             COALESCE((SELECT array_agg(t.name ORDER BY t.name) FROM tagged_items ti JOIN tags t ON t.id = ti.tag_id WHERE ti.dashboard_id = d.id), '{}') AS tags,
             EXISTS (SELECT 1 FROM sharing_configurations s WHERE s.dashboard_id = d.id AND s.enabled AND s.expires_at IS NULL) AS is_shared,
             (SELECT c.level FROM dashboard_collaborators c WHERE c.dashboard_id = d.id AND c.user_id = ${userId}) AS collaborator_level
        FROM page JOIN dashboards d ON d.id = page.id LEFT JOIN users u ON u.id = d.created_by_id
       ORDER BY d.pinned DESC, d.name ASC NULLS LAST, d.id ASC`,
  ]);
  return {
    count: Number(counted[0]?.count ?? 0),
    rows: rows.map((row) => ({
      id: row.id,
      projectId: row.project_id,
      name: row.name,
      description: row.description,
      pinned: row.pinned,
      deleted: row.deleted,
      creationMode: row.creation_mode,
      restrictionLevel: row.restriction_level,
      createdById: row.created_by_id,
      createdAt: row.created_at,
      lastAccessedAt: row.last_accessed_at,
      lastRefresh: row.last_refresh,
      createdBy:
        row.created_by_id === null
          ? null
          : {
              id: row.created_by_id,
              uuid: row.user_uuid!,
              distinctId: row.user_distinct_id!,
              firstName: row.user_first_name!,
              lastName: row.user_last_name!,
              email: row.user_email!,
              isEmailVerified: row.user_is_email_verified!,
              hedgehogConfig: row.user_hedgehog_config as Prisma.JsonValue,
            },
      tags: row.tags,
      isShared: row.is_shared,
      collaboratorLevel: row.collaborator_level,
    })),
  };
}

/** A dashboard of the project with its tiles; `deleted` says which state it must be in (any when undefined). */
export function findDashboard(
  prisma: DbClient,
  projectId: number,
  id: number,
  userId: number,
  deleted?: boolean,
): Promise<DashboardDetailRow | null> {
  return prisma.dashboard.findFirst({ where: { id, projectId, ...(deleted === undefined ? {} : { deleted }) }, include: detailInclude(userId) });
}

/** JSON as Prisma writes it: undefined leaves the column, null clears it (SQL NULL). */
function json(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull | undefined {
  if (value === undefined) return undefined;
  return value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** Records when the dashboard was last opened. */
export async function touchDashboard(db: DbClient, id: number, lastAccessedAt: Date): Promise<void> {
  await db.dashboard.update({ where: { id }, data: { lastAccessedAt } });
}

export interface NewDashboard {
  projectId: number;
  name: string | null;
  description: string;
  pinned: boolean;
  deleted: boolean;
  restrictionLevel: number | undefined;
  creationMode: string;
  filters: unknown;
  variables: unknown;
  breakdownColors: unknown;
  dataColorThemeId: number | null;
  createdById: number;
}

export function insertDashboard(db: DbClient, dashboard: NewDashboard) {
  return db.dashboard.create({
    data: {
      ...dashboard,
      filters: dashboard.filters as Prisma.InputJsonValue,
      variables: dashboard.variables as Prisma.InputJsonValue,
      breakdownColors: (dashboard.breakdownColors ?? undefined) as Prisma.InputJsonValue | undefined,
    },
  });
}

/** A dashboard's own fields as PATCH writes them; undefined ones stay. */
export interface DashboardChanges {
  name?: string | null;
  description?: string;
  pinned?: boolean;
  deleted?: boolean;
  restrictionLevel?: number;
  filters?: Record<string, unknown>;
  variables?: Record<string, unknown>;
}

export function updateDashboardRow(db: DbClient, id: number, changes: DashboardChanges) {
  return db.dashboard.update({
    where: { id },
    data: { ...changes, filters: changes.filters as Prisma.InputJsonValue | undefined, variables: changes.variables as Prisma.InputJsonValue | undefined },
  });
}

/** Soft-deletes all of the dashboard's tiles, and with `withInsights` the insights no other live tile shows. */
export async function deleteTiles(db: DbClient, dashboardId: number, withInsights: boolean): Promise<void> {
  if (withInsights) {
    const tiles = await db.dashboardTile.findMany({ where: { dashboardId, deleted: false, insightId: { not: null } }, select: { insightId: true } });
    const insightIds = tiles.map((tile) => tile.insightId!);
    if (insightIds.length > 0) {
      await db.insight.updateMany({
        where: { id: { in: insightIds }, tiles: { none: { deleted: false, dashboardId: { not: dashboardId } } } },
        data: { deleted: true },
      });
    }
  }
  await db.dashboardTile.updateMany({ where: { dashboardId }, data: { deleted: true } });
}

/** Undoes deleteTiles: every tile comes back, with its insight. */
export async function restoreTiles(db: DbClient, dashboardId: number): Promise<void> {
  await db.dashboardTile.updateMany({ where: { dashboardId }, data: { deleted: false } });
  await db.insight.updateMany({ where: { deleted: true, tiles: { some: { dashboardId } } }, data: { deleted: false } });
}

/** The dashboard's live tiles with what places them, oldest first. */
export function findLiveTilePlaces(db: DbClient, dashboardId: number) {
  return db.dashboardTile.findMany({ where: { dashboardId, deleted: false }, select: { id: true, layouts: true, insightId: true }, orderBy: { id: "asc" } });
}

/** Every tile of the dashboard (deleted too), as PATCH `tiles` may name them. */
export function findTilesOf(db: DbClient, dashboardId: number) {
  return db.dashboardTile.findMany({ where: { dashboardId }, select: { id: true, textId: true, layouts: true } });
}

/** A tile's writable fields: undefined ones stay; `filtersOverrides: null` clears them. */
export interface TileFields {
  layouts?: unknown;
  color?: string | null;
  deleted?: boolean;
  filtersOverrides?: unknown;
}

const tileData = (fields: TileFields) => ({
  layouts: fields.layouts as Prisma.InputJsonValue | undefined,
  color: fields.color,
  deleted: fields.deleted,
  filtersOverrides: json(fields.filtersOverrides),
});

export async function insertTile(db: DbClient, tile: TileFields & { dashboardId: number; insightId?: number | null; textId?: number | null }): Promise<void> {
  const { dashboardId, insightId, textId, ...fields } = tile;
  await db.dashboardTile.create({ data: { ...tileData(fields), dashboardId, insightId, textId } });
}

export async function updateTile(db: DbClient, id: number, fields: TileFields): Promise<void> {
  await db.dashboardTile.update({ where: { id }, data: tileData(fields) });
}

/** Places the dashboard's tile of `insightId` (the one the insights service just added). */
export async function setInsightTileLayouts(db: DbClient, dashboardId: number, insightId: number, layouts: unknown): Promise<void> {
  await db.dashboardTile.updateMany({ where: { dashboardId, insightId }, data: { layouts: layouts as Prisma.InputJsonValue } });
}

export function insertText(db: DbClient, text: { projectId: number; body: string; createdById: number; lastModifiedById?: number }) {
  return db.dashboardText.create({ data: text });
}

export async function updateTextBody(db: DbClient, id: number, body: string, userId: number): Promise<void> {
  await db.dashboardText.update({ where: { id }, data: { body, lastModifiedById: userId, lastModifiedAt: new Date() } });
}

/** A new insight row of the project (for template and duplicated tiles, inside their transaction). */
export function insertInsight(
  db: DbClient,
  fields: {
    shortId: string;
    projectId: number;
    userId: number;
    name: string | null;
    derivedName?: string | null;
    description: string;
    query: unknown;
    filters?: unknown;
    saved: boolean;
  },
) {
  return db.insight.create({
    data: {
      shortId: fields.shortId,
      projectId: fields.projectId,
      name: fields.name,
      derivedName: fields.derivedName ?? null,
      description: fields.description,
      query: (fields.query ?? undefined) as Prisma.InputJsonValue | undefined,
      filters: (fields.filters ?? {}) as Prisma.InputJsonValue,
      saved: fields.saved,
      createdById: fields.userId,
      lastModifiedById: fields.userId,
    },
  });
}
