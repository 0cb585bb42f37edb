/**
 * Dashboards: list, retrieve, create (blank or as a copy), update, soft delete and restore,
 * with PostHog's restriction rules enforced here, so REST and tRPC cannot differ.
 */
import type { Prisma } from "@/generated/prisma/client";
import { changesBetween, logActivity } from "@/server/activity/service";
import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import { normaliseTags, setTags, tagNames } from "@/server/tags/service";
import type { DashboardCreateBody, DashboardUpdateBody } from "./contract";
import type { DashboardListQuery } from "./list-query";
import { assertCanEdit, type DashboardActor, type DashboardPermissions } from "@/server/access/service";
import { dashboardListItem, dashboardResource, isShown, permissionsOf, UNSET_SEED, type DashboardListItem, type DashboardResource } from "./present";
import { findDashboard, findDashboardPage, type DashboardDetailRow } from "./store";
import { findTemplate } from "./templates";
import { applyTilePatches, createTemplateTiles, insertInsight } from "./tiles";

const ACTIVITY_SCOPE = "Dashboard";

export const RESTRICT_DENIED =
  "Only the dashboard owner and project admins have the restriction rights required to change the dashboard's restriction level.";

export async function listDashboards(
  prisma: PrismaClient,
  projectId: number,
  actor: DashboardActor,
  query: DashboardListQuery,
): Promise<{ count: number; results: DashboardListItem[] }> {
  const { count, rows } = await findDashboardPage(
    prisma,
    projectId,
    actor.userId,
    { deleted: query.deleted ?? false, search: query.search, tags: query.tags && normaliseTags(query.tags) },
    pageWindow(query),
  );
  return { count, results: rows.map((row) => dashboardListItem(row, actor)) };
}

/**
 * A live (not deleted) dashboard of the project and the caller's permissions on it, or a
 * 404 with `notFound` as its detail (PostHog words it differently per endpoint).
 */
export async function requireDashboard(
  prisma: PrismaClient | Prisma.TransactionClient,
  projectId: number,
  actor: DashboardActor,
  id: number,
  notFound = "Not found.",
): Promise<{ row: DashboardDetailRow; permissions: DashboardPermissions }> {
  const row = await findDashboard(prisma, projectId, id, actor.userId, false);
  if (!row) throw new AppError("not_found", notFound);
  return { row, permissions: permissionsOf(row, actor) };
}

/** One dashboard with its tiles; records when it was last opened, as PostHog does. */
export async function getDashboard(prisma: PrismaClient, projectId: number, actor: DashboardActor, id: number): Promise<DashboardResource> {
  const { row } = await requireDashboard(prisma, projectId, actor, id);
  const lastAccessedAt = new Date();
  await prisma.dashboard.update({ where: { id: row.id }, data: { lastAccessedAt } });
  return dashboardResource({ ...row, lastAccessedAt }, actor);
}

/**
 * Copies `source`'s live tiles onto `dashboardId`: the same insights and texts, or with
 * `deep`, copies of them (insights named "<name> (Copy)"), each at the same place.
 */
async function copyTiles(tx: Prisma.TransactionClient, source: DashboardDetailRow, dashboardId: number, actor: DashboardActor, deep: boolean) {
  // A tile whose insight was deleted shows nothing: it is not copied.
  for (const tile of source.tiles.filter(isShown)) {
    let insightId = tile.insightId;
    let textId = tile.textId;
    if (deep && tile.insight) {
      const { insight } = tile;
      const copy = await insertInsight(tx, insight.projectId, actor, {
        name: insight.name ? `${insight.name} (Copy)` : null,
        derivedName: insight.derivedName,
        description: insight.description,
        query: insight.query,
        filters: insight.filters,
        saved: insight.saved,
      });
      insightId = copy.id;
    }
    if (deep && tile.text) {
      const copy = await tx.dashboardText.create({ data: { projectId: tile.text.projectId, body: tile.text.body, createdById: actor.userId } });
      textId = copy.id;
    }
    await tx.dashboardTile.create({
      data: {
        dashboardId,
        insightId,
        textId,
        layouts: tile.layouts as Prisma.InputJsonValue,
        color: tile.color,
        filtersOverrides: (tile.filtersOverrides ?? undefined) as Prisma.InputJsonValue | undefined,
      },
    });
  }
}

const isEmpty = (value: Record<string, unknown> | undefined | null) => !value || Object.keys(value).length === 0;

