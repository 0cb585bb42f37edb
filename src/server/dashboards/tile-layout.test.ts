/** The grid's placement rules: parsing stored layouts, first free spots, pushing on move. */
import { describe, expect, it } from "vitest";
import { queryNodeSchema } from "@/server/query/contract";
import { DASHBOARD_TEMPLATES } from "./templates";
import { arrangeTiles, changedRects, clampRect, compactRects, firstFreeRect, moveTile, overlaps, placeTile, smallRect, tileLayoutsSchema, type TileRect } from "./tile-layout";

const rect = (x: number, y: number, w: number, h: number): TileRect => ({ x, y, w, h });

describe("smallRect", () => {
  it("reads sm, and nothing from missing or broken layouts", () => {
    expect(smallRect({ sm: { x: 2, y: 3, w: 4, h: 5, minW: 1 } })).toEqual(rect(2, 3, 4, 5));
    expect(smallRect({})).toBeNull();
    expect(smallRect(null)).toBeNull();
    expect(smallRect({ sm: { x: 0, y: 0 } })).toBeNull();
    expect(smallRect({ sm: { x: 10, y: 0, w: 4, h: 2 } })).toBeNull();
  });
});

describe("tileLayoutsSchema", () => {
  it("refuses tiles off the 12 columns, fractional cells and negative rows", () => {
    expect(tileLayoutsSchema.safeParse({ sm: { x: 8, y: 0, w: 6, h: 2 } }).success).toBe(false);
    expect(tileLayoutsSchema.safeParse({ sm: { x: 0.5, y: 0, w: 6, h: 2 } }).success).toBe(false);
    expect(tileLayoutsSchema.safeParse({ sm: { x: 0, y: -1, w: 6, h: 2 } }).success).toBe(false);
    expect(tileLayoutsSchema.safeParse({ sm: { x: 6, y: 0, w: 6, h: 2 }, xs: { x: 0, y: 0, w: 1, h: 2 } }).success).toBe(true);
  });
});

describe("firstFreeRect", () => {
  it("fills the top row left to right, then goes below", () => {
    expect(firstFreeRect([], { w: 6, h: 5 })).toEqual(rect(0, 0, 6, 5));
    expect(firstFreeRect([rect(0, 0, 6, 5)], { w: 6, h: 5 })).toEqual(rect(6, 0, 6, 5));
    expect(firstFreeRect([rect(0, 0, 6, 5), rect(6, 0, 6, 5)], { w: 6, h: 5 })).toEqual(rect(0, 5, 6, 5));
  });

  it("uses a gap that fits, and skips one that does not", () => {
    expect(firstFreeRect([rect(0, 0, 4, 2), rect(8, 0, 4, 2)], { w: 4, h: 2 })).toEqual(rect(4, 0, 4, 2));
    expect(firstFreeRect([rect(0, 0, 4, 2), rect(8, 0, 4, 2)], { w: 6, h: 2 })).toEqual(rect(0, 2, 6, 2));
  });
});

describe("arrangeTiles", () => {
  it("keeps stored places and puts tiles without one in the first free spots", () => {
    const placed = arrangeTiles(
      [
        { id: 1, layouts: { sm: rect(0, 0, 6, 5) } },
        { id: 2, layouts: {} },
        { id: 3, layouts: { sm: rect(0, 5, 12, 2) } },
      ],
      () => ({ w: 6, h: 5 }),
    );
    expect(placed.get(1)).toEqual(rect(0, 0, 6, 5));
    expect(placed.get(2)).toEqual(rect(6, 0, 6, 5));
    expect(placed.get(3)).toEqual(rect(0, 5, 12, 2));
  });
});

describe("placeTile", () => {
  const grid = new Map<number, TileRect>([
    [1, rect(0, 0, 6, 4)],
    [2, rect(6, 0, 6, 4)],
    [3, rect(6, 4, 6, 2)],
  ]);

  it("moves a tile into free space without touching the others", () => {
    expect(placeTile(grid, 1, rect(0, 6, 6, 4))).toEqual(new Map([[1, rect(0, 6, 6, 4)]]));
  });

  it("pushes the tiles it lands on down, in a chain", () => {
    const changed = placeTile(grid, 1, rect(6, 0, 6, 4));
    expect(changed.get(1)).toEqual(rect(6, 0, 6, 4));
    expect(changed.get(2)).toEqual(rect(6, 4, 6, 4));
    expect(changed.get(3)).toEqual(rect(6, 8, 6, 2));
    const all = new Map([...grid, ...changed]);
    const rects = [...all.values()];
    for (const [i, a] of rects.entries()) for (const b of rects.slice(i + 1)) expect(overlaps(a, b)).toBe(false);
  });

  it("grows a tile and pushes what is under it", () => {
    const changed = placeTile(grid, 2, rect(6, 0, 6, 6));
    expect([...changed.keys()].sort()).toEqual([2, 3]);
    expect(changed.get(3)).toEqual(rect(6, 6, 6, 2));
  });

  it("keeps the target on the grid", () => {
    expect(clampRect(rect(10, -2, 6, 0))).toEqual(rect(6, 0, 6, 1));
    expect(placeTile(grid, 1, rect(-3, 0, 6, 4)).size).toBe(0);
  });
});

