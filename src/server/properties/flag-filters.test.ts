import { InconclusiveMatchError, matchFeatureFlagProperty } from "@posthog/core"; // ships with posthog-node
import { describe, expect, it } from "vitest";
import { FLAG_PROPERTY_OPERATORS, matchesFlagPropertyFilter, relativeFlagDate, type FlagPropertyFilter } from "./flag-filters";

const NOW = new Date("2026-03-31T12:00:00Z");
const match = (filter: Omit<FlagPropertyFilter, "key"> & { key?: string }, properties: Record<string, unknown>) =>
  matchesFlagPropertyFilter({ key: "k", ...filter }, properties, NOW);

describe("matchesFlagPropertyFilter: PostHog's flag operators", () => {
  it("exact / is_not compare text case-insensitively, lists meaning any of", () => {
    expect(match({ value: "Pro", operator: "exact" }, { k: "pRO" })).toBe(true);
    expect(match({ value: ["free", "PRO"] }, { k: "pro" })).toBe(true); // exact is the default
    expect(match({ value: ["free", "team"], operator: "is_not" }, { k: "pro" })).toBe(true);
    expect(match({ value: 5, operator: "exact" }, { k: "5" })).toBe(true);
    expect(match({ value: "5", operator: "exact" }, { k: 5 })).toBe(true);
    expect(match({ value: "1.5", operator: "exact" }, { k: 1.5 })).toBe(true);
    expect(match({ value: "null", operator: "exact" }, { k: null })).toBe(true);
    expect(match({ value: "Straße", operator: "exact" }, { k: "STRASSE" })).toBe(false);
    expect(match({ value: "ÉCOLE", operator: "exact" }, { k: "école" })).toBe(true); // Unicode lower-casing
  });

  it("exact with a boolean-like filter compares truthiness ('false' matches anything not true)", () => {
    expect(match({ value: true }, { k: "TRUE" })).toBe(true);
    expect(match({ value: "true" }, { k: true })).toBe(true);
    expect(match({ value: ["true"] }, { k: "True" })).toBe(true);
    expect(match({ value: false }, { k: "false" })).toBe(true);
    expect(match({ value: false }, { k: "anything" })).toBe(true);
    expect(match({ value: "false" }, { k: 0 })).toBe(true);
    expect(match({ value: true }, { k: 1 })).toBe(false);
    expect(match({ value: true, operator: "is_not" }, { k: "yes" })).toBe(true);
  });

  it("icontains, starts_with and ends_with fold ASCII case only", () => {
    expect(match({ value: "ACME", operator: "icontains" }, { k: "x@acme.com" })).toBe(true);
    expect(match({ value: "acme", operator: "not_icontains" }, { k: "x@ACME.com" })).toBe(false);
    expect(match({ value: "É", operator: "icontains" }, { k: "é" })).toBe(false);
    expect(match({ value: "ht", operator: "starts_with" }, { k: "HTTPS://x" })).toBe(true);
    expect(match({ value: ".COM", operator: "ends_with" }, { k: "a.com" })).toBe(true);
    expect(match({ value: ".com", operator: "not_ends_with" }, { k: "a.org" })).toBe(true);
    expect(match({ value: "12", operator: "icontains" }, { k: 3123 })).toBe(true);
  });

  it("regex searches (not full-match); an invalid pattern matches neither way", () => {
    expect(match({ value: "^[a-z]+@acme\\.com$", operator: "regex" }, { k: "bob@acme.com" })).toBe(true);
    expect(match({ value: "acme", operator: "regex" }, { k: "bob@acme.com" })).toBe(true);
    expect(match({ value: "ACME", operator: "regex" }, { k: "bob@acme.com" })).toBe(false);
    expect(match({ value: "acme", operator: "not_regex" }, { k: "bob@example.com" })).toBe(true);
    expect(match({ value: "(", operator: "regex" }, { k: "(" })).toBe(false);
    expect(match({ value: "(", operator: "not_regex" }, { k: "(" })).toBe(false);
    // A stored pattern RE2 cannot run (saved before it was refused) matches neither way too.
    expect(match({ value: "(a)\\1", operator: "regex" }, { k: "aa" })).toBe(false);
    expect(match({ value: "(a)\\1", operator: "not_regex" }, { k: "ab" })).toBe(false);
  });

  it("regex runs in linear time: a catastrophic pattern cannot stall evaluation", () => {
    // V8's backtracking took 1.7 s on 27 characters, doubling with each one (4 min at 34): far past 5 s.
    const start = performance.now();
    expect(match({ value: "^(a+)+$", operator: "regex" }, { k: `${"a".repeat(34)}b` })).toBe(false);
    expect(match({ value: "^(a+)+$", operator: "not_regex" }, { k: `${"a".repeat(34)}b` })).toBe(true);
    expect(performance.now() - start).toBeLessThan(5_000);
  });

  it("gt/gte/lt/lte compare numbers when both sides parse, else text", () => {
    expect(match({ value: 10, operator: "gt" }, { k: "11" })).toBe(true);
    expect(match({ value: "10", operator: "gt" }, { k: 9 })).toBe(false);
    expect(match({ value: "10", operator: "lte" }, { k: "10.0" })).toBe(true);
    expect(match({ value: "2", operator: "gt" }, { k: "10abc" })).toBe(true); // parseFloat reads 10
    expect(match({ value: "b", operator: "gt" }, { k: "c" })).toBe(true);
    expect(match({ value: 1, operator: "gt" }, { k: null })).toBe(false);
    expect(match({ value: 1, operator: "lt" }, { k: null })).toBe(false);
  });

  it("is_date_before/after read relative and absolute filter dates", () => {
    expect(match({ value: "-7d", operator: "is_date_after" }, { k: "2026-03-30T00:00:00Z" })).toBe(true);
    expect(match({ value: "-7d", operator: "is_date_before" }, { k: "2026-03-01" })).toBe(true);
    expect(match({ value: "2026-01-01", operator: "is_date_after" }, { k: "2026-02-01T10:00:00+02:00" })).toBe(true);
    expect(match({ value: "-1m", operator: "is_date_after" }, { k: "not a date" })).toBe(false);
    expect(match({ value: true, operator: "is_date_after" }, { k: "2026-01-01" })).toBe(false);
  });

  it("relative months clamp the day at each step, as PostHog's SDKs", () => {
    expect(relativeFlagDate("-1m", NOW)?.toISOString()).toBe("2026-02-28T12:00:00.000Z");
    expect(relativeFlagDate("-2m", NOW)?.toISOString()).toBe("2026-01-28T12:00:00.000Z");
    expect(relativeFlagDate("3d", NOW)?.toISOString()).toBe("2026-03-28T12:00:00.000Z");
    expect(relativeFlagDate("-1y", new Date("2024-02-29T00:00:00Z"))?.toISOString()).toBe("2023-02-28T00:00:00.000Z");
    expect(relativeFlagDate("-10000d", NOW)).toBeNull();
    expect(relativeFlagDate("-5x", NOW)).toBeNull();
  });

  it("semver operators", () => {
    expect(match({ value: "1.2.3", operator: "semver_eq" }, { k: "v1.2.3-beta+build" })).toBe(true);
    expect(match({ value: "1.2", operator: "semver_gt" }, { k: "1.10.0" })).toBe(true);
    expect(match({ value: "1.2.3", operator: "semver_tilde" }, { k: "1.2.9" })).toBe(true);
    expect(match({ value: "1.2.3", operator: "semver_tilde" }, { k: "1.3.0" })).toBe(false);
    expect(match({ value: "0.2.3", operator: "semver_caret" }, { k: "0.2.9" })).toBe(true);
    expect(match({ value: "0.2.3", operator: "semver_caret" }, { k: "0.3.0" })).toBe(false);
    expect(match({ value: "1.*", operator: "semver_wildcard" }, { k: "1.99.0" })).toBe(true);
    expect(match({ value: "1.2.*", operator: "semver_wildcard" }, { k: "1.3.0" })).toBe(false);
    expect(match({ value: "1.2.3", operator: "semver_gte" }, { k: "banana" })).toBe(false);
  });

  it("a missing key: is_not_set and the negative operators hold, the rest fail (the server has the whole person)", () => {
    const holds = FLAG_PROPERTY_OPERATORS.filter((operator) => match({ value: "x", operator }, {}));
    expect(holds.sort()).toEqual(["is_not", "is_not_set", "not_ends_with", "not_icontains", "not_regex", "not_starts_with"]);
    expect(match({ operator: "is_set" }, { k: null })).toBe(true);
  });

  it("negation inverts", () => {
    expect(match({ value: "pro", negation: true }, { k: "pro" })).toBe(false);
  });
});

