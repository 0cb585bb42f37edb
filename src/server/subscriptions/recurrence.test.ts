/** PostHog's worked cases (posthog/models/test/test_subscription_model.py), time frozen as there. */
import { describe, expect, it } from "vitest";
import type { Schedule } from "./recurrence";
import { nextDeliveryDate, ruleOf, sameSchedule, scheduleSummary } from "./recurrence";

const utc = (text: string) => new Date(`${text}Z`);
const base: Schedule = { frequency: "weekly", interval: 2, count: null, byweekday: [], bysetpos: null, startDate: utc("2022-01-01T00:00:00"), untilDate: null };
const frozen = utc("2022-01-01T00:00:00");

describe("next delivery date (PostHog's rrule)", () => {
  it("every other week from 1 Jan, after 2 Jan: 15 Jan", () => {
    expect(nextDeliveryDate(base, utc("2022-01-02T00:00:00"), frozen)).toEqual(utc("2022-01-15T00:00:00"));
  });

  it("is never in the past (at least now + 15 minutes)", () => {
    const next = nextDeliveryDate(base, null, frozen)!;
    expect(next.getTime()).toBeGreaterThanOrEqual(frozen.getTime());
    expect(next).toEqual(utc("2022-01-15T00:00:00"));
  });

  it("daily at 10:00, five minutes before the next one is due: the day after (the 15 minutes' buffer)", () => {
    const daily: Schedule = { ...base, frequency: "daily", interval: 1, startDate: utc("2022-01-01T10:00:00") };
    const now = utc("2022-01-11T09:55:00");
    expect(nextDeliveryDate(daily, utc("2022-01-11T10:00:00"), now)).toEqual(utc("2022-01-12T10:00:00"));
  });

  it("daily, days behind: the next one after now, not the missed ones", () => {
    const daily: Schedule = { ...base, frequency: "daily", interval: 1, startDate: utc("2022-01-01T10:00:00") };
    expect(nextDeliveryDate(daily, utc("2022-01-02T10:00:00"), utc("2022-01-11T09:55:00"))).toEqual(utc("2022-01-12T10:00:00"));
  });

  it("the last Wednesday or Friday of every other month", () => {
    const schedule: Schedule = { ...base, frequency: "monthly", interval: 2, bysetpos: -1, byweekday: ["wednesday", "friday"] };
    const first = nextDeliveryDate(schedule, null, frozen)!;
    expect(first).toEqual(utc("2022-01-28T00:00:00"));
    const second = nextDeliveryDate(schedule, first, frozen)!;
    expect(second).toEqual(utc("2022-03-30T00:00:00"));
    expect(nextDeliveryDate(schedule, second, frozen)).toEqual(utc("2022-05-27T00:00:00"));
  });

  it("the third day of every month", () => {
    const schedule: Schedule = { ...base, frequency: "monthly", interval: 1, bysetpos: 3, byweekday: ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] };
    const first = nextDeliveryDate(schedule, null, frozen)!;
    expect(first).toEqual(utc("2022-01-03T00:00:00"));
    expect(nextDeliveryDate(schedule, first, frozen)).toEqual(utc("2022-02-03T00:00:00"));
  });

  it("ignores bysetpos without weekdays", () => {
    expect(nextDeliveryDate({ ...base, frequency: "monthly", interval: 1, bysetpos: 3 }, null, frozen)).toEqual(utc("2022-02-01T00:00:00"));
  });

  it("ends: null after until_date or count", () => {
    expect(nextDeliveryDate({ ...base, frequency: "daily", interval: 1, untilDate: utc("2022-01-05T00:00:00") }, utc("2022-01-05T00:00:00"), frozen)).toBeNull();
    expect(nextDeliveryDate({ ...base, frequency: "daily", interval: 1, count: 3 }, utc("2022-01-03T00:00:00"), frozen)).toBeNull();
    expect(nextDeliveryDate({ ...base, frequency: "daily", interval: 1, count: 3 }, utc("2022-01-02T00:00:00"), frozen)).toEqual(utc("2022-01-03T00:00:00"));
  });

  it("tells schedule changes from other changes", () => {
    expect(sameSchedule(base, { ...base })).toBe(true);
    expect(sameSchedule(base, { ...base, startDate: utc("2023-01-01T00:00:00") })).toBe(false);
    expect(sameSchedule(base, { ...base, byweekday: ["monday"] })).toBe(false);
  });
});

