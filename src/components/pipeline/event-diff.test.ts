import { describe, expect, it } from "vitest";
import { diffValue, eventDiff } from "./event-diff";

const base = {
  event: "Order Completed",
  distinct_id: "u1",
  properties: { email: "ann@example.com", plan: "pro", address: { city: "Paris", zip: "75001" }, tags: ["a", "b"], n: 1 },
};

describe("the dry run's diff", () => {
  it("lists added, removed and changed properties, nested objects by key, sorted by path", () => {
    const after = {
      event: "order_completed",
      distinct_id: "u1",
      properties: { plan: "pro", address: { city: "Lyon", zip: "75001", country: "FR" }, tags: ["a"], n: 1, $browser: "Safari" },
    };
    expect(eventDiff(base, after)).toEqual([
      { path: "event", kind: "changed", before: "Order Completed", after: "order_completed" },
      { path: "properties.$browser", kind: "added", after: "Safari" },
      { path: "properties.address.city", kind: "changed", before: "Paris", after: "Lyon" },
      { path: "properties.address.country", kind: "added", after: "FR" },
      { path: "properties.email", kind: "removed", before: "ann@example.com" },
      { path: "properties.tags", kind: "changed", before: ["a", "b"], after: ["a"] },
    ]);
  });

  it("is empty when nothing changed (key order aside) and when the event was dropped", () => {
    const reordered = { ...base, properties: { n: 1, tags: ["a", "b"], address: { zip: "75001", city: "Paris" }, plan: "pro", email: "ann@example.com" } };
    expect(eventDiff(base, reordered)).toEqual([]);
    expect(eventDiff(base, null)).toEqual([]);
  });

  it("tells a value from a different type, null from absent, and an object replaced by a scalar", () => {
    const after = { ...base, distinct_id: "u2", properties: { ...base.properties, n: "1", plan: null, address: "Paris" } };
    expect(eventDiff(base, after)).toEqual([
      { path: "distinct_id", kind: "changed", before: "u1", after: "u2" },
      { path: "properties.address", kind: "changed", before: { city: "Paris", zip: "75001" }, after: "Paris" },
      { path: "properties.n", kind: "changed", before: 1, after: "1" },
      { path: "properties.plan", kind: "changed", before: "pro", after: null },
    ]);
  });

  it("shows values as JSON, cutting long ones", () => {
    expect(diffValue("x")).toBe('"x"');
    expect(diffValue({ a: 1 })).toBe('{"a":1}');
    expect(diffValue("y".repeat(300), 10)).toBe('"yyyyyyyy…');
  });
});
