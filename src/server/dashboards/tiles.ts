/**
 * A dashboard's tiles: add an insight tile (the insight made by the insights service) or a
 * text tile, move and resize (`layouts.sm`), recolor, edit a text, remove; and the tiles of
 * a template. Every change needs edit rights on the dashboard (permissions.ts), checked by
 * the callers here and in `updateDashboard`, which applies PATCH `tiles`.
 */
import { Prisma } from "@/generated/prisma/client";
import { AppError } from "@/server/errors";
import { z } from "zod";
import { filtersOverrideSchema, insightUpdateBody } from "@/server/insights/contract";
import { createInsight, newInsightShortId } from "@/server/insights/service";
import type { TilePatch } from "./contract";
import { actorOf, assertCanEdit, type DashboardActor } from "@/server/access/service";
import type { Context } from "@/server/context";
import { dashboardResource, permissionsOf, type DashboardResource } from "./present";
import { findDashboard } from "./store";
import { arrangeTiles, firstFreeRect, INSIGHT_TILE_SIZE, TEXT_TILE_SIZE, type TileRect } from "./tile-layout";
import type { DashboardTemplate } from "./templates";

type Tx = Prisma.TransactionClient;

const defaultSize = (tile: { insightId: number | null }) => (tile.insightId !== null ? INSIGHT_TILE_SIZE : TEXT_TILE_SIZE);

/** Where the dashboard's live tiles sit now (stored or, for tiles without a place, as the grid shows them). */
async function occupiedRects(tx: Tx, dashboardId: number): Promise<TileRect[]> {
  const tiles = await tx.dashboardTile.findMany({ where: { dashboardId, deleted: false }, select: { id: true, layouts: true, insightId: true }, orderBy: { id: "asc" } });
  return [...arrangeTiles(tiles, defaultSize).values()];
}

/** A tile's `layouts` with `sm` set to `rect`, other breakpoints kept. */
const withSmall = (layouts: unknown, rect: TileRect): Prisma.InputJsonValue => ({
  ...(layouts && typeof layouts === "object" && !Array.isArray(layouts) ? (layouts as Prisma.InputJsonObject) : {}),
  sm: { x: rect.x, y: rect.y, w: rect.w, h: rect.h },
});

/**
 * PATCH `tiles`, inside the caller's transaction after its edit check: each entry changes a
 * tile of this dashboard (an id of any other dashboard's tile is a 400) or adds a text tile
 * at the first free spot when it names no place.
 */
export async function applyTilePatches(tx: Tx, projectId: number, actor: DashboardActor, dashboardId: number, patches: readonly TilePatch[]): Promise<void> {
  const own = await tx.dashboardTile.findMany({ where: { dashboardId }, select: { id: true, textId: true, layouts: true } });
  const byId = new Map(own.map((tile) => [tile.id, tile]));
  for (const patch of patches) {
    if (patch.id !== undefined && !byId.has(patch.id)) throw new AppError("invalid_input", `Tile ${patch.id} is not on this dashboard.`, "tiles");
    // Checked now, not when the tile's insight is next computed with them.
    const overrides = patch.filters_overrides ? filtersOverrideSchema.safeParse(patch.filters_overrides) : null;
    if (overrides && !overrides.success) throw new AppError("invalid_input", `filters_overrides: ${overrides.error.issues[0]!.message}`, "tiles");
  }
  for (const patch of patches) {
    const common = {
      layouts: patch.layouts as Prisma.InputJsonValue | undefined,
      color: patch.color,
      deleted: patch.deleted,
      filtersOverrides:
        patch.filters_overrides === undefined ? undefined : patch.filters_overrides === null ? Prisma.DbNull : (patch.filters_overrides as Prisma.InputJsonValue),
    };
    if (patch.id === undefined) {
      if (!patch.text) throw new AppError("invalid_input", "A new tile needs a text (insight tiles are added through the insights API).", "tiles");
      const text = await tx.dashboardText.create({ data: { projectId, body: patch.text.body, createdById: actor.userId, lastModifiedById: actor.userId } });
      const layouts = patch.layouts?.sm ? common.layouts : withSmall(patch.layouts, firstFreeRect(await occupiedRects(tx, dashboardId), TEXT_TILE_SIZE));
      await tx.dashboardTile.create({ data: { ...common, layouts, deleted: patch.deleted ?? false, dashboardId, textId: text.id } });
      continue;
    }
    const tile = byId.get(patch.id)!;
    if (patch.text) {
      if (tile.textId === null) throw new AppError("invalid_input", `Tile ${patch.id} shows an insight, not a text.`, "tiles");
      await tx.dashboardText.update({ where: { id: tile.textId }, data: { body: patch.text.body, lastModifiedById: actor.userId, lastModifiedAt: new Date() } });
    }
    // A layout for one breakpoint keeps the tile's others.
    const layouts = patch.layouts ? { ...(tile.layouts as Record<string, unknown>), ...patch.layouts } : undefined;
    await tx.dashboardTile.update({ where: { id: patch.id }, data: { ...common, layouts: layouts as Prisma.InputJsonValue | undefined } });
  }
}

