import { describe, expect, it } from "vitest";
import { TOTAL_VALUE_DISPLAYS } from "@/server/trends/contract";
import { alertableInsight, alertCreateBody, SINGLE_VALUE_DISPLAYS } from "./contract";
import { AlertCheckError, alertQuery, evaluate } from "./evaluate";
import { nextCheckTime } from "./service";

const trends = (display?: string, interval = "day") => ({ kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ event: "a" }], interval, ...(display ? { trendsFilter: { display } } : {}) } });
const series = (data: number[], extra: Record<string, unknown> = {}) => ({ label: "a", data, count: 0, action: { order: 0 }, ...extra });
const config = { type: "TrendsAlertConfig" as const, series_index: 0 };
const upper = (value: number, type: "absolute" | "percentage" = "absolute") => ({ type, bounds: { upper: value } });

describe("alertQuery", () => {
  it("reads the last three intervals of a time series, in the insight's own interval", () => {
    expect(alertQuery(trends(), "absolute_value").filtersOverride).toEqual({ date_from: "-2d", date_to: null, interval: "day" });
    expect(alertQuery(trends(undefined, "hour"), "relative_increase").filtersOverride).toMatchObject({ date_from: "-2h", interval: "hour" });
    expect(alertQuery(trends(undefined, "month"), "absolute_value").filtersOverride).toMatchObject({ date_from: "-2m" });
  });
  it("keeps a single value's own range, and refuses relative conditions on it and non-trends insights", () => {
    expect(alertQuery(trends("BoldNumber"), "absolute_value")).toMatchObject({ filtersOverride: null, timeSeries: false });
    expect(() => alertQuery(trends("BoldNumber"), "relative_decrease")).toThrow(AlertCheckError);
    expect(() => alertQuery({ kind: "InsightVizNode", source: { kind: "FunnelsQuery" } }, "absolute_value")).toThrow(/trends insights only/);
  });
});

describe("evaluate", () => {
  it("reads the previous complete interval, or the ongoing one", () => {
    expect(evaluate([series([9, 2, 5, 1])], upper(4), "absolute_value", config, true)).toEqual({ value: 5, breaches: ["a (5) is more than upper threshold (4)"] });
    expect(evaluate([series([9, 2, 5, 1])], upper(4), "absolute_value", { ...config, check_ongoing_interval: true }, true)).toEqual({ value: 1, breaches: [] });
  });
  it("compares relative changes as numbers and fractions, a zero base counting as an infinite increase", () => {
    expect(evaluate([series([2, 5, 0])], upper(2), "relative_increase", config, true).value).toBe(3);
    expect(evaluate([series([2, 5, 0])], upper(1, "percentage"), "relative_increase", config, true).breaches).toEqual(["a (150%) increased more than upper threshold (100%)"]);
    expect(evaluate([series([4, 1, 0])], upper(0.5, "percentage"), "relative_decrease", config, true).value).toBe(0.75);
    expect(evaluate([series([0, 3, 0])], upper(10, "percentage"), "relative_increase", config, true).breaches).toHaveLength(1);
  });
  it("checks each breakdown value of the series, leaves out the comparison period, and reports the breaching one", () => {
    const results = [series([0, 1, 0], { breakdown_value: "x" }), series([0, 9, 0], { breakdown_value: "y" }), series([0, 50, 0], { compare_label: "previous" }), series([0, 99, 0], { action: { order: 1 } })];
    expect(evaluate(results, upper(5), "absolute_value", config, true)).toEqual({ value: 9, breaches: ["a (y) (9) is more than upper threshold (5)"] });
  });
  it("errors on a missing series", () => {
    expect(() => evaluate([series([1, 2])], upper(1), "absolute_value", { ...config, series_index: 3 }, true)).toThrow(/no series 3/);
  });
});

describe("nextCheckTime", () => {
  const friday = new Date("2026-11-27T09:00:00Z");
  it("moves on by each interval, a calendar month for monthly", () => {
    expect(nextCheckTime(friday, "hourly", false, "UTC").toISOString()).toBe("2026-11-27T10:00:00.000Z");
    expect(nextCheckTime(friday, "daily", false, "UTC").toISOString()).toBe("2026-11-28T09:00:00.000Z");
    expect(nextCheckTime(friday, "weekly", false, "UTC").toISOString()).toBe("2026-12-04T09:00:00.000Z");
    expect(nextCheckTime(new Date("2026-01-31T09:00:00Z"), "monthly", false, "UTC").toISOString()).toBe("2026-02-28T09:00:00.000Z");
  });
  it("skips the weekend in the project's time zone", () => {
    expect(nextCheckTime(friday, "daily", true, "UTC").toISOString()).toBe("2026-11-30T09:00:00.000Z");
    // Sunday 23:00 UTC is already Monday in Tokyo.
    expect(nextCheckTime(new Date("2026-11-28T23:00:00Z"), "daily", true, "Asia/Tokyo").toISOString()).toBe("2026-11-29T23:00:00.000Z");
  });
});

describe("alertCreateBody", () => {
  it("applies PostHog's defaults and cross-field rules", () => {
    expect(alertCreateBody.parse({ insight: 1, name: "a", threshold: { configuration: { bounds: { upper: 1 } } } })).toMatchObject({
      condition: { type: "absolute_value" },
      config: { type: "TrendsAlertConfig", series_index: 0 },
      calculation_interval: "daily",
      enabled: true,
      subscribed_users: [],
      webhook_url: null,
    });
    expect(alertCreateBody.safeParse({ insight: 1, name: "a", threshold: { configuration: { type: "percentage", bounds: { upper: 1 } } } }).success).toBe(false);
  });
});

describe("alertableInsight", () => {
  it("names the series and knows single-value displays as trends does", () => {
    expect([...SINGLE_VALUE_DISPLAYS]).toEqual([...TOTAL_VALUE_DISPLAYS]);
    expect(alertableInsight({ kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ event: "a" }, { event: null, custom_name: "All" }, { kind: "ActionsNode", id: 3 }] } })).toEqual({
      seriesNames: ["a", "All", "Action 3"],
      timeSeries: true,
    });
    expect(alertableInsight(trends("ActionsPie"))?.timeSeries).toBe(false);
    expect(alertableInsight({ kind: "FunnelsQuery" })).toBeNull();
  });
});