describe("templates", () => {
  it("have unique keys, insights whose queries the insights API accepts, and tiles that do not overlap", () => {
    expect(new Set(DASHBOARD_TEMPLATES.map((t) => t.key)).size).toBe(DASHBOARD_TEMPLATES.length);
    for (const template of DASHBOARD_TEMPLATES) {
      for (const tile of template.tiles) {
        if ("insight" in tile) expect(queryNodeSchema.safeParse(tile.insight.query).error).toBeUndefined();
        expect(tileLayoutsSchema.safeParse({ sm: tile.rect }).success).toBe(true);
      }
      const rects = template.tiles.map((tile) => tile.rect);
      for (const [i, a] of rects.entries()) for (const b of rects.slice(i + 1)) expect(overlaps(a, b)).toBe(false);
    }
  });
});

/** Every tile sits on row 0 or directly under a tile sharing one of its columns: nothing can rise. */
function packed(rects: ReadonlyMap<number, TileRect>): boolean {
  const all = [...rects.values()];
  return all.every((rect) => rect.y === 0 || all.some((other) => other !== rect && overlaps(other, { ...rect, y: rect.y - 1 })));
}
const noOverlaps = (rects: ReadonlyMap<number, TileRect>) => {
  const all = [...rects.values()];
  return all.every((a, i) => all.every((b, j) => i === j || !overlaps(a, b)));
};

describe("compactRects", () => {
  it("lifts every tile until the one above stops it, keeping columns and order", () => {
    const holey = new Map([
      [1, rect(0, 3, 6, 5)],
      [2, rect(6, 0, 6, 2)],
      [3, rect(6, 9, 6, 4)],
      [4, rect(0, 20, 12, 2)],
    ]);
    const compacted = compactRects(holey);
    expect(compacted).toEqual(
      new Map([
        [1, rect(0, 0, 6, 5)],
        [2, rect(6, 0, 6, 2)],
        [3, rect(6, 2, 6, 4)],
        [4, rect(0, 6, 12, 2)],
      ]),
    );
    expect(packed(compacted)).toBe(true);
    expect(compactRects(compacted)).toEqual(compacted);
  });

  it("closes the gap a removed tile leaves", () => {
    const grid = new Map([
      [1, rect(0, 0, 6, 5)],
      [2, rect(6, 0, 6, 5)],
      [3, rect(0, 5, 6, 5)],
      [4, rect(6, 5, 6, 5)],
      [5, rect(0, 10, 12, 2)],
    ]);
    grid.delete(2);
    const compacted = compactRects(grid);
    expect(compacted.get(4)).toEqual(rect(6, 0, 6, 5));
    expect(compacted.get(5)).toEqual(rect(0, 10, 12, 2));
    expect(changedRects(grid, compacted)).toEqual(new Map([[4, rect(6, 0, 6, 5)]]));
  });

  it("packs any scattered layout without overlaps", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let round = 0; round < 50; round++) {
      const rects = new Map<number, TileRect>();
      for (let id = 1; id <= 12; id++) {
        const w = 1 + Math.floor(random() * 12);
        const candidate = firstFreeRect([...rects.values()], { w, h: 1 + Math.floor(random() * 6) });
        rects.set(id, { ...candidate, y: candidate.y + Math.floor(random() * 8) });
      }
      const compacted = compactRects(rects);
      expect(noOverlaps(compacted)).toBe(true);
      expect(packed(compacted)).toBe(true);
    }
  });
});

describe("moveTile", () => {
  const pair = new Map([
    [1, rect(0, 0, 12, 3)],
    [2, rect(0, 3, 12, 3)],
  ]);

  it("swaps two stacked tiles when one is dropped past the other's top", () => {
    expect(moveTile(pair, 1, rect(0, 3, 12, 3))).toEqual(
      new Map([
        [1, rect(0, 3, 12, 3)],
        [2, rect(0, 0, 12, 3)],
      ]),
    );
    expect(moveTile(pair, 2, rect(0, 0, 12, 3))).toEqual(
      new Map([
        [1, rect(0, 3, 12, 3)],
        [2, rect(0, 0, 12, 3)],
      ]),
    );
  });

  it("never leaves a hole: a tile dropped low rises, one moved aside lets the others rise", () => {
    expect(moveTile(pair, 2, rect(0, 30, 12, 3))).toEqual(pair);
    const three = new Map([
      [1, rect(0, 0, 6, 5)],
      [2, rect(6, 0, 6, 5)],
      [3, rect(0, 5, 6, 5)],
    ]);
    const moved = moveTile(three, 3, rect(6, 5, 6, 5));
    expect(moved.get(3)).toEqual(rect(6, 5, 6, 5));
    expect(packed(moved)).toBe(true);
    const grown = moveTile(three, 1, rect(0, 0, 6, 8));
    expect(grown.get(3)).toEqual(rect(0, 8, 6, 5));
    expect(packed(grown) && noOverlaps(grown)).toBe(true);
  });
});
