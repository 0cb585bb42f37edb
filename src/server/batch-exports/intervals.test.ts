import { describe, expect, it } from "vitest";
import { intervalsBetween, intervalStart, manifestKey, s3Key, splitFileNumber, splitFilesPrefix, templatePrefix } from "./intervals";

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
    const naming = { prefix: "/x/{year}/", start: at("2026-03-04T23:00:00Z"), end: at("2026-03-05T00:00:00Z"), table: "events", format: "JSONLines", compression: "gzip" } as const;
    expect(s3Key(naming)).toBe("x/2026/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.jsonl.gz");
    expect(s3Key({ ...naming, prefix: "", compression: null })).toBe("2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.jsonl");
    expect(s3Key({ ...naming, prefix: "{table}", table: "persons", format: "Parquet", compression: "snappy" })).toBe("persons/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.parquet.sz");
    expect(s3Key({ ...naming, prefix: "", table: "sessions", format: "Parquet", compression: null })).toBe("2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00.parquet");
    expect(s3Key({ ...naming, compression: "zstd" })).toMatch(/\.jsonl\.zst$/);
    expect(s3Key({ ...naming, format: "Parquet", compression: "lz4" })).toMatch(/\.parquet\.lz4$/);
  });

  it("numbers split files from 0 and names their manifest as PostHog does, and knows its own numbered files from other keys", () => {
    const naming = { prefix: "x", start: at("2026-03-04T23:00:00Z"), end: at("2026-03-05T00:00:00Z"), table: "events", format: "JSONLines", compression: "gzip" } as const;
    expect(s3Key(naming, 0)).toBe("x/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00-0.jsonl.gz");
    expect(s3Key(naming, 12)).toBe("x/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00-12.jsonl.gz");
    expect(manifestKey(naming)).toBe("x/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00_manifest.json");
    expect(splitFilesPrefix(naming)).toBe("x/2026-03-04T23:00:00+00:00-2026-03-05T00:00:00+00:00-");
    expect(splitFileNumber(naming, s3Key(naming, 12))).toBe(12);
    for (const other of [s3Key(naming), manifestKey(naming), s3Key({ ...naming, compression: null }, 1), s3Key({ ...naming, format: "Parquet" }, 1), `${splitFilesPrefix(naming)}1b.jsonl.gz`]) {
      expect(splitFileNumber(naming, other), other).toBeNull();
    }
  });
});
