import { describe, expect, it } from "vitest";
import { destinationFiltersSchema } from "./contract";
import { compileFilters } from "./filters";
import { backoffDelay } from "./worker";

const compile = (filters: unknown, actions = new Map()) => compileFilters(destinationFiltersSchema.parse(filters), actions);
const event = (name: string, properties: Record<string, unknown> = {}) => ({ event: name, distinctId: "d", properties });

describe("destination filters", () => {
  it("pass every event when nothing is listed", () => {
    expect(compile({}).mayMatch(event("anything"))).toBe(true);
    expect(compile(null).mayMatch(event("$pageview"))).toBe(true);
  });

  it("match listed event names exactly (case and regex characters included), with their own properties", () => {
    const f = compile({ events: [{ id: "signed.up" }, { id: "paid", properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "event" }] }] });
    expect(f.mayMatch(event("signed.up"))).toBe(true);
    expect(f.mayMatch(event("signedXup"))).toBe(false);
    expect(f.mayMatch(event("Signed.up"))).toBe(false);
    expect(f.mayMatch(event("paid", { plan: "pro" }))).toBe(true);
    expect(f.mayMatch(event("paid", { plan: "free" }))).toBe(false);
    expect(f.readsPerson).toBe(false);
  });

  it("ANDs top-level properties with the events or actions", () => {
    const tree = { type: "AND" as const, values: [{ type: "event_metadata" as const, key: "event", operator: "exact" as const, value: ["checkout"], negation: false }] };
    const f = compile({ actions: [{ id: 7 }], properties: [{ key: "$current_url", value: "/cart", operator: "icontains", type: "event" }] }, new Map([[7, { type: "OR" as const, values: [tree] }]]));
    expect(f.mayMatch(event("checkout", { $current_url: "https://x/cart" }))).toBe(true);
    expect(f.mayMatch(event("checkout", { $current_url: "https://x/home" }))).toBe(false);
    expect(f.mayMatch(event("other", { $current_url: "https://x/cart" }))).toBe(false);
  });

  it("match nothing for an action deleted since", () => {
    expect(compile({ actions: [{ id: 9 }] }).mayMatch(event("x"))).toBe(false);
  });

  it("leave person filters to delivery, still ruling out other event names", () => {
    const f = compile({ events: [{ id: "paid" }], properties: [{ key: "email", value: "@acme.com", operator: "icontains", type: "person" }] });
    expect(f.readsPerson).toBe(true);
    expect(f.mayMatch(event("paid"))).toBe(true);
    expect(f.mayMatch(event("viewed"))).toBe(false);
    expect(f.matches(event("paid"), { email: "ada@acme.com" })).toBe(true);
    expect(f.matches(event("paid"), { email: "bob@else.com" })).toBe(false);
    expect(f.matches(event("paid"), null)).toBe(false);
  });

  it("refuse cohort leaves", () => {
    expect(() => compile({ properties: [{ key: "id", value: 3, type: "cohort" }] })).toThrow(/cohort/);
  });
});

describe("retry backoff", () => {
  it("doubles from the first delay with ±20 % jitter, up to the cap", () => {
    const options = { backoffMs: 1000, maxBackoffMs: 60_000 };
    expect(backoffDelay(1, options, () => 0.5)).toBe(1000);
    expect(backoffDelay(2, options, () => 0.5)).toBe(2000);
    expect(backoffDelay(4, options, () => 0.5)).toBe(8000);
    expect(backoffDelay(20, options, () => 0.5)).toBe(60_000);
    expect(backoffDelay(3, options, () => 0)).toBe(3200);
    expect(backoffDelay(3, options, () => 1)).toBe(4800);
  });
});
