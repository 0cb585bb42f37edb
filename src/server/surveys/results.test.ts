import { describe, expect, it } from "vitest";
import { computeResults, type SurveyEvent } from "./results";

describe("survey results", () => {
  it("counts 200,000 views, the most the stats read per event, with their first and last times (no spread of them as arguments)", () => {
    const start = Date.parse("2026-01-01T00:00:00Z");
    const shown: SurveyEvent[] = Array.from({ length: 200_000 }, (_, i) => ({
      uuid: `u${i}`,
      event: "survey shown",
      distinctId: `d${i % 1000}`,
      personId: null,
      // Out of order, so first and last are not simply the ends of the list.
      timestamp: new Date(start + ((i * 7919) % 200_000) * 1000),
      properties: {},
    }));
    const results = computeResults([], { "survey shown": shown, "survey dismissed": [], "survey sent": [] });
    expect(results.stats["survey shown"]).toMatchObject({
      total_count: 200_000,
      unique_persons: 1000,
      first_seen: new Date(start).toISOString(),
      last_seen: new Date(start + 199_999 * 1000).toISOString(),
    });
  });
});
