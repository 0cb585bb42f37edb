import { describe, expect, it } from "vitest";
import { validate, version } from "uuid";
import { newEventUuid } from "./event-uuid";

describe("newEventUuid", () => {
  it("makes valid UUIDv7s with the RFC 9562 variant", () => {
    for (let i = 0; i < 1_000; i++) {
      const id = newEventUuid();
      expect(validate(id), id).toBe(true);
      expect(version(id)).toBe(7);
      expect("89ab").toContain(id[19]);
    }
  });

  it("carries the millisecond timestamp in its first 48 bits", () => {
    const ms = Date.parse("2031-05-06T07:08:09.123Z");
    const id = newEventUuid(ms);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
  });

  it("increases strictly, also within one millisecond and across the random pool's refills", () => {
    const ms = Date.parse("2032-01-01T00:00:00Z");
    const ids = Array.from({ length: 5_000 }, () => newEventUuid(ms));
    const sorted = [...ids].sort();
    expect(ids).toEqual(sorted);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("never goes back when the clock does", () => {
    const later = newEventUuid(Date.parse("2033-01-01T00:00:00Z"));
    const earlierClock = newEventUuid(Date.parse("2032-12-31T00:00:00Z"));
    expect(earlierClock > later).toBe(true);
  });
});
