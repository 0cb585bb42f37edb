/**
 * A dashboard's grid: 12 columns, rows of a fixed height, each tile a rectangle
 * `layouts.sm = {x, y, w, h}` in grid cells (PostHog's react-grid-layout "sm" breakpoint).
 * Pure and browser-safe: the tiles service places new tiles with it and the grid UI moves
 * and resizes with it, so both settle collisions the same way.
 */
import { z } from "zod";

export const GRID_COLUMNS = 12;
/** The tallest tile and the deepest row a layout may name: a bound, not a design limit. */
export const MAX_TILE_HEIGHT = 40;
export const MAX_ROW = 10_000;

export interface TileRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

const cell = (name: string, min: number, max: number) =>
  z.number({ error: `${name} must be a number.` }).int(`${name} must be an integer.`).min(min, `${name} must be at least ${min}.`).max(max, `${name} must be at most ${max}.`);

/** One breakpoint's rectangle; other keys PostHog's UI stores (minW, moved, static, …) are kept. */
export const tileRectSchema = z
  .looseObject({
    x: cell("x", 0, GRID_COLUMNS - 1),
    y: cell("y", 0, MAX_ROW),
    w: cell("w", 1, GRID_COLUMNS),
    h: cell("h", 1, MAX_TILE_HEIGHT),
  })
  .refine((rect) => rect.x + rect.w <= GRID_COLUMNS, `A tile must fit in ${GRID_COLUMNS} columns (x + w ≤ ${GRID_COLUMNS}).`);

/** A tile's `layouts`: by breakpoint; Burrow lays out `sm` and keeps the others (e.g. PostHog's `xs`) as sent. */
export const tileLayoutsSchema = z.looseObject({ sm: tileRectSchema.optional() });
export type TileLayouts = z.output<typeof tileLayoutsSchema>;

/** Default sizes of new tiles: charts half the width, text a short strip. */
export const INSIGHT_TILE_SIZE = { w: 6, h: 5 } as const;
export const TEXT_TILE_SIZE = { w: 6, h: 2 } as const;

/** The stored `sm` rectangle of a tile, or null when it has none (or a broken one). */
export function smallRect(layouts: unknown): TileRect | null {
  if (!layouts || typeof layouts !== "object") return null;
  const parsed = tileRectSchema.safeParse((layouts as Record<string, unknown>).sm);
  return parsed.success ? { x: parsed.data.x, y: parsed.data.y, w: parsed.data.w, h: parsed.data.h } : null;
}

