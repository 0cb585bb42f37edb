import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { flattenPlugin } from "./flatten";

describe("flatten plugin", () => {
  const event = ingestEvent({
    properties: {
      plan: "pro",
      address: { city: "Paris", geo: { lat: 48.8 } },
      tags: ["a", "b"],
      empty: {},
      $set: { profile: { age: 3 } },
    },
  });

  it("adds flattened keys with __ and keeps the nested originals by default", () => {
    expect(runPlugin(flattenPlugin, {}, event)!.properties).toEqual({
      plan: "pro",
      address: { city: "Paris", geo: { lat: 48.8 } },
      tags: ["a", "b"],
      empty: {},
      $set: { profile: { age: 3 } },
      address__city: "Paris",
      address__geo__lat: 48.8,
      tags__0: "a",
      tags__1: "b",
    });
  });

  it("replaces nested properties when keep_nested is off, with another separator", () => {
    expect(runPlugin(flattenPlugin, { separator: ".", keep_nested: false }, event)!.properties).toEqual({
      plan: "pro",
      empty: {},
      $set: { profile: { age: 3 } },
      "address.city": "Paris",
      "address.geo.lat": 48.8,
      "tags.0": "a",
      "tags.1": "b",
    });
  });

  it("returns flat events unchanged", () => {
    const flat = ingestEvent({ properties: { a: 1, b: "x", c: [], $set: { nested: { x: 1 } } } });
    expect(runPlugin(flattenPlugin, {}, flat)).toBe(flat);
  });

  it("validates the separator", () => {
    expect(flattenPlugin.config.safeParse({ separator: "" }).success).toBe(false);
    expect(flattenPlugin.config.safeParse({ separator: "------" }).success).toBe(false);
  });
});
