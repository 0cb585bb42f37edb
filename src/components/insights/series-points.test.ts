import { describe, expect, it } from "vitest";
import { ALL_DOTS_UP_TO, DOTS_UP_TO, pointShown } from "./series-points";

const shownOf = (data: number[]) => data.flatMap((_, index) => (pointShown(data, index) ? [index] : []));

describe("visible points", () => {
  it("shows every point of a short series, zeros too", () => {
    const data = [0, 3, 0, 0, 1];
    expect(shownOf(data)).toEqual([0, 1, 2, 3, 4]);
  });

  it("on a month of days shows the non-zero points only", () => {
    const data = Array.from({ length: ALL_DOTS_UP_TO + 10 }, () => 0);
    data[3] = 1;
    data[4] = 2;
    data[data.length - 1] = 5;
    expect(shownOf(data)).toEqual([3, 4, data.length - 1]);
  });

  it("on a long series shows only values with nothing either side", () => {
    const data = Array.from({ length: DOTS_UP_TO + 10 }, () => 0);
    data[5] = 2; // alone
    data[20] = 1; // beside another
    data[21] = 4;
    data[data.length - 1] = 7; // alone at the end
    expect(shownOf(data)).toEqual([5, data.length - 1]);
  });
});
