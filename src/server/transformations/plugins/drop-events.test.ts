import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { dropEventsPlugin } from "./drop-events";

const pageview = ingestEvent({ event: "$pageview", properties: { $host: "localhost", plan: "free" } });
const purchase = ingestEvent({ event: "purchase", properties: { $host: "shop.example.com", price: 30 } });

describe("drop events plugin", () => {
  it("drops nothing with the default config", () => {
    expect(runPlugin(dropEventsPlugin, {}, pageview)).toBe(pageview);
    expect(runPlugin(dropEventsPlugin, {}, purchase)).toBe(purchase);
  });

  it("drops events by name", () => {
    const config = { events: ["$pageview", "$pageleave"] };
    expect(runPlugin(dropEventsPlugin, config, pageview)).toBeNull();
    expect(runPlugin(dropEventsPlugin, config, purchase)).toBe(purchase);
  });

  it("drops events whose properties match PostHog filters", () => {
    const config = { properties: [{ key: "$host", value: "localhost" }] };
    expect(runPlugin(dropEventsPlugin, config, pageview)).toBeNull();
    expect(runPlugin(dropEventsPlugin, config, purchase)).toBe(purchase);
    const cheap = { properties: [{ key: "price", operator: "lt", value: 50 }] };
    expect(runPlugin(dropEventsPlugin, cheap, purchase)).toBeNull();
    expect(runPlugin(dropEventsPlugin, cheap, pageview)).toBe(pageview);
  });

  it("needs both the name and the filters when both are given", () => {
    const config = { events: ["purchase"], properties: [{ key: "$host", value: "localhost" }] };
    expect(runPlugin(dropEventsPlugin, config, pageview)).toBe(pageview);
    expect(runPlugin(dropEventsPlugin, config, purchase)).toBe(purchase);
    const both = { events: ["$pageview"], properties: [{ key: "plan", operator: "icontains", value: "FREE" }] };
    expect(runPlugin(dropEventsPlugin, both, pageview)).toBeNull();
  });

  it("takes OR groups", () => {
    const config = { properties: { type: "OR", values: [{ key: "plan", value: "pro" }, { key: "price", operator: "gt", value: 10 }] } };
    expect(runPlugin(dropEventsPlugin, config, purchase)).toBeNull();
    expect(runPlugin(dropEventsPlugin, config, pageview)).toBe(pageview);
  });

  it("matches regex filters in linear time, even a catastrophic pattern on a long property", () => {
    const config = { properties: [{ key: "name", operator: "regex", value: "^(a+)+$" }] };
    const long = ingestEvent({ event: "signup", properties: { name: `${"a".repeat(10_000)}b` } });
    const start = performance.now();
    expect(runPlugin(dropEventsPlugin, config, long)).toBe(long);
    // Backtracking on 10,000 characters would not finish in minutes.
    expect(performance.now() - start).toBeLessThan(5_000);
    const exact = ingestEvent({ event: "signup", properties: { name: "a".repeat(10_000) } });
    expect(runPlugin(dropEventsPlugin, config, exact)).toBeNull();
  });

  it("refuses patterns RE2 cannot run (backreferences, lookaround)", () => {
    for (const value of ["(a)\\1", "(?=x)"]) {
      const parsed = dropEventsPlugin.config.safeParse({ properties: [{ key: "name", operator: "regex", value }] });
      expect(parsed.success, value).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/^Invalid regular expression/);
    }
  });

  it("refuses person property filters and bad filters", () => {
    const person = dropEventsPlugin.config.safeParse({ properties: [{ key: "email", value: "x", type: "person" }] });
    expect(person.success).toBe(false);
    expect(person.error?.issues[0]?.message).toMatch(/Only event property filters/);
    expect(dropEventsPlugin.config.safeParse({ properties: [{ key: "a", operator: "nope", value: 1 }] }).success).toBe(false);
    expect(dropEventsPlugin.config.safeParse({ events: "purchase" }).success).toBe(false);
  });
});
