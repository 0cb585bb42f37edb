import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { addPropertiesPlugin } from "./add-properties";

describe("add properties plugin", () => {
  const event = ingestEvent({ properties: { environment: "staging", plan: "pro" } });

  it("changes nothing by default", () => {
    expect(runPlugin(addPropertiesPlugin, {}, event)).toBe(event);
  });

  it("adds and overrides properties, JSON values included", () => {
    const result = runPlugin(addPropertiesPlugin, { properties: { environment: "production", region: "eu", flags: { beta: true }, n: 1 } }, event)!;
    expect(result.properties).toEqual({ environment: "production", plan: "pro", region: "eu", flags: { beta: true }, n: 1 });
  });

  it("only fills missing properties when override is off", () => {
    const result = runPlugin(addPropertiesPlugin, { properties: { environment: "production", region: "eu" }, override: false }, event)!;
    expect(result.properties).toEqual({ environment: "staging", plan: "pro", region: "eu" });
  });

  it("validates the config", () => {
    expect(addPropertiesPlugin.config.safeParse({ properties: ["a"] }).success).toBe(false);
    expect(addPropertiesPlugin.config.safeParse({ properties: { "": 1 } }).success).toBe(false);
    expect(addPropertiesPlugin.config.safeParse({ override: "yes" }).success).toBe(false);
  });
});
