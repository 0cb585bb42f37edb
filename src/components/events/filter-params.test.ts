/** The explorer's "Export CSV" link carries the same list parameters tRPC's events.list reads. */
import { describe, expect, it } from "vitest";
import { filterParams } from "@/server/events/contract";
import { csvExportHref, explorerHref, filtersFromSearch, matchSummary } from "./filter-params";

describe("explorer filters as list parameters", () => {
  const filters = { event: "purchase", after: "-7d", properties: [{ key: "plan", operator: "exact" as const, value: "pro" }] };

  it("names them as the REST list does, leaving blank fields out", () => {
    expect(filterParams({ ...filters, distinctId: "  ", before: "" })).toEqual({
      event: "purchase",
      after: "-7d",
      properties: JSON.stringify([{ key: "plan", operator: "exact", value: "pro", type: "event" }]),
    });
  });

  it("builds the CSV link from the same parameters", () => {
    expect(new URLSearchParams(filterParams(filters)).toString()).toBe(
      "event=purchase&after=-7d&properties=" + encodeURIComponent(JSON.stringify([{ key: "plan", operator: "exact", value: "pro", type: "event" }])).replace(/%20/g, "+"),
    );
    expect(csvExportHref(7, filters)).toMatch(/^\/api\/projects\/7\/events\/\?format=csv&event=purchase&after=-7d&properties=/);
  });
});

describe("explorer cohort rows and person as list parameters", () => {
  it("writes a chosen cohort as PostHog's cohort leaf, leaves an unchosen one out, and passes the person on", () => {
    const params = filterParams({
      personId: " 42 ",
      properties: [
        { type: "cohort", cohortId: 7 },
        { type: "cohort", cohortId: 9, operator: "not_in" },
        { type: "cohort", cohortId: 0 },
        { key: "plan", operator: "exact", value: "pro", type: "person" },
      ],
    });
    expect(params.person_id).toBe("42");
    expect(JSON.parse(params.properties!)).toEqual([
      { type: "cohort", key: "id", value: 7, operator: "in" },
      { type: "cohort", key: "id", value: 9, operator: "not_in" },
      { key: "plan", operator: "exact", value: "pro", type: "person" },
    ]);
    expect(filterParams({ properties: [{ type: "cohort", cohortId: 0 }] })).toEqual({});
  });
});

describe("explorer filters in the URL", () => {
  it("round-trips every filter through the explorer's address", () => {
    const filters = {
      event: "purchase",
      distinctId: "ada",
      after: "-7d",
      before: "2026-11-01T00:00:00Z",
      personId: "42",
      properties: [
        { key: "plan", operator: "exact" as const, value: "pro", type: "person" as const },
        { key: "$browser", operator: "is_set" as const, value: "", type: "event" as const },
        { type: "cohort" as const, cohortId: 7, operator: "not_in" as const },
      ],
    };
    const href = explorerHref(filters);
    expect(href.startsWith("/events?event=purchase&distinct_id=ada&after=-7d")).toBe(true);
    const back = filtersFromSearch(new URL(href, "http://x").searchParams);
    expect(back).toEqual(filters);
    expect(explorerHref(back)).toBe(href);
  });

  it("is /events with nothing applied, and reads an empty query as no filters", () => {
    expect(explorerHref({ event: " ", properties: [{ key: "", operator: "exact", value: "x" }] })).toBe("/events");
    expect(filtersFromSearch(new URLSearchParams(""))).toEqual({});
  });

  it("drops what a hand-edited URL gets wrong instead of failing the page", () => {
    expect(filtersFromSearch(new URLSearchParams({ properties: "{not json" }))).toEqual({});
    expect(filtersFromSearch(new URLSearchParams({ properties: JSON.stringify({ key: "a" }) }))).toEqual({});
    const rows = filtersFromSearch(
      new URLSearchParams({
        properties: JSON.stringify([null, 3, { key: "" }, { type: "cohort", value: "x" }, { key: "n", operator: "bogus", value: 5, type: "group" }]),
      }),
    ).properties;
    expect(rows).toEqual([{ key: "n", operator: "exact", value: "5", type: "event" }]);
  });
});

describe("the explorer's footer", () => {
  it("says how many rows are loaded of how many match", () => {
    expect(matchSummary(100, { count: 12_345, capped: false })).toBe("Showing 100 of 12,345 matching events");
    expect(matchSummary(1, { count: 1, capped: false })).toBe("Showing 1 of 1 matching event");
    expect(matchSummary(0, { count: 0, capped: false })).toBe("Showing 0 of 0 matching events");
  });

  it("marks a count that reached its cap as a floor, and never counts fewer than are loaded", () => {
    expect(matchSummary(50, { count: 100_000, capped: true })).toBe("Showing 50 of 100,000+ matching events");
    expect(matchSummary(52, { count: 50, capped: false })).toBe("Showing 52 of 52 matching events");
  });

  it("counts only the loaded rows while the count is unknown", () => {
    expect(matchSummary(50, null)).toBe("Showing 50 events");
    expect(matchSummary(1, null)).toBe("Showing 1 event");
  });
});
