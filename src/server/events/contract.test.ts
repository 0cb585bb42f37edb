import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { parseListQuery, parseValuesQuery } from "@/server/http/rest/resources/events-query";
import { canonicalUuid, parseTimeParam } from "./contract";
import { csvField, csvRecord, CSV_HEADER } from "./present";

const NOW = new Date("2024-06-15T12:00:00.000Z");
const query = (search: string, accept: string | null = null) => parseListQuery(new URL(`http://x/e/?${search}`), accept, NOW);
const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? { message: error.message, attr: error.attr } : { zod: (error as { issues?: { path: unknown[] }[] }).issues?.[0]?.path };
  }
  return null;
};

describe("parseTimeParam", () => {
  it("reads now, relative times (m is a month) and ISO 8601 (UTC without offset)", () => {
    expect(parseTimeParam("after", "now", NOW)).toEqual(NOW);
    expect(parseTimeParam("after", "-2h", NOW).toISOString()).toBe("2024-06-15T10:00:00.000Z");
    expect(parseTimeParam("after", "-30m", NOW).toISOString()).toBe("2021-12-15T12:00:00.000Z");
    expect(parseTimeParam("after", "-1w", NOW).toISOString()).toBe("2024-06-08T12:00:00.000Z");
    expect(parseTimeParam("after", "2024-01-02", NOW).toISOString()).toBe("2024-01-02T00:00:00.000Z");
    expect(parseTimeParam("after", "2024-01-02T03:04:05.678Z", NOW).toISOString()).toBe("2024-01-02T03:04:05.678Z");
    expect(parseTimeParam("after", "2024-01-02T03:04:05 02:00", NOW).toISOString()).toBe("2024-01-02T01:04:05.000Z"); // "+" sent unencoded
  });

  it("refuses anything else, naming the parameter", () => {
    for (const bad of ["", "1d", "+1d", "-1", "today", "2024-02-30", "2024-01-02T03:04:05.1234567Z", "-10000y", "-9999y", "Tue, 02 Jan 2024 00:00:00 GMT"]) {
      expect(failure(() => parseTimeParam("before", bad, NOW)), bad).toMatchObject({ attr: "before", message: expect.stringContaining("ISO 8601") });
    }
  });
});

describe("parseListQuery", () => {
  it("defaults: JSON, 100 rows, no filters", () => {
    expect(query("")).toEqual({
      format: "json",
      limit: 100,
      offset: 0,
      after: null,
      before: null,
      beforeUuid: null,
      event: null,
      distinctId: null,
      personId: null,
      properties: null,
      actionId: null,
    });
  });

  it("reads action_id as an action's integer id", () => {
    expect(query("action_id=12").actionId).toBe(12);
    for (const bad of ["0", "x", "1.5", "2147483648", "-3"]) expect(failure(() => query(`action_id=${bad}`)), bad).toEqual({ zod: ["action_id"] });
  });

  it("CSV by format or Accept, with its own default and maximum", () => {
    expect(query("format=csv")).toMatchObject({ format: "csv", limit: 3500 });
    expect(query("", "text/csv")).toMatchObject({ format: "csv" });
    expect(query("", "application/json, text/csv;q=0.5")).toMatchObject({ format: "csv" });
    expect(query("", "text/csvx")).toMatchObject({ format: "json" });
    expect(query("format=json", "text/csv")).toMatchObject({ format: "json" });
    expect(query("format=csv&limit=100000")).toMatchObject({ limit: 100_000 });
    expect(failure(() => query("format=csv&limit=100001"))).toEqual({ attr: "limit", message: "limit must be at most 100000 for CSV." });
    expect(failure(() => query("limit=1001"))).toEqual({ attr: "limit", message: "limit must be at most 1000." });
  });

  it("reads person_id as a uuid (dashes optional) or an integer id", () => {
    expect(query("person_id=0190F1C2000070008000000000000001").personId).toEqual({ uuid: "0190f1c2-0000-7000-8000-000000000001" });
    expect(query("person_id=42").personId).toEqual({ id: 42 });
    expect(failure(() => query("person_id=2147483648"))).toMatchObject({ attr: "person_id" });
  });

  it("turns NUL into U+FFFD, as ingestion stored it", () => {
    expect(query("event=a%00b&distinct_id=%00").event).toBe("a\ufffdb");
    expect(query("distinct_id=%00").distinctId).toBe("\ufffd");
  });

  it("needs before with before_uuid", () => {
    expect(query("before=now&before_uuid=0190f1c2-0000-7000-8000-000000000001")).toMatchObject({ before: NOW, beforeUuid: "0190f1c2-0000-7000-8000-000000000001" });
    expect(failure(() => query("before_uuid=0190f1c2-0000-7000-8000-000000000001"))).toMatchObject({ attr: "before_uuid" });
  });
});

describe("parseValuesQuery", () => {
  it("needs a key; value and event_name are optional", () => {
    expect(parseValuesQuery(new URL("http://x/?key=$browser&value=Ch&event_name=$pageview"))).toEqual({ key: "$browser", prefix: "Ch", eventName: "$pageview" });
    expect(failure(() => parseValuesQuery(new URL("http://x/?value=a")))).toMatchObject({ attr: "key" });
  });
});

describe("canonicalUuid", () => {
  it("accepts dashed or bare hex, in any case", () => {
    expect(canonicalUuid("0190F1C2-0000-7000-8000-00000000E5E5")).toBe("0190f1c2-0000-7000-8000-00000000e5e5");
    expect(canonicalUuid("0190f1c2000070008000-00000000e5e5")).toBe("0190f1c2-0000-7000-8000-00000000e5e5");
    for (const bad of ["", "0190f1c2-0000-7000-8000-00000000e5e", "{0190f1c2-0000-7000-8000-00000000e5e5}", "0190f1c2-0000-7000-8000-00000000e5eg"]) expect(canonicalUuid(bad)).toBeNull();
  });
});

describe("CSV encoding (RFC 4180)", () => {
  it("quotes only fields with a comma, quote or line break, doubling quotes", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("")).toBe("");
    expect(csvField(" spaced ")).toBe(" spaced ");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("a\nb")).toBe('"a\nb"');
    expect(csvField("a\rb")).toBe('"a\rb"');
    expect(csvRecord(["a", "b,c", ""])).toBe('a,"b,c",\r\n');
    expect(CSV_HEADER).toBe("id,distinct_id,event,timestamp,person_id,properties\r\n");
  });
});
