/**
 * A dashboard's tiles: PATCH `tiles` (add a text tile, move and resize with `layouts.sm`,
 * recolor, edit a text, remove), the tiles of a template, a duplicate's copies, and where a
 * new tile goes. Every change needs edit rights on the dashboard (access/service.ts),
 * checked by the callers in service.ts, which run these inside their transaction.
 */
import type { Context } from "@/server/context";
import type { DbClient, Tx } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { filtersOverrideSchema } from "@/server/insights/contract";
import { newInsightShortId } from "@/server/insights/service";
import type { TilePatch } from "./contract";
import { isShown } from "./present";
import { findLiveTilePlaces, findTilesOf, insertInsight, insertText, insertTile, updateTextBody, updateTile, type DashboardDetailRow } from "./store";
import { arrangeTiles, changedRects, compactRects, firstFreeRect, INSIGHT_TILE_SIZE, TEXT_TILE_SIZE, type TileRect } from "./tile-layout";
import type { DashboardTemplate } from "./templates";

const defaultSize = (tile: { insightId: number | null }) => (tile.insightId !== null ? INSIGHT_TILE_SIZE : TEXT_TILE_SIZE);

/** Where the dashboard's live tiles sit now (stored or, for tiles without a place, as the grid shows them). */
export async function occupiedRects(db: DbClient, dashboardId: number): Promise<TileRect[]> {
  const tiles = await findLiveTilePlaces(db, dashboardId);
  return [...arrangeTiles(tiles, defaultSize).values()];
}

/** A tile's `layouts` with `sm` set to `rect`, other breakpoints kept. */
export const withSmall = (layouts: unknown, rect: TileRect): Record<string, unknown> => ({
  ...(layouts && typeof layouts === "object" && !Array.isArray(layouts) ? (layouts as Record<string, unknown>) : {}),
  sm: { x: rect.x, y: rect.y, w: rect.w, h: rect.h },
});

/**
 * PATCH `tiles`, inside the caller's transaction after its edit check: each entry changes a
 * tile of this dashboard (an id of any other dashboard's tile is a 400) or adds a text tile
 * at the first free spot when it names no place.
 */
export async function applyTilePatches(tx: Tx, ctx: Context, dashboardId: number, patches: readonly TilePatch[]): Promise<void> {
  const own = await findTilesOf(tx, dashboardId);
  const byId = new Map(own.map((tile) => [tile.id, tile]));
  for (const patch of patches) {
    if (patch.id !== undefined && !byId.has(patch.id)) throw new AppError("invalid_input", `Tile ${patch.id} is not on this dashboard.`, "tiles");
    // Checked now, not when the tile's insight is next computed with them.
    const overrides = patch.filters_overrides ? filtersOverrideSchema.safeParse(patch.filters_overrides) : null;
    if (overrides && !overrides.success) throw new AppError("invalid_input", `filters_overrides: ${overrides.error.issues[0]!.message}`, "tiles");
  }
  for (const patch of patches) {
    const common = { layouts: patch.layouts, color: patch.color, deleted: patch.deleted, filtersOverrides: patch.filters_overrides };
    if (patch.id === undefined) {
      if (!patch.text) throw new AppError("invalid_input", "A new tile needs a text (insight tiles are added through the insights API).", "tiles");
      const text = await insertText(tx, { projectId: ctx.project.id, body: patch.text.body, createdById: ctx.actor.id, lastModifiedById: ctx.actor.id });
      const layouts = patch.layouts?.sm ? common.layouts : withSmall(patch.layouts, firstFreeRect(await occupiedRects(tx, dashboardId), TEXT_TILE_SIZE));
      await insertTile(tx, { ...common, layouts, deleted: patch.deleted ?? false, dashboardId, textId: text.id });
      continue;
    }
    const tile = byId.get(patch.id)!;
    if (patch.text) {
      if (tile.textId === null) throw new AppError("invalid_input", `Tile ${patch.id} shows an insight, not a text.`, "tiles");
      await updateTextBody(tx, tile.textId, patch.text.body, ctx.actor.id);
    }
    // A layout for one breakpoint keeps the tile's others.
    const layouts = patch.layouts ? { ...(tile.layouts as Record<string, unknown>), ...patch.layouts } : undefined;
    await updateTile(tx, patch.id, { ...common, layouts });
  }
  if (patches.some((patch) => patch.id === undefined || patch.layouts !== undefined || patch.deleted !== undefined)) await compactTiles(tx, dashboardId);
}

/**
 * Closes the gaps a move, resize, removal or addition left: every live tile rises until the
 * one above stops it (as the grid shows them), and the places that changed are saved, so
 * the share page and every client see the same packed grid.
 */
export async function compactTiles(tx: Tx, dashboardId: number): Promise<void> {
  const tiles = await findLiveTilePlaces(tx, dashboardId);
  const arranged = arrangeTiles(tiles, defaultSize);
  const changed = changedRects(arranged, compactRects(arranged));
  for (const tile of tiles) {
    const rect = changed.get(tile.id);
    if (rect) await updateTile(tx, tile.id, { layouts: withSmall(tile.layouts, rect) });
  }
}

/** Puts a template's insights and texts on a new dashboard, each at the template's place. */
export async function createTemplateTiles(tx: Tx, ctx: Context, dashboardId: number, template: DashboardTemplate): Promise<void> {
  const projectId = ctx.project.id;
  for (const tile of template.tiles) {
    const layouts = withSmall({}, tile.rect);
    if ("insight" in tile) {
      const { name, description, query } = tile.insight;
      const insight = await insertInsight(tx, { shortId: newInsightShortId(), projectId, userId: ctx.actor.id, name, description, query, saved: true });
      await insertTile(tx, { dashboardId, insightId: insight.id, layouts, color: tile.color ?? null });
    } else {
      const text = await insertText(tx, { projectId, body: tile.text, createdById: ctx.actor.id, lastModifiedById: ctx.actor.id });
      await insertTile(tx, { dashboardId, textId: text.id, layouts, color: tile.color ?? null });
    }
  }
}

/**
 * Copies `source`'s live tiles onto `dashboardId`: the same insights and texts, or with
 * `deep`, copies of them (insights named "<name> (Copy)"), each at the same place.
 */
export async function copyTiles(tx: Tx, ctx: Context, source: DashboardDetailRow, dashboardId: number, deep: boolean): Promise<void> {
  // A tile whose insight was deleted shows nothing: it is not copied.
  for (const tile of source.tiles.filter(isShown)) {
    let insightId = tile.insightId;
    let textId = tile.textId;
    if (deep && tile.insight) {
      const { insight } = tile;
      const copy = await insertInsight(tx, {
        shortId: newInsightShortId(),
        projectId: insight.projectId,
        userId: ctx.actor.id,
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
      const copy = await insertText(tx, { projectId: tile.text.projectId, body: tile.text.body, createdById: ctx.actor.id });
      textId = copy.id;
    }
    await insertTile(tx, { dashboardId, insightId, textId, layouts: tile.layouts, color: tile.color, filtersOverrides: tile.filtersOverrides ?? undefined });
  }
}
