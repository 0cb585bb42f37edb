/**
 * normaliseEvent / eventTimestamp: PostHog's validation and normalisation rules for one
 * event (distinct id, name, uuid, timestamp with clock-skew correction, $set merging, $ip).
 */
import { describe, expect, it } from "vitest";
import { validate as isUuid, version as uuidVersion } from "uuid";
import type { EventProblem, IngestEvent, RawEvent } from "./contract";
import { eventTimestamp, isProblem, MAX_PROPERTY_DEPTH, normaliseEvent, type NormaliseContext } from "./normalise";

const NOW = new Date("2025-06-15T12:00:00.000Z");
const HOUR = 3_600_000;

function context(overrides: Partial<NormaliseContext> = {}): NormaliseContext {
  return { now: NOW, sentAt: null, ip: null, historicalMigration: false, defaultEvent: null, ...overrides };
}

function ok(raw: RawEvent, ctx: Partial<NormaliseContext> = {}, index = 0): IngestEvent {
  const result = normaliseEvent(raw, index, context(ctx));
  if (isProblem(result)) throw new Error(`expected an event, got problem: ${result.detail}`);
  return result;
}

function problem(raw: RawEvent, ctx: Partial<NormaliseContext> = {}, index = 0): EventProblem {
  const result = normaliseEvent(raw, index, context(ctx));
  if (!isProblem(result)) throw new Error(`expected a problem, got event ${JSON.stringify(result)}`);
  return result;
}

describe("normaliseEvent: distinct_id", () => {
  it("takes distinct_id first", () => {
    expect(ok({ event: "e", distinct_id: "a", $distinct_id: "b", properties: { distinct_id: "c" } }).distinctId).toBe("a");
  });

  it("falls back to $distinct_id", () => {
    expect(ok({ event: "e", $distinct_id: "b", properties: { distinct_id: "c" } }).distinctId).toBe("b");
  });

  it("falls back to properties.distinct_id (posthog-js)", () => {
    expect(ok({ event: "e", properties: { distinct_id: "c" } }).distinctId).toBe("c");
  });

  it("skips a null distinct_id in favour of the next candidate", () => {
    expect(ok({ event: "e", distinct_id: null, properties: { distinct_id: "c" } }).distinctId).toBe("c");
  });

  it("stringifies numbers", () => {
    expect(ok({ event: "e", distinct_id: 12345 }).distinctId).toBe("12345");
    expect(ok({ event: "e", properties: { distinct_id: 1.5 } }).distinctId).toBe("1.5");
  });

  it.each([
    ["missing", {}],
    ["null", { distinct_id: null }],
    ["empty", { distinct_id: "" }],
    ["blank", { distinct_id: "   " }],
  ])("reports a %s distinct_id as a problem naming the event index", (_label, fields) => {
    const p = problem({ event: "e", ...fields }, {}, 7);
    expect(p.index).toBe(7);
    expect(p.detail).toMatch(/Event 7/);
    expect(p.detail).toMatch(/distinct_id/);
  });

  it("accepts a distinct_id of exactly 200 characters and rejects 201", () => {
    expect(ok({ event: "e", distinct_id: "d".repeat(200) }).distinctId).toHaveLength(200);
    const p = problem({ event: "e", distinct_id: "d".repeat(201) }, {}, 3);
    expect(p).toEqual({ index: 3, detail: expect.stringMatching(/Event 3: distinct_id is longer than 200/) });
  });
});

