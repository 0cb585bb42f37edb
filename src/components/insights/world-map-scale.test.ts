import { describe, expect, it } from "vitest";
import { MAP_STEPS, mapScale, NO_VALUE_COLOR, niceStep } from "./world-map-scale";

describe("the world map's scale", () => {
  it("greys countries without a value", () => {
    const scale = mapScale([10, 20]);
    expect(scale.colorOf(undefined)).toBe(NO_VALUE_COLOR);
    expect(scale.colorOf(0)).toBe(NO_VALUE_COLOR);
  });

  it("splits up to the largest value in five nice steps, the largest darkest", () => {
    const scale = mapScale([5, 40, 120]);
    expect(scale.stops.map(({ from, to }) => [from, to])).toEqual([
      [0, 25],
      [25, 50],
      [50, 75],
      [75, 100],
      [100, 125],
    ]);
    expect(scale.colorOf(120)).toBe(MAP_STEPS[4]);
    expect(scale.colorOf(40)).toBe(MAP_STEPS[1]);
    expect(scale.colorOf(5)).toBe(MAP_STEPS[0]);
    expect(scale.colorOf(25)).toBe(MAP_STEPS[0]);
    expect(scale.colorOf(26)).toBe(MAP_STEPS[1]);
  });

  it("uses one step per whole number when the values are small", () => {
    const scale = mapScale([1, 2, 3]);
    expect(scale.stops).toHaveLength(3);
    expect([1, 2, 3].map((value) => scale.colorOf(value))).toEqual(MAP_STEPS.slice(2));
    const single = mapScale([1]);
    expect(single.stops).toEqual([{ from: 0, to: 1, color: MAP_STEPS[4] }]);
  });

  it("rounds steps to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([0.4, 1, 3, 7, 24, 130, 4100].map(niceStep)).toEqual([1, 1, 5, 10, 25, 200, 5000]);
  });
});