export async function createDashboard(
  prisma: PrismaClient,
  projectId: number,
  actor: DashboardActor,
  body: DashboardCreateBody,
): Promise<DashboardResource> {
  const template = body.use_template ? findTemplate(body.use_template) : undefined;
  if (body.use_template && !template) throw new AppError("invalid_input", `Invalid template provided: ${body.use_template}`, "use_template");
  const id = await prisma.$transaction(async (tx) => {
    let source: DashboardDetailRow | null = null;
    if (body.use_dashboard) {
      source = await findDashboard(tx, projectId, body.use_dashboard, actor.userId, false);
      if (!source) throw new AppError("invalid_input", "Invalid value provided", "use_dashboard");
    }
    const filters = !isEmpty(body.filters) ? body.filters : (source?.filters ?? {});
    const variables = !isEmpty(body.variables) ? body.variables : (source?.variables ?? {});
    const created = await tx.dashboard.create({
      data: {
        projectId,
        name: body.name || template?.name || null,
        description: body.description || template?.description || "",
        pinned: body.pinned ?? false,
        deleted: body.deleted ?? false,
        restrictionLevel: body.restriction_level,
        creationMode: source ? "duplicate" : template ? "template" : "default",
        filters: filters as Prisma.InputJsonValue,
        variables: variables as Prisma.InputJsonValue,
        breakdownColors: (source?.breakdownColors ?? undefined) as Prisma.InputJsonValue | undefined,
        dataColorThemeId: source?.dataColorThemeId ?? null,
        createdById: actor.userId,
      },
    });
    if (source) await copyTiles(tx, source, created.id, actor, body.duplicate_tiles ?? false);
    if (template) await createTemplateTiles(tx, projectId, actor, created.id, template);
    if (body.tags) await setTags(tx, projectId, { dashboardId: created.id }, body.tags);
    await logActivity(tx, { projectId, userId: actor.userId, scope: ACTIVITY_SCOPE, itemId: created.id, activity: "created", name: created.name });
    return created.id;
  });
  const row = await findDashboard(prisma, projectId, id, actor.userId);
  return dashboardResource(row!, actor, {
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
export async function updateDashboard(
  prisma: PrismaClient,
  projectId: number,
  actor: DashboardActor,
  id: number,
  body: DashboardUpdateBody,
): Promise<DashboardResource> {
  await prisma.$transaction(async (tx) => {
    const row = await findDashboard(tx, projectId, id, actor.userId, body.deleted === false ? undefined : false);
    if (!row) throw new AppError("not_found", "Not found.");
    const permissions = permissionsOf(row, actor);
    assertCanEdit(permissions);
    if (body.restriction_level !== undefined && !permissions.canRestrict) throw new AppError("permission_denied", RESTRICT_DENIED);

    const deleting = body.deleted === true && !row.deleted;
    const restoring = body.deleted === false && row.deleted;
    const updated = await tx.dashboard.update({
      where: { id },
      data: {
        name: body.name,
        description: body.description,
        pinned: body.pinned,
        deleted: body.deleted,
        restrictionLevel: body.restriction_level,
        filters: body.filters as Prisma.InputJsonValue | undefined,
        variables: body.variables as Prisma.InputJsonValue | undefined,
      },
    });
    if (body.tiles) await applyTilePatches(tx, projectId, actor, id, body.tiles);
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
      await logActivity(tx, { projectId, userId: actor.userId, scope: ACTIVITY_SCOPE, itemId: id, activity, name: updated.name, changes });
    }
  });
  const row = await findDashboard(prisma, projectId, id, actor.userId);
  return dashboardResource(row!, actor, { ...UNSET_SEED, delete_insights: body.delete_insights ?? false });
}

/** Soft-deletes all of the dashboard's tiles, and with `withInsights` the insights no other live tile shows. */
async function deleteTiles(tx: Prisma.TransactionClient, dashboardId: number, withInsights: boolean) {
  if (withInsights) {
    const tiles = await tx.dashboardTile.findMany({ where: { dashboardId, deleted: false, insightId: { not: null } }, select: { insightId: true } });
    const insightIds = tiles.map((tile) => tile.insightId!);
    if (insightIds.length > 0) {
      await tx.insight.updateMany({
        where: { id: { in: insightIds }, tiles: { none: { deleted: false, dashboardId: { not: dashboardId } } } },
        data: { deleted: true },
      });
    }
  }
  await tx.dashboardTile.updateMany({ where: { dashboardId }, data: { deleted: true } });
}

/** Undoes deleteTiles: every tile comes back, with its insight. */
async function restoreTiles(tx: Prisma.TransactionClient, dashboardId: number) {
  await tx.dashboardTile.updateMany({ where: { dashboardId }, data: { deleted: false } });
  await tx.insight.updateMany({ where: { deleted: true, tiles: { some: { dashboardId } } }, data: { deleted: false } });
}
