import { describe, expect, it } from "vitest";
import { periodChange } from "./number-change";

describe("change against the previous period", () => {
  it("gives the rise or fall as a share of the previous value", () => {
    expect(periodChange(125, 100)).toEqual({ direction: "up", ratio: 0.25, text: "↑ 25%" });
    expect(periodChange(7, 8)).toEqual({ direction: "down", ratio: -0.125, text: "↓ 12.5%" });
    expect(periodChange(3, 1).text).toBe("↑ 200%");
    expect(periodChange(1, 3).text).toBe("↓ 66.7%");
  });

  it("says 'from 0' when there was nothing before, and 'No change' when equal", () => {
    expect(periodChange(5, 0)).toEqual({ direction: "up", ratio: null, text: "↑ from 0" });
    expect(periodChange(0, 0)).toEqual({ direction: "flat", ratio: null, text: "No change" });
    expect(periodChange(4, 4)).toEqual({ direction: "flat", ratio: 0, text: "No change" });
    expect(periodChange(0, 4)).toEqual({ direction: "down", ratio: -1, text: "↓ 100%" });
  });
});
