import { describe, expect, it } from "vitest";
import { bucketTick, bucketTitle, intervalOfDays, queryInterval, spansYears } from "./bucket-dates";

describe("bucket ticks and titles", () => {
  it("names hours by the clock, and midnight by its day", () => {
    expect(bucketTick("2026-11-03 14:00:00", "hour")).toBe("14:00");
    expect(bucketTick("2026-11-03 09:00:00", "hour")).toBe("09:00");
    expect(bucketTick("2026-11-04 00:00:00", "hour")).toBe("Nov 4");
    expect(bucketTitle("2026-11-03 14:00:00", "hour")).toBe("Nov 3, 14:00");
  });

  it("names days and weeks by month and day, months by month and year", () => {
    expect(bucketTick("2026-11-03", "day")).toBe("Nov 3");
    expect(bucketTick("2026-01-31", "week")).toBe("Jan 31");
    expect(bucketTick("2026-11-01", "month")).toBe("Nov 2026");
    expect(bucketTitle("2026-11-03", "day")).toBe("Tue, Nov 3, 2026");
    expect(bucketTitle("2026-11-01", "week")).toBe("Week of Nov 1, 2026");
    expect(bucketTitle("2026-02-01", "month")).toBe("February 2026");
  });

  it("adds the year when the chart spans years, and reads the wall time as written", () => {
    expect(spansYears(["2025-12-31", "2026-01-01"])).toBe(true);
    expect(spansYears(["2026-01-01", "2026-12-31"])).toBe(false);
    expect(bucketTick("2025-12-31", "day", { withYear: true })).toBe("Dec 31, 2025");
    // No zone conversion: 23:00 stays 23:00 whatever the browser's zone.
    expect(bucketTick("2026-03-29 23:00:00", "hour")).toBe("23:00");
  });

  it("shows text that is not a date as it is", () => {
    expect(bucketTick("1 day", "day")).toBe("1 day");
    expect(bucketTitle(undefined, "day")).toBe("");
  });
});

describe("the interval of a chart's buckets", () => {
  it("reads it from the buckets, which a dashboard's filters may have changed", () => {
    expect(intervalOfDays(["2026-11-03 13:00:00", "2026-11-03 14:00:00"])).toBe("hour");
    expect(intervalOfDays(["2026-11-01", "2026-11-02"], "week")).toBe("day");
    expect(intervalOfDays(["2026-11-01", "2026-11-08"])).toBe("week");
    expect(intervalOfDays(["2026-02-01", "2026-03-01"])).toBe("month");
    expect(intervalOfDays(["2026-01-01", "2026-02-01"])).toBe("month");
  });

  it("falls back to the query's interval with one bucket", () => {
    expect(intervalOfDays(["2026-11-01"], "month")).toBe("month");
    expect(intervalOfDays([], "week")).toBe("week");
    expect(queryInterval({ kind: "InsightVizNode", source: { kind: "TrendsQuery", interval: "month" } })).toBe("month");
    expect(queryInterval({ kind: "TrendsQuery", interval: "minute" })).toBe("day");
  });
});