/** What the "Add insight" form sends: the insight's name, description and query (checked by the insights service). */
export const newInsightTileBody = insightUpdateBody
  .pick({ name: true, description: true, query: true })
  .refine((body) => body.query !== undefined && body.query !== null, { message: "This field is required.", path: ["query"] });
export type NewInsightTile = z.output<typeof newInsightTileBody>;

/**
 * Adds an insight tile at the first free spot: the insight is created (and its query
 * checked) by the insights service, which puts it on the dashboard; then the tile gets its
 * place. Answers the dashboard.
 */
export async function addInsightTile(ctx: Context, dashboardId: number, body: NewInsightTile): Promise<DashboardResource> {
  const { db } = ctx;
  const projectId = ctx.project.id;
  const actor = actorOf(ctx.actor, ctx.project);
  const dashboard = await findDashboard(db.prisma, projectId, dashboardId, actor.userId, false);
  if (!dashboard) throw new AppError("not_found", "Not found.");
  assertCanEdit(permissionsOf(dashboard, actor));
  const taken = await db.prisma.$transaction((tx) => occupiedRects(tx, dashboardId));
  const insight = await createInsight(ctx, { ...body, saved: true, dashboards: [dashboardId] });
  await db.prisma.dashboardTile.updateMany({
    where: { dashboardId, insightId: insight.id },
    data: { layouts: withSmall({}, firstFreeRect(taken, INSIGHT_TILE_SIZE)) },
  });
  const row = await findDashboard(db.prisma, projectId, dashboardId, actor.userId, false);
  if (!row) throw new AppError("not_found", "Not found.");
  return dashboardResource(row, actor);
}

/** A new insight row of the project (for template and duplicated tiles, inside their transaction). */
export function insertInsight(
  tx: Tx,
  projectId: number,
  actor: DashboardActor,
  fields: { name: string | null; derivedName?: string | null; description: string; query: unknown; filters?: unknown; saved: boolean },
) {
  return tx.insight.create({
    data: {
      shortId: newInsightShortId(),
      projectId,
      name: fields.name,
      derivedName: fields.derivedName ?? null,
      description: fields.description,
      query: (fields.query ?? undefined) as Prisma.InputJsonValue | undefined,
      filters: (fields.filters ?? {}) as Prisma.InputJsonValue,
      saved: fields.saved,
      createdById: actor.userId,
      lastModifiedById: actor.userId,
    },
  });
}

/** Puts a template's insights and texts on a new dashboard, each at the template's place. */
export async function createTemplateTiles(tx: Tx, projectId: number, actor: DashboardActor, dashboardId: number, template: DashboardTemplate): Promise<void> {
  for (const tile of template.tiles) {
    const layouts = withSmall({}, tile.rect);
    if ("insight" in tile) {
      const insight = await insertInsight(tx, projectId, actor, { name: tile.insight.name, description: tile.insight.description, query: tile.insight.query, saved: true });
      await tx.dashboardTile.create({ data: { dashboardId, insightId: insight.id, layouts, color: tile.color ?? null } });
    } else {
      const text = await tx.dashboardText.create({ data: { projectId, body: tile.text, createdById: actor.userId, lastModifiedById: actor.userId } });
      await tx.dashboardTile.create({ data: { dashboardId, textId: text.id, layouts, color: tile.color ?? null } });
    }
  }
}
