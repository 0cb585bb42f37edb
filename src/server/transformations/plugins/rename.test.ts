import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { renamePlugin } from "./rename";

describe("rename plugin", () => {
  const event = ingestEvent({ event: "Order Completed", properties: { "Plan Type": "pro", orderId: 7, $browser: "Chrome", old_name: 1 } });

  it("changes nothing by default", () => {
    expect(runPlugin(renamePlugin, {}, event)).toBe(event);
  });

  it("renames events and properties exactly", () => {
    const result = runPlugin(renamePlugin, { event_renames: { "Order Completed": "purchase" }, property_renames: { old_name: "new_name" } }, event)!;
    expect(result.event).toBe("purchase");
    expect(result.properties).toEqual({ "Plan Type": "pro", orderId: 7, $browser: "Chrome", new_name: 1 });
  });

  it("converts names to snake_case, leaving PostHog's $ names", () => {
    const result = runPlugin(renamePlugin, { event_case: "snake_case", property_case: "snake_case" }, event)!;
    expect(result.event).toBe("order_completed");
    expect(result.properties).toEqual({ plan_type: "pro", order_id: 7, $browser: "Chrome", old_name: 1 });
    expect(runPlugin(renamePlugin, { event_case: "snake_case" }, ingestEvent({ event: "$pageview" }))!.event).toBe("$pageview");
  });

  it("converts names to camelCase, and $ names too when asked", () => {
    const result = runPlugin(renamePlugin, { event_case: "camelCase", property_case: "camelCase", keep_posthog_names: false }, event)!;
    expect(result.event).toBe("orderCompleted");
    expect(result.properties).toEqual({ planType: "pro", orderId: 7, browser: "Chrome", oldName: 1 });
  });

  it("applies renames before the convention", () => {
    const result = runPlugin(renamePlugin, { property_renames: { orderId: "The Order" }, property_case: "snake_case" }, event)!;
    expect(result.properties.the_order).toBe(7);
  });

  it("gives two names that become one the later value", () => {
    const clash = ingestEvent({ properties: { "Plan Type": "first", plan_type: "second", other: 1 } });
    expect(runPlugin(renamePlugin, { property_case: "snake_case" }, clash)!.properties).toEqual({ plan_type: "second", other: 1 });
  });

  it("renames events of many key sequences, each by its own keys", () => {
    const transform = renamePlugin.build(renamePlugin.config.parse({ property_case: "camelCase" }) as never);
    const word = (i: number) => [...i.toString(26)].map((digit) => String.fromCharCode(97 + parseInt(digit, 26))).join("");
    // More sequences than the plugin remembers, each seen twice.
    for (let round = 0; round < 2; round++) {
      for (let n = 1; n <= 40; n++) {
        const properties = Object.fromEntries(Array.from({ length: n }, (_, i) => [`key_${word(i)}`, i]));
        const result = transform(ingestEvent({ properties }))!;
        expect(Object.keys(result.properties)).toEqual(Array.from({ length: n }, (_, i) => `key${word(i)[0]!.toUpperCase()}${word(i).slice(1)}`));
        expect(Object.values(result.properties)).toEqual(Array.from({ length: n }, (_, i) => i));
      }
    }
    const unchanged = ingestEvent({ properties: { already: 1, camel: 2 } });
    expect(transform(unchanged)).toBe(unchanged);
  });

  it("keeps a __proto__ property a plain property", () => {
    const properties = JSON.parse('{"__proto__": {"polluted": true}, "Some Name": 1}') as Record<string, unknown>;
    const result = runPlugin(renamePlugin, { property_renames: { "Some Name": "renamed" } }, ingestEvent({ properties }))!;
    expect(Object.prototype.hasOwnProperty.call(result.properties, "__proto__")).toBe(true);
    expect(Object.keys(result.properties)).toEqual(["__proto__", "renamed"]);
    expect(Object.getPrototypeOf(result.properties)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps a name that converts to nothing", () => {
    const weird = ingestEvent({ event: "!!!", properties: { "???": 1 } });
    const result = runPlugin(renamePlugin, { event_case: "snake_case", property_case: "camelCase" }, weird);
    expect(result).toBe(weird);
  });

  it("validates the config", () => {
    expect(renamePlugin.config.safeParse({ event_case: "kebab-case" }).success).toBe(false);
    expect(renamePlugin.config.safeParse({ event_renames: { a: "" } }).success).toBe(false);
    expect(renamePlugin.config.safeParse({ property_renames: ["a"] }).success).toBe(false);
  });
});
