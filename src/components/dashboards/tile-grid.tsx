"use client";

import { useEffect, useId, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent, type PointerEvent, type ReactNode } from "react";
import { cn } from "@/components/ui";
import { arrangeTiles, changedRects, compactRects, GRID_COLUMNS, INSIGHT_TILE_SIZE, moveTile, TEXT_TILE_SIZE, type TileRect } from "@/server/dashboards/tile-layout";

/** One grid row's height and the gap between cells, in pixels (the chart tiles are 5 rows). */
const ROW_PX = 60;
const GAP_PX = 16;

export interface GridTile {
  id: number;
  layouts?: unknown;
  insight?: unknown;
}

/** What the grid gives each tile to render: the move handle for its header. */
export interface TileControls {
  moveHandle: ReactNode;
}

interface TileGridProps<T extends GridTile> {
  /** A new array means new saved places: keep it stable between renders (useMemo). */
  tiles: readonly T[];
  /** Moving and resizing is on; `onCommit` saves the rectangles that changed (rejects: the grid snaps back). */
  editable?: boolean;
  onCommit?: (changed: Map<number, TileRect>) => Promise<unknown>;
  renderTile: (tile: T, controls: TileControls) => ReactNode;
  /** The accessible name of a tile, for the handles ("Move Pageviews"). */
  tileName: (tile: T) => string;
  testId?: string;
}

const describe = (rect: TileRect) => `column ${rect.x + 1}, row ${rect.y + 1}, ${rect.w} columns wide, ${rect.h} rows high`;

/**
 * The dashboard's 12-column grid. Tiles sit at their `layouts.sm` rectangles compacted
 * upward (no empty rows above any tile, whatever was stored); on narrow screens they stack
 * in that reading order, each as tall as its rows. With `editable`, a tile moves by dragging
 * its handle (or with the arrow keys while the handle has focus) and resizes by dragging its
 * corner (or with the arrow keys on the corner button); the others flow around it and the
 * grid compacts again, and every place that differs from the stored one is saved.
 */
