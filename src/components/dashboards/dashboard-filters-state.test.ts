/** The dashboard filters' URL form, both ways, and their words in tile captions. */
import { describe, expect, it } from "vitest";
import { conditionLabel, dateRangeLabel, filtersBody, filtersFromSearch, sameFilters, savedFilters, searchWithFilters, type DashboardFilters } from "./dashboard-filters-state";

const chrome = { type: "event", key: "$browser", operator: "exact", value: "Chrome" } as const;

describe("dashboard filters in the URL", () => {
  it("round-trips through the query string, keeping other parameters", () => {
    const filters: DashboardFilters = { date_from: "-30d", date_to: null, properties: [chrome, { type: "person", key: "email", operator: "is_set", value: null }], filterTestAccounts: null };
    const search = searchWithFilters(new URLSearchParams("tab=1"), filters);
    const params = new URLSearchParams(search.slice(1));
    expect(params.get("tab")).toBe("1");
    expect(filtersFromSearch(params)).toEqual(filters);
    expect(searchWithFilters(params, null)).toBe("?tab=1");
  });

  it("keeps the test accounts' setting when set (true or false), and leaves it out for each insight's own", () => {
    const base: DashboardFilters = { date_from: "-30d", date_to: null, properties: [], filterTestAccounts: null };
    expect(new URLSearchParams(searchWithFilters(new URLSearchParams(), base).slice(1)).has("filter_test_accounts")).toBe(false);
    for (const filterTestAccounts of [true, false]) {
      const search = searchWithFilters(new URLSearchParams(), { ...base, filterTestAccounts });
      expect(search).toContain(`filter_test_accounts=${filterTestAccounts}`);
      expect(filtersFromSearch(new URLSearchParams(search.slice(1)))).toEqual({ ...base, filterTestAccounts });
      expect(filtersBody({ ...base, filterTestAccounts })).toEqual({ date_from: "-30d", date_to: null, properties: [], filterTestAccounts });
    }
    // The key alone names the URL's filters: on, over the saved ones
    expect(filtersFromSearch(new URLSearchParams("filter_test_accounts=true"))).toEqual({ date_from: null, date_to: null, properties: [], filterTestAccounts: true });
    expect(filtersFromSearch(new URLSearchParams("date_from=-7d&filter_test_accounts=maybe"))!.filterTestAccounts).toBeNull();
    expect(filtersBody(base)).not.toHaveProperty("filterTestAccounts");
    expect(savedFilters({ filterTestAccounts: false }).filterTestAccounts).toBe(false);
    expect(savedFilters({ filterTestAccounts: "yes" }).filterTestAccounts).toBeNull();
    expect(sameFilters(base, { ...base, filterTestAccounts: true })).toBe(false);
  });

  it("names no filters when the URL has none, and survives a broken properties parameter", () => {
    expect(filtersFromSearch(new URLSearchParams("tab=1"))).toBeNull();
    expect(filtersFromSearch(new URLSearchParams("date_from=-7d&properties=%7Bnot-json"))).toEqual({ date_from: "-7d", date_to: null, properties: [], filterTestAccounts: null });
    expect(filtersFromSearch(new URLSearchParams('properties=[{"key":"a","operator":"nonsense","value":"x"},{"key":1}]'))!.properties).toEqual([]);
  });

  it("reads saved filters, including grouped conditions, and drops half-typed ones from what is sent", () => {
    const saved = savedFilters({ date_from: "-7d", properties: { type: "AND", values: [{ type: "AND", values: [chrome] }] } });
    expect(saved).toEqual({ date_from: "-7d", date_to: null, properties: [chrome], filterTestAccounts: null });
    expect(savedFilters(null)).toEqual({ date_from: null, date_to: null, properties: [], filterTestAccounts: null });
    const halfTyped = { ...saved, properties: [...saved.properties, { type: "event" as const, key: "$os", operator: "exact" as const, value: "" }] };
    expect(filtersBody(halfTyped).properties).toEqual([chrome]);
    expect(sameFilters(halfTyped, saved)).toBe(true);
  });
});

describe("caption words", () => {
  it("says ranges as people do", () => {
    expect(dateRangeLabel("-30d", null)).toBe("Last 30 days");
    expect(dateRangeLabel("-24h", null)).toBe("Last 24 hours");
    expect(dateRangeLabel("-1w", null)).toBe("Last 1 week");
    expect(dateRangeLabel("-3m", null)).toBe("Last 3 months");
    expect(dateRangeLabel("mStart", null)).toBe("This month");
    expect(dateRangeLabel(null, null)).toBe("Last 7 days");
    expect(dateRangeLabel("2026-01-01", "2026-01-31")).toBe("Jan 1, 2026 – Jan 31, 2026");
    expect(dateRangeLabel("2026-03-05", null)).toBe("From Mar 5, 2026");
  });

  it("says conditions with their operator's label", () => {
    expect(conditionLabel(chrome)).toBe("$browser equals Chrome");
    expect(conditionLabel({ type: "person", key: "email", operator: "is_set", value: null })).toBe("Person email is set");
    expect(conditionLabel({ type: "event", key: "$os", operator: "exact", value: ["Mac", "iOS"] })).toBe("$os equals Mac or iOS");
  });
});
