import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { bucketLabel, bucketStarts, checkDateValue, instantOf, isoInZone, resolveDateRange, wallOf, wallText } from "./date-range";

const NY = "America/New_York";
const iso = (d: Date) => d.toISOString();
const wall = (text: string) => new Date(`${text}Z`);

describe("time zones", () => {
  it("reads the wall clock of a zone, standard and daylight time", () => {
    expect(wallText(wallOf(new Date("2024-01-15T12:00:00Z"), NY))).toBe("2024-01-15 07:00:00");
    expect(wallText(wallOf(new Date("2024-07-15T12:00:00Z"), NY))).toBe("2024-07-15 08:00:00");
    expect(wallText(wallOf(new Date("2024-07-15T12:00:00Z"), "Asia/Kolkata"))).toBe("2024-07-15 17:30:00");
  });

  it("turns wall-clock times into instants as PostgreSQL's AT TIME ZONE does around DST changes", () => {
    expect(iso(instantOf(wall("2024-03-10T00:00:00"), NY))).toBe("2024-03-10T05:00:00.000Z");
    expect(iso(instantOf(wall("2024-03-10T03:00:00"), NY))).toBe("2024-03-10T07:00:00.000Z");
    // 02:30 does not exist that night: read with the offset before the change.
    expect(iso(instantOf(wall("2024-03-10T02:30:00"), NY))).toBe("2024-03-10T07:30:00.000Z");
    // 01:30 happens twice in November: the later (standard time) one.
    expect(iso(instantOf(wall("2024-11-03T01:30:00"), NY))).toBe("2024-11-03T06:30:00.000Z");
  });

  it("writes instants with the zone's offset", () => {
    expect(isoInZone(new Date("2024-03-11T03:59:59.999Z"), NY)).toBe("2024-03-10T23:59:59-04:00");
    expect(isoInZone(new Date("2024-03-01T00:00:00Z"), "UTC")).toBe("2024-03-01T00:00:00+00:00");
  });
});

