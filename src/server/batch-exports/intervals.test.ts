import { describe, expect, it } from "vitest";
import { intervalsBetween, intervalStart, s3Key, templatePrefix } from "./intervals";

const at = (text: string) => new Date(text);

describe("batch export intervals", () => {
  it("floors to UTC hours and days", () => {
    expect(intervalStart(at("2026-03-04T05:06:07.089Z"), "hour").toISOString()).toBe("2026-03-04T05:00:00.000Z");
    expect(intervalStart(at("2026-03-04T05:06:07.089Z"), "day").toISOString()).toBe("2026-03-04T00:00:00.000Z");
  });

  it("lists only completed intervals, capped", () => {
    const hours = intervalsBetween(at("2026-03-04T05:30:00Z"), at("2026-03-04T08:59:59Z"), "hour", 10);
    expect(hours.map((h) => h.start.toISOString())).toEqual(["2026-03-04T05:00:00.000Z", "2026-03-04T06:00:00.000Z", "2026-03-04T07:00:00.000Z"]);
    expect(intervalsBetween(at("2026-03-04T05:00:00Z"), at("2026-03-09T00:00:00Z"), "day", 2)).toHaveLength(2);
    expect(intervalsBetween(at("2026-03-04T05:00:00Z"), at("2026-03-04T23:59:59Z"), "day", 2)).toEqual([]);
  });

  it("fills PostHog's prefix variables from the interval's end, and leaves an unknown one as written", () => {
    const start = at("2026-03-04T23:00:00Z");
    const end = at("2026-03-05T00:00:00Z");
    expect(templatePrefix("exports/{table}/{year}-{month}-{day}/{hour}", start, end, "events")).toBe("exports/events/2026-03-05/00");
    expect(templatePrefix("a/{nope}/{year}", start, end, "events")).toBe("a/{nope}/{year}");
  });

  it("names one file per interval", () => {
    const start = at("2026-03-04T23:00:00Z");
    const end = at("2026-03-05T00:00:00Z");
    expect(s3Key("/x/{year}/", start, end, "events", "JSONLines", "gzip")).toBe("x/2026/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.jsonl.gz");
    expect(s3Key("", start, end, "events", "JSONLines", null)).toBe("2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.jsonl");
    expect(s3Key("{table}", start, end, "persons", "Parquet", "snappy")).toBe("persons/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.parquet.sz");
    expect(s3Key("", start, end, "sessions", "Parquet", null)).toBe("2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.parquet");
  });
});
