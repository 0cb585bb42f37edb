import { describe, expect, it } from "vitest";
import { formatDuration, formatPercent, funnelBreakdownViews, timeToConvertBins } from "./funnel-steps";

/** The notes' worked example (PostHog test_funnel_step_conversion_times): sign up → play movie → buy, counts 3, 3, 2. */
const conversionTimes = [
  { action_id: "sign up", name: "sign up", custom_name: null, order: 0, people: [], count: 3, type: "events", average_conversion_time: null, median_conversion_time: null },
  { action_id: "play movie", name: "play movie", custom_name: null, order: 1, people: [], count: 3, type: "events", average_conversion_time: 6000, median_conversion_time: 7200 },
  { action_id: "buy", name: "buy", custom_name: null, order: 2, people: [], count: 2, type: "events", average_conversion_time: 5400, median_conversion_time: 5400 },
];

describe("funnel steps", () => {
  it("gives each step its conversion from the first and from the previous step, drop-off and median time", () => {
    const [only] = funnelBreakdownViews(conversionTimes)!;
    expect(only!.label).toBe("");
    expect(only!.steps.map((step) => [step.name, step.count, formatPercent(step.fromFirst), formatPercent(step.fromPrevious), step.dropped])).toEqual([
      ["sign up", 3, "100%", "100%", 0],
      ["play movie", 3, "100%", "100%", 0],
      ["buy", 2, "66.7%", "66.7%", 1],
    ]);
    expect(only!.steps.map((step) => (step.medianSeconds === null ? null : formatDuration(step.medianSeconds)))).toEqual([null, "2h", "1h 30m"]);
  });

  it("measures conversion from the previous step separately from the first", () => {
    const steps = [10, 5, 4].map((count, order) => ({ name: `s${order}`, order, count, average_conversion_time: null, median_conversion_time: null }));
    const [view] = funnelBreakdownViews(steps)!;
    expect(view!.steps.map((step) => [formatPercent(step.fromFirst), formatPercent(step.fromPrevious)])).toEqual([
      ["100%", "100%"],
      ["50%", "50%"],
      ["40%", "80%"],
    ]);
  });

  it("reads a breakdown result (array of step arrays) as one list per value, naming boxed values", () => {
    const withBreakdown = [
      conversionTimes.map((step) => ({ ...step, breakdown: ["Chrome"], breakdown_value: ["Chrome"] })),
      conversionTimes.map((step, i) => ({ ...step, count: [2, 1, 0][i]!, breakdown: ["Other"], breakdown_value: ["Other"] })),
    ];
    const views = funnelBreakdownViews(withBreakdown)!;
    expect(views.map((view) => view.label)).toEqual(["Chrome", "Other"]);
    expect(views[0]!.value).toEqual(["Chrome"]);
    expect(views[1]!.steps.map((step) => formatPercent(step.fromFirst))).toEqual(["100%", "50%", "0%"]);
  });

  it("is empty for no persons and null for a shape that is not a funnel's", () => {
    expect(funnelBreakdownViews([])).toEqual([]);
    expect(funnelBreakdownViews([{ data: [1], labels: ["a"] }])).toBeNull();
    expect(funnelBreakdownViews({ bins: [] })).toBeNull();
  });

  it("does not divide by zero when nobody entered", () => {
    const [view] = funnelBreakdownViews([0, 0].map((count, order) => ({ name: `s${order}`, order, count, average_conversion_time: null, median_conversion_time: null })))!;
    expect(view!.steps.map((step) => [step.fromFirst, step.fromPrevious])).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });
});

describe("durations and percentages", () => {
  it("shows the two largest units", () => {
    expect([45, 300, 3600, 5400, 7200, 90_061, 3 * 86_400 + 4 * 3600].map(formatDuration)).toEqual(["45s", "5m", "1h", "1h 30m", "2h", "1d 1h", "3d 4h"]);
  });
  it("rounds percentages to one decimal", () => {
    expect([1, 2 / 3, 0.5, 0, 1 / 3].map(formatPercent)).toEqual(["100%", "66.7%", "50%", "0%", "33.3%"]);
  });
});

describe("time to convert", () => {
  it("labels each bin by its start and reaches to the next bin", () => {
    const result = timeToConvertBins({ average_conversion_time: 6000, bins: [[3600, 1], [5400, 0], [7200, 2]] })!;
    expect(result.average).toBe(6000);
    expect(result.bins).toEqual([
      { from: 3600, to: 5400, count: 1, label: "1h" },
      { from: 5400, to: 7200, count: 0, label: "1h 30m" },
      { from: 7200, to: 9000, count: 2, label: "2h" },
    ]);
  });
  it("is null for a steps result", () => {
    expect(timeToConvertBins(conversionTimes)).toBeNull();
  });
});
