import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { propertyFilterPlugin } from "./property-filter";

describe("property filter plugin", () => {
  const event = ingestEvent({
    properties: {
      email: "a@example.com",
      plan: "pro",
      "dotted.key": 1,
      address: { street: "Main St 1", city: "Paris" },
      $set: { email: "a@example.com", name: "Ann" },
      $set_once: { email: "first@example.com" },
    },
  });

  it("passes events unchanged by default", () => {
    expect(runPlugin(propertyFilterPlugin, {}, event)).toBe(event);
  });

  it("removes listed properties, also from $set and $set_once", () => {
    const result = runPlugin(propertyFilterPlugin, { properties: ["email"] }, event)!;
    expect(result.properties).toEqual({
      plan: "pro",
      "dotted.key": 1,
      address: { street: "Main St 1", city: "Paris" },
      $set: { name: "Ann" },
      $set_once: {},
    });
  });

  it("removes nested properties by dotted path, and a key with a dot in its name as it is", () => {
    const result = runPlugin(propertyFilterPlugin, { properties: ["address.street", "dotted.key", "missing.path"] }, event)!;
    expect(result.properties.address).toEqual({ city: "Paris" });
    expect(result.properties).not.toHaveProperty("dotted.key");
    expect(result.properties.plan).toBe("pro");
  });

  it("returns the same event when nothing listed is present", () => {
    expect(runPlugin(propertyFilterPlugin, { properties: ["absent", "plan.deeper"] }, event)).toBe(event);
  });

  it("validates the list", () => {
    expect(propertyFilterPlugin.config.safeParse({ properties: [""] }).success).toBe(false);
    expect(propertyFilterPlugin.config.safeParse({ properties: "email" }).success).toBe(false);
  });
});