describe("normaliseEvent: event name", () => {
  it("rejects a missing event name with the index", () => {
    expect(problem({ distinct_id: "d" }, {}, 2)).toEqual({ index: 2, detail: expect.stringMatching(/Event 2: 'event' is required/) });
  });

  it("rejects an empty or non-string event name", () => {
    expect(problem({ event: "", distinct_id: "d" }).detail).toMatch(/'event' is required/);
    expect(problem({ event: 42, distinct_id: "d" }).detail).toMatch(/'event' is required/);
    expect(problem({ event: ["x"], distinct_id: "d" }).detail).toMatch(/'event' is required/);
  });

  it("accepts a 200-character name and rejects 201 characters", () => {
    expect(ok({ event: "e".repeat(200), distinct_id: "d" }).event).toHaveLength(200);
    expect(problem({ event: "e".repeat(201), distinct_id: "d" }, {}, 4).detail).toMatch(/Event 4: the event name is longer than 200/);
  });

  it("uses the path's default event name when none is sent (/engage/ → $identify)", () => {
    expect(ok({ distinct_id: "d", $set: { a: 1 } }, { defaultEvent: "$identify" }).event).toBe("$identify");
  });

  it("rejects properties that are not an object", () => {
    expect(problem({ event: "e", distinct_id: "d", properties: "oops" }, {}, 1).detail).toMatch(/Event 1: properties must be an object/);
    expect(problem({ event: "e", distinct_id: "d", properties: [1, 2] }).detail).toMatch(/properties must be an object/);
  });
});

describe("normaliseEvent: uuid", () => {
  it("keeps a client uuid, lower-cased", () => {
    const uuid = "0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B";
    expect(ok({ event: "e", distinct_id: "d", uuid }).uuid).toBe(uuid.toLowerCase());
  });

  it("generates a UUIDv7 when the client sends none or an invalid one", () => {
    for (const uuid of [undefined, "not-a-uuid", 12, ""]) {
      const event = ok({ event: "e", distinct_id: "d", uuid });
      expect(isUuid(event.uuid)).toBe(true);
      expect(uuidVersion(event.uuid)).toBe(7);
    }
  });

  it("generates a different uuid per event", () => {
    const uuids = new Set(Array.from({ length: 100 }, () => ok({ event: "e", distinct_id: "d" }).uuid));
    expect(uuids.size).toBe(100);
  });
});

