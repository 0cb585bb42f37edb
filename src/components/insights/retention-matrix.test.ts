import { describe, expect, it } from "vitest";
import { retentionCurve, retentionMatrix, retentionShade } from "./retention-matrix";

/** The notes' worked example (PostHog test_day_interval): 11 daily cohorts from 2020-06-10, 11 periods. */
const counts = [
  [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0],
  [2, 2, 1, 0, 1, 2, 0, 0, 0, 0, 0],
  [2, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0],
  [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];
const dayInterval = counts.map((row, i) => ({
  values: row.map((count, period) => ({ count, label: `Day ${period}` })),
  label: `Day ${i}`,
  date: `2020-06-${String(10 + i).padStart(2, "0")}T00:00:00Z`,
  breakdown_value: null,
}));

describe("retention matrix", () => {
  it("gives each cohort its date, size and every period's share of it", () => {
    const matrix = retentionMatrix(dayInterval)!;
    expect(matrix.periods).toEqual(["Day 0", "Day 1", "Day 2", "Day 3", "Day 4", "Day 5", "Day 6", "Day 7", "Day 8", "Day 9", "Day 10"]);
    const second = matrix.cohorts[1]!;
    expect([second.date, second.size, second.index]).toEqual(["2020-06-11T00:00:00Z", 2, 1]);
    expect(second.cells.slice(0, 6).map((cell) => cell.share)).toEqual([1, 1, 0.5, 0, 0.5, 1]);
    expect(matrix.cohorts[4]!.cells.every((cell) => cell.share === 0)).toBe(true);
  });

  it("marks cells after the range's last interval as future (the triangle PostHog pads with zeros)", () => {
    const matrix = retentionMatrix(dayInterval)!;
    expect(matrix.cohorts[0]!.cells.filter((cell) => cell.future)).toHaveLength(0);
    expect(matrix.cohorts[6]!.cells.map((cell) => cell.future)).toEqual([false, false, false, false, false, true, true, true, true, true, true]);
    expect(matrix.cohorts[10]!.cells.filter((cell) => !cell.future).map((cell) => cell.period)).toEqual([0]);
  });

  it("counts the future per breakdown value and names the value", () => {
    const rows = ["Chrome", "Safari"].flatMap((browser) =>
      [0, 1].map((i) => ({ values: [{ count: 2 }, { count: 1 }], label: `Day ${i}`, date: `2020-06-1${i}`, breakdown_value: browser })),
    );
    const matrix = retentionMatrix(rows)!;
    expect(matrix.cohorts.map((cohort) => [cohort.breakdown, cohort.interval, cohort.cells.map((cell) => cell.future)])).toEqual([
      ["Chrome", 0, [false, false]],
      ["Chrome", 1, [false, true]],
      ["Safari", 0, [false, false]],
      ["Safari", 1, [false, true]],
    ]);
  });

  it("is null for a result that is not retention's", () => {
    expect(retentionMatrix([{ data: [1], labels: ["x"] }])).toBeNull();
    expect(retentionMatrix({ results: [] })).toBeNull();
  });
});

describe("retention shading", () => {
  it("darkens with the share and switches to white text on dark cells", () => {
    const shades = [0, 0.5, 1].map(retentionShade);
    expect(shades.map((shade) => shade.background)).toEqual(["rgba(79, 70, 229, 0.06)", "rgba(79, 70, 229, 0.53)", "rgba(79, 70, 229, 1)"]);
    expect(shades.map((shade) => shade.color)).toEqual(["#1f2937", "#ffffff", "#ffffff"]);
  });
  it("clamps shares outside 0..1", () => {
    expect(retentionShade(2)).toEqual(retentionShade(1));
    expect(retentionShade(-1)).toEqual(retentionShade(0));
  });
});

describe("retention curve", () => {
  it("is every cohort together: per period, those back over the sizes of the cohorts it has reached", () => {
    // Sizes 1, 2, 2, 1, 0, 1, 2 (then empty); cohort i reaches periods below 11 − i.
    expect(retentionCurve(retentionMatrix(dayInterval)!).map((point) => point.share)).toEqual([1, 5 / 9, 2 / 9, 2 / 9, 3 / 9, 3 / 7, 1 / 6, 0, 0, 0, 0]);
    const empty = retentionMatrix([{ values: [{ count: 0 }, { count: 0 }], label: "Day 0", date: "2020-06-10T00:00:00Z" }])!;
    expect(retentionCurve(empty).map((point) => point.share)).toEqual([null, null]);
  });
});
