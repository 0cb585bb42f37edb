import { describe, expect, it } from "vitest";
import { PALETTE } from "./palette";
import { itemName, itemTotal, legendEntries, type LegendSource } from "./series-legend";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from "./series-names";

const item = (label: string, data: number[], extra: Partial<LegendSource> = {}): LegendSource => ({ label, data, action: { order: 0 }, ...extra });

describe("legend totals", () => {
  it("sums a series' points, takes a cumulative line's last point and a total value as it is", () => {
    expect(itemTotal(item("$pageview", [1, 0, 4]))).toBe(5);
    expect(itemTotal(item("$pageview", [1, 1, 5]), { cumulative: true })).toBe(5);
    expect(itemTotal(item("$pageview", [], { aggregated_value: 42 }))).toBe(42);
    expect(itemTotal(item("$pageview", []))).toBe(0);
  });

  it("lists every item with its name and total", () => {
    const entries = legendEntries([item("$pageview", [2, 3]), item("sign up", [1, 0], { action: { order: 1 } })]);
    expect(entries.map(({ name, total }) => [name, total])).toEqual([
      ["$pageview", 5],
      ["sign up", 1],
    ]);
  });
});

describe("series names", () => {
  it("names breakdown values in words, after their series when there are several", () => {
    expect(itemName(item("Chrome", [], { breakdown_value: "Chrome" }))).toBe("Chrome");
    expect(itemName(item(BREAKDOWN_OTHER, [], { breakdown_value: BREAKDOWN_OTHER }))).toBe("Other");
    expect(itemName(item(BREAKDOWN_NULL, [], { breakdown_value: BREAKDOWN_NULL }))).toBe("(none)");
    expect(itemName(item(`$pageview - ${BREAKDOWN_OTHER}`, [], { breakdown_value: BREAKDOWN_OTHER }))).toBe("$pageview - Other");
    expect(itemName(item("$pageview - Pros", [], { breakdown_value: 7 }))).toBe("$pageview - Pros");
    expect(itemName(item("$pageview", [], { action: { order: 0, custom_name: "Visits" } }))).toBe("Visits");
  });
});

describe("series colours", () => {
  it("gives each series and breakdown value the palette in order", () => {
    const entries = legendEntries([item("a", [1], { breakdown_value: "a" }), item("b", [1], { breakdown_value: "b" }), item("c", [1], { breakdown_value: "c" })]);
    expect(entries.map((entry) => entry.color)).toEqual(PALETTE.slice(0, 3));
  });

  it("gives a previous period its current counterpart's colour and marks it", () => {
    const entries = legendEntries([
      item("$pageview", [3], { compare_label: "current" }),
      item("sign up", [1], { compare_label: "current", action: { order: 1 } }),
      item("$pageview", [2], { compare_label: "previous" }),
      item("sign up", [0], { compare_label: "previous", action: { order: 1 } }),
    ]);
    expect(entries.map(({ name, color, previous }) => [name, color, previous])).toEqual([
      ["$pageview", PALETTE[0], false],
      ["sign up", PALETTE[1], false],
      ["$pageview (previous)", PALETTE[0], true],
      ["sign up (previous)", PALETTE[1], true],
    ]);
  });

  it("wraps around the palette past its end", () => {
    const many = Array.from({ length: PALETTE.length + 2 }, (_, index) => item(`v${index}`, [1], { breakdown_value: `v${index}` }));
    const colors = legendEntries(many).map((entry) => entry.color);
    expect(colors[PALETTE.length]).toBe(PALETTE[0]);
    expect(colors[PALETTE.length + 1]).toBe(PALETTE[1]);
  });
});