describe("normaliseEvent: timestamps", () => {
  const ts = (raw: RawEvent, ctx: Partial<NormaliseContext> = {}) => ok({ event: "e", distinct_id: "d", ...raw }, ctx).timestamp.toISOString();

  it("is now when no timestamp is given", () => {
    expect(ts({})).toBe(NOW.toISOString());
  });

  it("keeps a valid timestamp when there is no sent_at", () => {
    expect(ts({ timestamp: "2025-06-15T11:00:00.000Z" })).toBe("2025-06-15T11:00:00.000Z");
  });

  it("keeps a timestamp with a zone offset, converted to UTC", () => {
    expect(ts({ timestamp: "2025-06-15T13:30:00+02:00" })).toBe("2025-06-15T11:30:00.000Z");
  });

  it("corrects clock skew: now + (timestamp - sent_at)", () => {
    // The client's clock is 3 days behind; the event happened 5 s before it was sent.
    const sentAt = new Date("2025-06-12T12:00:00.000Z");
    expect(ts({ timestamp: "2025-06-12T11:59:55.000Z" }, { sentAt })).toBe("2025-06-15T11:59:55.000Z");
  });

  it("does not correct skew when properties.$ignore_sent_at is set", () => {
    const sentAt = new Date("2025-06-12T12:00:00.000Z");
    expect(ts({ timestamp: "2025-06-12T11:59:55.000Z", properties: { $ignore_sent_at: true } }, { sentAt })).toBe("2025-06-12T11:59:55.000Z");
  });

  it("ignores sent_at when the event has no timestamp", () => {
    expect(ts({}, { sentAt: new Date("2025-06-12T12:00:00.000Z") })).toBe(NOW.toISOString());
  });

  it("uses offset (ms before receipt) when given", () => {
    expect(ts({ offset: 1500 })).toBe(new Date(NOW.getTime() - 1500).toISOString());
  });

  it("lets offset win over timestamp and sent_at", () => {
    const sentAt = new Date("2025-06-12T12:00:00.000Z");
    expect(ts({ offset: 2000, timestamp: "2020-01-01T00:00:00.000Z" }, { sentAt })).toBe(new Date(NOW.getTime() - 2000).toISOString());
  });

  it("ignores an offset that is not a number", () => {
    expect(ts({ offset: "2000", timestamp: "2025-06-15T10:00:00.000Z" })).toBe("2025-06-15T10:00:00.000Z");
  });

  it("clamps a timestamp more than 23 h in the future to now", () => {
    expect(ts({ timestamp: new Date(NOW.getTime() + 24 * HOUR).toISOString() })).toBe(NOW.toISOString());
    expect(ts({ offset: -24 * HOUR })).toBe(NOW.toISOString());
  });

  it("keeps a timestamp up to 23 h in the future", () => {
    const soon = new Date(NOW.getTime() + 22 * HOUR).toISOString();
    expect(ts({ timestamp: soon })).toBe(soon);
  });

  it("clamps a skew-corrected timestamp that lands more than 23 h ahead", () => {
    const sentAt = new Date("2025-06-12T12:00:00.000Z");
    expect(ts({ timestamp: "2025-06-14T12:00:00.000Z" }, { sentAt })).toBe(NOW.toISOString());
  });

  it.each(["yesterday", "", "2025-13-45T99:00:00Z", "   "])("treats the invalid timestamp %j as now", (timestamp) => {
    expect(ts({ timestamp })).toBe(NOW.toISOString());
  });

  it("treats a non-string, non-number timestamp as now", () => {
    expect(ts({ timestamp: { at: 1 } })).toBe(NOW.toISOString());
    expect(ts({ timestamp: true })).toBe(NOW.toISOString());
  });

  it.each([
    ["a year before 1 (string)", "0000-06-01T00:00:00Z"],
    ["a negative number of ms, year -29719", -1e15],
    ["a number beyond the Date range", 1e20],
  ])("treats %s as now: only dates the database can store survive", (_label, timestamp) => {
    expect(ts({ timestamp })).toBe(NOW.toISOString());
  });

  it("treats an offset that lands before year 1 as now", () => {
    expect(ts({ offset: 1e15 })).toBe(NOW.toISOString());
  });

  it("treats a skew correction that lands before year 1 as now", () => {
    expect(ts({ timestamp: "0001-01-02T00:00:00Z" }, { sentAt: new Date("9999-01-01T00:00:00Z") })).toBe(NOW.toISOString());
  });

  it("eventTimestamp is usable on its own with the same rules", () => {
    expect(eventTimestamp({ timestamp: "2025-06-15T11:00:00Z" }, {}, new Date("2025-06-15T11:00:10Z"), NOW).toISOString()).toBe("2025-06-15T11:59:50.000Z");
  });
});

describe("normaliseEvent: historical migration", () => {
  const historical = { historicalMigration: true, sentAt: new Date("2025-06-12T12:00:00.000Z") };

  it("keeps the given timestamp as is (no skew correction, no offset)", () => {
    const event = ok({ event: "e", distinct_id: "d", timestamp: "2019-03-01T08:00:00.000Z", offset: 5000 }, historical);
    expect(event.timestamp.toISOString()).toBe("2019-03-01T08:00:00.000Z");
    expect(event.historicalMigration).toBe(true);
  });

  it("requires a timestamp on every event", () => {
    expect(problem({ event: "e", distinct_id: "d" }, historical, 5).detail).toMatch(/Event 5: historical migrations need an ISO 8601 'timestamp'/);
    expect(problem({ event: "e", distinct_id: "d", timestamp: "not a date" }, historical).detail).toMatch(/timestamp/);
  });

  it("rejects a timestamp the database cannot store", () => {
    expect(problem({ event: "e", distinct_id: "d", timestamp: 1e20 }, historical).detail).toMatch(/timestamp/);
    expect(problem({ event: "e", distinct_id: "d", timestamp: -1e15 }, historical).detail).toMatch(/timestamp/);
  });

  it("is false on ordinary events", () => {
    expect(ok({ event: "e", distinct_id: "d" }).historicalMigration).toBe(false);
  });
});