describe("summary (PostHog's wording)", () => {
  it.each([
    [{ interval: 1, frequency: "monthly", byweekday: [], bysetpos: null }, "sent every month"],
    [{ interval: 2, frequency: "monthly", byweekday: ["wednesday"], bysetpos: 1 }, "sent every 2 months on the first Wednesday"],
    [{ interval: 1, frequency: "weekly", byweekday: ["wednesday"], bysetpos: -1 }, "sent every week on the last Wednesday"],
    [{ interval: 1, frequency: "weekly", byweekday: ["wednesday"], bysetpos: null }, "sent every week"],
    [{ interval: 1, frequency: "monthly", byweekday: ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"], bysetpos: 3 }, "sent every month on the third day"],
    [{ interval: 1, frequency: "monthly", byweekday: ["monday"], bysetpos: 10 }, "sent on a schedule"],
  ] as const)("%j → %s", (schedule, summary) => {
    expect(scheduleSummary(schedule as unknown as Schedule)).toBe(summary);
  });
});

describe("next delivery date from a start long ago", () => {
  const now = utc("2026-12-03T13:00:00");
  const schedules: Schedule[] = [
    { ...base, frequency: "daily", interval: 1, startDate: utc("1890-03-05T10:30:00") },
    { ...base, frequency: "daily", interval: 7, byweekday: ["monday", "saturday"], startDate: utc("1901-07-31T23:59:00") },
    { ...base, frequency: "weekly", interval: 3, byweekday: ["tuesday", "friday"], startDate: utc("1888-12-30T08:00:00") },
    { ...base, frequency: "monthly", interval: 5, byweekday: ["monday", "tuesday", "wednesday", "thursday", "friday"], bysetpos: -1, startDate: utc("1000-01-31T09:00:00") },
    { ...base, frequency: "monthly", interval: 1, startDate: utc("1200-01-31T09:00:00") },
    { ...base, frequency: "yearly", interval: 3, startDate: utc("0404-02-29T12:00:00") },
    { ...base, frequency: "yearly", interval: 1, byweekday: ["sunday"], bysetpos: 2, startDate: utc("1604-06-01T00:00:00") },
    { ...base, frequency: "weekly", interval: 1, startDate: utc("1950-01-01T00:00:00"), untilDate: utc("2026-12-20T00:00:00") },
    { ...base, frequency: "daily", interval: 1, startDate: utc("1990-01-01T00:00:00"), count: 20_000 },
  ];

  it("is the occurrence rrule's own walk from the start finds", () => {
    for (const schedule of schedules) {
      const after = new Date(now.getTime() + 15 * 60_000);
      for (const from of [null, utc("2027-05-17T10:30:00"), utc("2031-02-28T12:00:00")]) {
        const walked = ruleOf(schedule).after(from && from > after ? from : after, false);
        expect(nextDeliveryDate(schedule, from, now), `${JSON.stringify(schedule)} from ${from?.toISOString()}`).toEqual(walked);
      }
    }
  });

  it("does not walk every day since the year 1 (2 s of the thread before)", () => {
    const started = performance.now();
    expect(nextDeliveryDate({ ...base, frequency: "daily", interval: 1, startDate: utc("0001-01-01T00:00:00") }, null, now)).toEqual(utc("2026-12-04T00:00:00"));
    expect(nextDeliveryDate({ ...base, frequency: "weekly", interval: 1, byweekday: ["friday"], startDate: utc("0001-01-01T00:00:00") }, null, now)).toEqual(utc("2026-12-04T00:00:00"));
    expect(performance.now() - started).toBeLessThan(500);
  });
});