export const overlaps = (a: TileRect, b: TileRect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The first free spot, scanning rows top-down and columns left to right, for a tile of `size`. */
export function firstFreeRect(taken: readonly TileRect[], size: { w: number; h: number }): TileRect {
  const w = Math.min(Math.max(size.w, 1), GRID_COLUMNS);
  const bottom = taken.reduce((max, rect) => Math.max(max, rect.y + rect.h), 0);
  for (let y = 0; y <= bottom; y++) {
    for (let x = 0; x + w <= GRID_COLUMNS; x++) {
      const candidate = { x, y, w, h: size.h };
      if (!taken.some((rect) => overlaps(rect, candidate))) return candidate;
    }
  }
  return { x: 0, y: bottom, w, h: size.h };
}

/**
 * Where every tile sits: its stored rectangle, or — for tiles stored without one (added
 * through the insights API) — the first free spot after the placed ones, in `tiles` order.
 */
export function arrangeTiles<T extends { id: number; layouts?: unknown }>(tiles: readonly T[], defaultSize: (tile: T) => { w: number; h: number }): Map<number, TileRect> {
  const placed = new Map<number, TileRect>();
  for (const tile of tiles) {
    const rect = smallRect(tile.layouts);
    if (rect) placed.set(tile.id, rect);
  }
  for (const tile of tiles) {
    if (!placed.has(tile.id)) placed.set(tile.id, firstFreeRect([...placed.values()], defaultSize(tile)));
  }
  return placed;
}

/** Keeps a rectangle on the grid: inside the columns, below row 0, at least one cell. */
export function clampRect(rect: TileRect): TileRect {
  const w = Math.min(Math.max(Math.round(rect.w), 1), GRID_COLUMNS);
  const h = Math.min(Math.max(Math.round(rect.h), 1), MAX_TILE_HEIGHT);
  const x = Math.min(Math.max(Math.round(rect.x), 0), GRID_COLUMNS - w);
  const y = Math.min(Math.max(Math.round(rect.y), 0), MAX_ROW);
  return { x, y, w, h };
}

/**
 * Puts tile `id` at `target` and pushes every tile it now overlaps down below it, and so on
 * for the tiles those land on (react-grid-layout's behaviour without compaction). Returns
 * the rectangles that changed, by tile id.
 */
export function placeTile(rects: ReadonlyMap<number, TileRect>, id: number, target: TileRect): Map<number, TileRect> {
  const next = new Map(rects);
  next.set(id, clampRect(target));
  const queue = [id];
  while (queue.length > 0) {
    const moverId = queue.shift()!;
    const mover = next.get(moverId)!;
    // Nearest first, so a pushed tile pushes the ones under it in order.
    const hit = [...next.entries()]
      .filter(([other, rect]) => other !== moverId && other !== id && overlaps(rect, mover))
      .sort(([, a], [, b]) => a.y - b.y || a.x - b.x);
    for (const [other, rect] of hit) {
      next.set(other, { ...rect, y: mover.y + mover.h });
      queue.push(other);
    }
  }
  const changed = new Map<number, TileRect>();
  for (const [tileId, rect] of next) {
    const before = rects.get(tileId);
    if (!before || before.x !== rect.x || before.y !== rect.y || before.w !== rect.w || before.h !== rect.h) changed.set(tileId, rect);
  }
  return changed;
}

const byRowThenColumn = ([idA, a]: [number, TileRect], [idB, b]: [number, TileRect]) => a.y - b.y || a.x - b.x || idA - idB;

/** `rect` moved up while the row above is free of `placed`, then down below whatever it still overlaps. */
function settle(rect: TileRect, placed: readonly TileRect[]): TileRect {
  let y = rect.y;
  while (y > 0 && !placed.some((other) => overlaps(other, { ...rect, y: y - 1 }))) y--;
  let hit = placed.find((other) => overlaps(other, { ...rect, y }));
  while (hit) {
    y = hit.y + hit.h;
    hit = placed.find((other) => overlaps(other, { ...rect, y }));
  }
  return { ...rect, y };
}

/**
 * Vertical compaction (react-grid-layout's `compactType: "vertical"`): top to bottom, each
 * tile rises until the tile above stops it, so no tile has empty rows above it. Columns
 * never change. `pinned` tiles keep their rows and the others flow around them.
 */
export function compactRects(rects: ReadonlyMap<number, TileRect>, pinned: ReadonlySet<number> = new Set()): Map<number, TileRect> {
  const placed: TileRect[] = [];
  const next = new Map<number, TileRect>();
  for (const id of pinned) {
    const rect = rects.get(id);
    if (rect) {
      placed.push(rect);
      next.set(id, rect);
    }
  }
  for (const [id, rect] of [...rects].sort(byRowThenColumn)) {
    if (pinned.has(id)) continue;
    const settled = settle(rect, placed);
    placed.push(settled);
    next.set(id, settled);
  }
  return next;
}

/** The rectangles of `after` that differ from `before`, by tile id. */
export function changedRects(before: ReadonlyMap<number, TileRect>, after: ReadonlyMap<number, TileRect>): Map<number, TileRect> {
  const changed = new Map<number, TileRect>();
  for (const [id, rect] of after) {
    const was = before.get(id);
    if (!was || was.x !== rect.x || was.y !== rect.y || was.w !== rect.w || was.h !== rect.h) changed.set(id, rect);
  }
  return changed;
}

/**
 * Moves (or resizes) tile `id` to `target` as a drag does in react-grid-layout: the others
 * flow around it where it was dropped (a tile it lands on moves above it if it fits there,
 * else below), then everything compacts upward. Returns the whole compacted layout.
 */
export function moveTile(rects: ReadonlyMap<number, TileRect>, id: number, target: TileRect): Map<number, TileRect> {
  const dropped = new Map(rects);
  dropped.set(id, clampRect(target));
  const around = new Map(dropped);
  // A tile the moved one lands on tries the place just above it first (so two tiles swap).
  const mover = around.get(id)!;
  for (const [other, rect] of dropped) {
    if (other !== id && overlaps(rect, mover)) around.set(other, { ...rect, y: Math.max(0, mover.y - rect.h) });
  }
  return compactRects(compactRects(around, new Set([id])));
}