export function TileGrid<T extends GridTile>({ tiles, editable = false, onCommit, renderTile, tileName, testId = "dashboard-tiles" }: TileGridProps<T>) {
  const gridRef = useRef<HTMLUListElement>(null);
  const instructionsId = useId();
  const stored = useMemo(() => arrangeTiles(tiles, (tile) => (tile.insight ? INSIGHT_TILE_SIZE : TEXT_TILE_SIZE)), [tiles]);
  const base = useMemo(() => compactRects(stored), [stored]);
  /** Rectangles shown ahead of the server: while dragging and until the save comes back. */
  const [override, setOverride] = useState<Map<number, TileRect> | null>(null);
  const [announcement, setAnnouncement] = useState("");
  /** The handle that had keyboard focus, to give it back when its tile moves in the DOM. */
  const focusedHandle = useRef<string | null>(null);

  useEffect(() => setOverride(null), [tiles]);
  useEffect(() => {
    if (!focusedHandle.current || document.activeElement !== document.body) return;
    gridRef.current?.querySelector<HTMLElement>(`[data-handle="${focusedHandle.current}"]`)?.focus();
  });

  const rects = override ? new Map([...base, ...override]) : base;
  // Reading order (and the stacked order on phones) follows the saved places, not a drag in progress.
  const ordered = [...tiles].sort((a, b) => {
    const ra = base.get(a.id)!;
    const rb = base.get(b.id)!;
    return ra.y - rb.y || ra.x - rb.x || a.id - b.id;
  });

  /** Shows `layout` at once and saves every place in it that differs from the stored one. */
  function commit(layout: Map<number, TileRect>) {
    const changed = changedRects(stored, layout);
    if (changed.size === 0 || !onCommit) {
      setOverride(null);
      return;
    }
    setOverride(layout);
    onCommit(changed).catch(() => setOverride(null));
  }

  function startDrag(event: PointerEvent<HTMLElement>, tile: T, mode: "move" | "resize") {
    if (!editable || event.button !== 0 || !gridRef.current) return;
    event.preventDefault();
    const columnStep = (gridRef.current.clientWidth + GAP_PX) / GRID_COLUMNS;
    const rowStep = ROW_PX + GAP_PX;
    const start = rects.get(tile.id)!;
    const snapshot = new Map(rects);
    const origin = { x: event.clientX, y: event.clientY };
    let latest = snapshot;
    const onMove = (move: globalThis.PointerEvent) => {
      const dx = Math.round((move.clientX - origin.x) / columnStep);
      const dy = Math.round((move.clientY - origin.y) / rowStep);
      const target = mode === "move" ? { ...start, x: start.x + dx, y: start.y + dy } : { ...start, w: start.w + dx, h: start.h + dy };
      latest = moveTile(snapshot, tile.id, target);
      setOverride(latest);
    };
    const onUp = () => {
      window.removeEventListener("pointermove", onMove);
      window.removeEventListener("pointerup", onUp);
      window.removeEventListener("pointercancel", onUp);
      commit(latest);
      const moved = latest.get(tile.id);
      if (moved) setAnnouncement(`${tileName(tile)}: ${describe(moved)}.`);
    };
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp);
    window.addEventListener("pointercancel", onUp);
  }

  function onHandleKey(event: KeyboardEvent<HTMLElement>, tile: T, mode: "move" | "resize") {
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
    if (!editable || !step) return;
    event.preventDefault();
    const start = rects.get(tile.id)!;
    const [dx, dy] = step as [number, number];
    // Down one row alone compacts straight back: go on until the layout changes (past the tile below).
    let layout = new Map(rects);
    for (let distance = 1; distance <= 40; distance++) {
      const target = mode === "move" ? { ...start, x: start.x + dx * distance, y: start.y + dy * distance } : { ...start, w: start.w + dx, h: start.h + dy };
      layout = moveTile(rects, tile.id, target);
      if (mode === "resize" || dy <= 0 || changedRects(rects, layout).size > 0) break;
    }
    const moved = layout.get(tile.id) ?? start;
    focusedHandle.current = `${mode}-${tile.id}`;
    setAnnouncement(changedRects(rects, layout).size === 0 ? `${tileName(tile)} cannot go further.` : `${tileName(tile)}: ${describe(moved)}.`);
    commit(layout);
  }

  return (
    <div className="flex flex-col gap-2">
      {editable && (
        <p id={instructionsId} className="sr-only">
          Drag a tile&apos;s handle to move it, or focus the handle and use the arrow keys. Drag the corner, or focus it and use the arrow keys, to resize.
        </p>
      )}
      <p className="sr-only" aria-live="polite" data-testid="tile-announcement">
        {announcement}
      </p>
      <ul ref={gridRef} className="grid grid-cols-1 gap-4 sm:grid-cols-12" style={{ gridAutoRows: `${ROW_PX}px` }} data-testid={testId} data-state="ready" aria-label="Tiles">
        {ordered.map((tile) => {
          const rect = rects.get(tile.id)!;
          const dragging = override?.has(tile.id) ?? false;
          const style = {
            "--tile-col": `${rect.x + 1} / span ${rect.w}`,
            "--tile-row": `${rect.y + 1} / span ${rect.h}`,
            "--tile-span": `span ${rect.h}`,
          } as CSSProperties;
          const name = tileName(tile);
          const moveHandle = editable ? (
            <button
              type="button"
              className="hidden size-7 shrink-0 cursor-grab touch-none items-center justify-center rounded-control text-gray-400 hover:bg-gray-100 hover:text-gray-700 focus-visible:outline-2 focus-visible:outline-brand-600 active:cursor-grabbing sm:inline-flex"
              aria-label={`Move ${name}`}
              aria-describedby={instructionsId}
              data-handle={`move-${tile.id}`}
              data-testid="tile-move"
              onPointerDown={(event) => startDrag(event, tile, "move")}
              onKeyDown={(event) => onHandleKey(event, tile, "move")}
              onBlur={() => (focusedHandle.current = null)}
            >
              <svg viewBox="0 0 20 20" fill="currentColor" className="size-4" aria-hidden="true">
                <path d="M7 4a1.25 1.25 0 1 1-2.5 0A1.25 1.25 0 0 1 7 4Zm0 6a1.25 1.25 0 1 1-2.5 0A1.25 1.25 0 0 1 7 10Zm-1.25 7.25a1.25 1.25 0 1 0 0-2.5 1.25 1.25 0 0 0 0 2.5ZM15.5 4A1.25 1.25 0 1 1 13 4a1.25 1.25 0 0 1 2.5 0Zm-1.25 7.25a1.25 1.25 0 1 0 0-2.5 1.25 1.25 0 0 0 0 2.5ZM15.5 16a1.25 1.25 0 1 1-2.5 0 1.25 1.25 0 0 1 2.5 0Z" />
              </svg>
            </button>
          ) : null;
          return (
            <li
              key={tile.id}
              style={style}
              className={cn("relative min-w-0 [grid-row:var(--tile-span)] sm:[grid-column:var(--tile-col)] sm:[grid-row:var(--tile-row)]", dragging && "z-10 opacity-90")}
              data-testid="dashboard-tile"
              data-x={rect.x}
              data-y={rect.y}
              data-w={rect.w}
              data-h={rect.h}
            >
              {renderTile(tile, { moveHandle })}
              {editable && (
                <button
                  type="button"
                  className="absolute right-0.5 bottom-0.5 hidden size-5 cursor-se-resize touch-none items-end justify-end rounded-sm text-gray-400 hover:text-gray-700 focus-visible:outline-2 focus-visible:outline-brand-600 sm:flex"
                  aria-label={`Resize ${name}`}
                  aria-describedby={instructionsId}
                  data-handle={`resize-${tile.id}`}
                  data-testid="tile-resize"
                  onPointerDown={(event) => startDrag(event, tile, "resize")}
                  onKeyDown={(event) => onHandleKey(event, tile, "resize")}
                  onBlur={() => (focusedHandle.current = null)}
                >
                  <svg viewBox="0 0 10 10" className="size-3" aria-hidden="true">
                    <path d="M9 1 1 9M9 5 5 9" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
                  </svg>
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