describe("resolveDateRange", () => {
  const now = new Date("2024-03-13T15:42:10.123Z"); // a Wednesday

  it("defaults to the last 7 days and today", () => {
    const range = resolveDateRange(undefined, "day", "UTC", now);
    expect([iso(range.from), iso(range.to)]).toEqual(["2024-03-06T00:00:00.000Z", "2024-03-13T23:59:59.999Z"]);
    expect(bucketStarts(range)).toHaveLength(8);
  });

  it("counts a relative day range from midnight, an hourly one from the very time", () => {
    const days = resolveDateRange({ date_from: "-7d" }, "day", "UTC", now);
    expect(iso(days.from)).toBe("2024-03-06T00:00:00.000Z");
    const hours = resolveDateRange({ date_from: "-24h" }, "hour", "UTC", now);
    expect([iso(hours.from), iso(hours.to), wallText(hours.firstBucket)]).toEqual(["2024-03-12T15:42:10.123Z", "2024-03-13T15:59:59.999Z", "2024-03-12 15:00:00"]);
    expect(bucketStarts(hours)).toHaveLength(25);
    // A daily chart of a number of hours starts at that hour too.
    expect(iso(resolveDateRange({ date_from: "-48h" }, "day", "UTC", now).from)).toBe("2024-03-11T15:42:10.123Z");
  });

  it("reads Start and End of units, and months on the zone's calendar", () => {
    const lastMonth = resolveDateRange({ date_from: "-1mStart", date_to: "-1mEnd" }, "day", "UTC", now);
    expect([iso(lastMonth.from), iso(lastMonth.to)]).toEqual(["2024-02-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z"]);
    const thisYear = resolveDateRange({ date_from: "yStart" }, "month", "UTC", now);
    expect(bucketStarts(thisYear).map(wallText)).toEqual(["2024-01-01 00:00:00", "2024-02-01 00:00:00", "2024-03-01 00:00:00"]);
    // 31 March 02:00 UTC is still 30 March in New York: a month back is 29 February there.
    const ny = resolveDateRange({ date_from: "-1m" }, "day", NY, new Date("2024-03-31T02:00:00Z"));
    expect(isoInZone(ny.from, NY)).toBe("2024-02-29T00:00:00-05:00");
  });

  it("reads ISO dates without an offset in the project's zone, with one as instants", () => {
    const local = resolveDateRange({ date_from: "2024-03-09", date_to: "2024-03-11" }, "day", NY, now);
    expect([iso(local.from), iso(local.to)]).toEqual(["2024-03-09T05:00:00.000Z", "2024-03-12T03:59:59.999Z"]);
    const instant = resolveDateRange({ date_from: "2024-03-10T05:00:00Z", date_to: "2024-03-10T06:30:00+00:00" }, "hour", NY, now);
    expect([wallText(instant.firstBucket), iso(instant.to)]).toEqual(["2024-03-10 00:00:00", "2024-03-10T06:30:00.000Z"]);
  });

  it("starts weeks on Sunday and months on the 1st, counting from there", () => {
    const weeks = resolveDateRange({ date_from: "2024-03-01", date_to: "2024-03-13" }, "week", "UTC", now);
    expect([iso(weeks.from), bucketStarts(weeks).map(wallText)]).toEqual(["2024-02-25T00:00:00.000Z", ["2024-02-25 00:00:00", "2024-03-03 00:00:00", "2024-03-10 00:00:00"]]);
    const months = resolveDateRange({ date_from: "2024-01-15", date_to: "2024-03-02" }, "month", "UTC", now);
    expect([iso(months.from), bucketStarts(months)]).toEqual(["2024-01-01T00:00:00.000Z", [wall("2024-01-01T00:00:00"), wall("2024-02-01T00:00:00"), wall("2024-03-01T00:00:00")]]);
  });

  it("takes `all` from the earliest event, and has no buckets when the range is backwards", () => {
    const all = resolveDateRange({ date_from: "all" }, "month", "UTC", now, new Date("2023-11-20T10:00:00Z"));
    expect(bucketStarts(all)).toHaveLength(5);
    expect(bucketStarts(resolveDateRange({ date_from: "2024-03-05", date_to: "2024-03-01" }, "day", "UTC", now))).toEqual([]);
  });

  it("refuses ranges with too many buckets, and dates it cannot read", () => {
    expect(() => resolveDateRange({ date_from: "2000-01-01" }, "hour", "UTC", now)).toThrow(/at most 10000/);
    expect(() => checkDateValue("date_from", "yesterday")).toThrow(AppError);
    expect(() => checkDateValue("date_to", "all")).toThrow(AppError);
    for (const ok of ["all", "-7d", "dStart", "-1wEnd", "2024-03-01", "2024-03-01T10:00:00+02:00", "now"]) expect(() => checkDateValue("date_from", ok)).not.toThrow();
  });
});

describe("bucket labels", () => {
  const range = resolveDateRange({ date_from: "2024-02-28", date_to: "2024-03-13" }, "week", "UTC", new Date());
  it("labels weeks with their days inside the range, as PostHog", () => {
    expect(bucketStarts(range).map((w) => bucketLabel(w, range))).toEqual(["28-Feb – 2-Mar", "3–9 Mar", "10–13 Mar"]);
    const acrossYears = resolveDateRange({ date_from: "2023-12-30", date_to: "2024-01-02" }, "week", "UTC", new Date());
    expect(bucketStarts(acrossYears).map((w) => bucketLabel(w, acrossYears))).toEqual(["30-Dec-2023", "31-Dec-2023 – 2-Jan-2024"]);
  });
  it("labels hours, days and months", () => {
    const at = wall("2024-03-05T07:00:00");
    expect(["hour", "day", "month"].map((interval) => bucketLabel(at, { ...range, interval: interval as "hour" }))).toEqual(["5-Mar 07:00", "5-Mar-2024", "Mar 2024"]);
  });
});