describe("matchesFlagPropertyFilter agrees with posthog-node's local evaluation wherever that is conclusive", () => {
  const values: unknown[] = [
    "pro", "PRO", "Pro team", "true", "False", "TRUE", "", " ", "10", "9", "10.5", "-3", "1e3", "abc10", "10abc",
    "2026-03-30", "2025-12-31T23:00:00Z", "v1.2.3", "1.10", "0.2.9", "x@acme.com", "ACME", "null", "école",
    0, 1, 9, 10, 10.5, -3, 1.25, true, false, null,
  ];
  const filterValues: unknown[] = ["pro", "10", 10, "9.5", "true", false, ["pro", "team"], ["true"], "-7d", "2026-01-01", "1.2.3", "1.*", "acme", "^x", "null", ""];

  it("over every operator × filter value × property value", () => {
    let compared = 0;
    const disagreements: string[] = [];
    for (const operator of FLAG_PROPERTY_OPERATORS) {
      for (const value of filterValues) {
        for (const actual of values) {
          const filter = { key: "k", value, operator } as FlagPropertyFilter;
          let expected: boolean;
          try {
            expected = matchFeatureFlagProperty(filter as Parameters<typeof matchFeatureFlagProperty>[0], { k: actual });
          } catch (error) {
            if (error instanceof InconclusiveMatchError) continue; // the SDK would ask the server
            throw error;
          }
          compared++;
          // Dates relative to now: both sides use the wall clock here.
          const ours = matchesFlagPropertyFilter(filter, { k: actual });
          if (ours !== expected) disagreements.push(`${operator} ${JSON.stringify(value)} vs ${JSON.stringify(actual)}: node ${expected}, ours ${ours}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThan(5_000);
  });
});
