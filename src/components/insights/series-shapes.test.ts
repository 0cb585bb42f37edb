import { describe, expect, it } from "vitest";
import { lifecycleBuckets, seriesResults, stickinessBuckets } from "./series-shapes";

const lifecycle = (status: string, data: number[]) => ({
  action: { id: "$pageview", name: "$pageview", type: "events", order: 0, math: "total" },
  data,
  count: data.reduce((a, b) => a + b, 0),
  labels: ["1-Jan-2024", "2-Jan-2024"],
  days: ["2024-01-01", "2024-01-02"],
  label: `$pageview - ${status}`,
  status,
});

describe("lifecycle buckets", () => {
  it("gives each date the four statuses, dormant below zero", () => {
    const rows = [lifecycle("new", [2, 1]), lifecycle("returning", [0, 1]), lifecycle("resurrecting", [1, 0]), lifecycle("dormant", [0, -2])];
    expect(lifecycleBuckets(seriesResults(rows)!)).toEqual([
      { label: "1-Jan-2024", day: "2024-01-01", new: 2, returning: 0, resurrecting: 1, dormant: -0 },
      { label: "2-Jan-2024", day: "2024-01-02", new: 1, returning: 1, resurrecting: 0, dormant: -2 },
    ]);
  });
  it("finds statuses by label when `status` is absent, and keeps dormant negative if sent positive", () => {
    const rows = [lifecycle("dormant", [3, 0]), lifecycle("new", [1, 1])].map(({ status: _status, ...rest }) => rest);
    const buckets = lifecycleBuckets(seriesResults(rows)!);
    expect(buckets.map((bucket) => [bucket.new, bucket.dormant])).toEqual([
      [1, -3],
      [1, -0],
    ]);
  });
});

describe("stickiness buckets", () => {
  it("gives one bar group per number of active days with each series' persons", () => {
    const series = [
      { label: "$pageview", data: [7, 3, 2], days: [1, 2, 3], labels: ["1 day", "2 days", "3 days"], count: 12 },
      { label: "buy", data: [1, 0, 0], days: [1, 2, 3], labels: ["1 day", "2 days", "3 days"], count: 1 },
    ];
    expect(stickinessBuckets(seriesResults(series)!)).toEqual([
      { label: "1 day", intervals: 1, s0: 7, s1: 1 },
      { label: "2 days", intervals: 2, s0: 3, s1: 0 },
      { label: "3 days", intervals: 3, s0: 2, s1: 0 },
    ]);
  });
  it("refuses results that are not series", () => {
    expect(seriesResults([{ source: "1_a", target: "2_b", value: 1 }])).toBeNull();
    expect(seriesResults({ bins: [] })).toBeNull();
  });
});
