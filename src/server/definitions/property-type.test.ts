import { describe, expect, it } from "vitest";
import { guessPropertyType } from "./property-type";

describe("guessPropertyType, as PostHog's ingestion guesses", () => {
  it.each([
    ["plan", "pro", "String"],
    ["price", 9.5, "Numeric"],
    ["count", 0, "Numeric"],
    ["is_paid", true, "Boolean"],
    ["is_paid", " FALSE ", "Boolean"],
    ["signed_up", "2026-11-24T10:00:00Z", "DateTime"],
    ["day", "2026-11-24", "DateTime"],
    ["created_at", 1_764_000_000, "DateTime"],
    ["created_at", 1_764_000_000_000, "DateTime"],
    ["created_at", 42, "Numeric"],
    ["score", 1_764_000_000, "Numeric"],
    ["utm_campaign", 2026, "String"],
    ["$feature/beta", "true", "Boolean"],
    ["$feature/beta", "variant-a", "String"],
    ["not_a_date", "2026-13-45", "String"],
    ["nothing", null, null],
    ["list", [1, 2], null],
    ["object", { a: 1 }, null],
  ] as const)("%s = %j is %s", (key, value, expected) => {
    expect(guessPropertyType(key, value)).toBe(expected);
  });
});
