/**
 * The result shapes' arithmetic: ClickHouse's median, cumulative step counts, the time to
 * convert histogram (PostHog's bins) and funnel trends' rounding.
 */
import { describe, expect, it } from "vitest";
import { cumulativeCounts, median, timeToConvert, trendSeries } from "./present";

describe("funnel results", () => {
  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(median([7200, 3600, 7200])).toBe(7200);
    expect(median([7200, 3600])).toBe(5400);
    expect(median([])).toBeNull();
  });

  it("counts a person at every step up to their furthest", () => {
    expect(cumulativeCounts({ reached: [1, 0, 2], seconds: [[], [], []] })).toEqual([3, 2, 2]);
  });

  it("bins times to convert from the floor of the fastest, one more bin start after the last", () => {
    expect(timeToConvert([3600, 2220, 82800], null)).toEqual({ average_conversion_time: 29540, bins: [[2220, 2], [42510, 0], [82800, 1]] });
    // All alike: ⌈∛2⌉ = 2 bins, 60 s wide.
    expect(timeToConvert([10, 10], null)).toEqual({ average_conversion_time: 10, bins: [[10, 2], [70, 0], [130, 0]] });
    expect(timeToConvert([], 5)).toEqual({ average_conversion_time: null, bins: [] });
  });

  it("rounds conversion rates to two decimals, 0 where nobody entered", () => {
    expect(trendSeries([3, 0], [1, 0], ["a", "b"], ["A", "B"]).data).toEqual([33.33, 0]);
  });
});
