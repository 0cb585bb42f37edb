import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "../testing";
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
