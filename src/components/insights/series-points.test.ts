import { describe, expect, it } from "vitest";
import { DOTS_UP_TO, pointShown } from "./series-points";

describe("visible points", () => {
  it("shows every point of a short series, zeros too", () => {
    const data = [0, 3, 0, 0, 1];
    expect(data.map((_, index) => pointShown(data, index))).toEqual([true, true, true, true, true]);
  });

  it("on a long series shows only values with nothing either side", () => {
    const data = Array.from({ length: DOTS_UP_TO + 10 }, () => 0);
    data[5] = 2; // alone
    data[20] = 1; // beside another
    data[21] = 4;
    data[data.length - 1] = 7; // alone at the end
    const shown = data.flatMap((_, index) => (pointShown(data, index) ? [index] : []));
    expect(shown).toEqual([5, data.length - 1]);
  });
});