describe("normaliseEvent: properties", () => {
  it("merges top-level $set and $set_once into properties", () => {
    const event = ok({
      event: "e",
      distinct_id: "d",
      $set: { a: 1, b: 2 },
      $set_once: { c: 3 },
      properties: { $set: { a: 0, z: 9 }, $set_once: { y: 8 }, other: true },
    });
    expect(event.properties.$set).toEqual({ a: 1, b: 2, z: 9 });
    expect(event.properties.$set_once).toEqual({ c: 3, y: 8 });
    expect(event.properties.other).toBe(true);
  });

  it("ignores a top-level $set that is not an object", () => {
    expect(ok({ event: "e", distinct_id: "d", $set: "nope" }).properties.$set).toBeUndefined();
  });

  it("sets $ip from the request", () => {
    expect(ok({ event: "e", distinct_id: "d" }, { ip: "203.0.113.9" }).properties.$ip).toBe("203.0.113.9");
  });

  it("keeps an $ip the event already has", () => {
    expect(ok({ event: "e", distinct_id: "d", properties: { $ip: "198.51.100.1" } }, { ip: "203.0.113.9" }).properties.$ip).toBe("198.51.100.1");
  });

  it("has no $ip when the request has none", () => {
    expect(ok({ event: "e", distinct_id: "d" }).properties).not.toHaveProperty("$ip");
  });

  it("drops the project key from the stored properties", () => {
    expect(ok({ event: "e", distinct_id: "d", properties: { token: "phc_secret", x: 1 } }).properties).toEqual({ x: 1 });
  });

  it("does not modify the raw event it was given", () => {
    const raw = { event: "e", distinct_id: "d", $set: { a: 1 }, properties: { token: "t" } };
    const copy = structuredClone(raw);
    ok(raw, { ip: "1.2.3.4" });
    expect(raw).toEqual(copy);
  });
});

describe("normaliseEvent: text the database cannot store", () => {
  it("replaces NUL characters in the name, distinct id, property keys and values with U+FFFD", () => {
    const event = ok({ event: "a\u0000b", distinct_id: "d\u0000", properties: { "k\u0000": ["x\u0000", { y: "\u0000" }] }, $set: { s: "\u0000" } });
    expect(event.event).toBe("a\ufffdb");
    expect(event.distinctId).toBe("d\ufffd");
    expect(event.properties).toEqual({ "k\ufffd": ["x\ufffd", { y: "\ufffd" }], $set: { s: "\ufffd" } });
  });

  it("replaces lone surrogates but keeps surrogate pairs (emoji)", () => {
    const event = ok({ event: "e", distinct_id: "d", properties: { lone: "a\ud800b", low: "\udc00", emoji: "🦔", end: "x\ud83e" } });
    expect(event.properties).toEqual({ lone: "a\ufffdb", low: "\ufffd", emoji: "🦔", end: "x\ufffd" });
  });

  it("keeps a \"__proto__\" property key as an ordinary property", () => {
    const raw = JSON.parse('{"event":"e","distinct_id":"d","properties":{"__proto__":{"polluted":true},"x":1}}') as RawEvent;
    const event = ok(raw);
    expect(Object.keys(event.properties)).toEqual(["__proto__", "x"]);
    expect(JSON.stringify(event.properties)).toBe('{"__proto__":{"polluted":true},"x":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("accepts properties nested up to the limit and reports deeper ones as a problem", () => {
    const nested = (levels: number) => JSON.parse(`${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`) as unknown;
    expect(ok({ event: "e", distinct_id: "d", properties: { n: nested(MAX_PROPERTY_DEPTH - 1) } }).properties.n).toBeDefined();
    const p = problem({ event: "e", distinct_id: "d", properties: { n: nested(20_000) } }, {}, 2);
    expect(p.detail).toMatch(/Event 2: properties are nested more than 1000 levels deep/);
    expect(problem({ event: "e", distinct_id: "d", $set: { n: nested(5_000) } }).detail).toMatch(/nested/);
  });

  it("treats a distinct_id object too deep to stringify as missing, not a crash", () => {
    const deep = JSON.parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`) as unknown;
    expect(problem({ event: "e", distinct_id: deep }).detail).toMatch(/distinct_id/);
  });
});
