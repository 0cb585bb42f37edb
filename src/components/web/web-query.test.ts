import { describe, expect, it } from "vitest";
import { filtersFromParams, nextOrder, pageGoalMatch, paramsOf, tableOrder, webTestAccounts, type WebFilters } from "./web-filters";
import { breakdownLabel, changeText, changeTone, formatDuration, formatOverviewValue, formatRate } from "./web-format";
import { trendsQuerySchema, trendsSpec } from "@/server/trends/contract";
import { overviewItems, overviewQuery, sessionTrendQuery, sessionTrendSeries, statsTable, statsTableQuery, topClicks, topClicksQuery, trendQuery, trendSeries } from "./web-query";

describe("the page's filters in the URL", () => {
  it("read back what they wrote, defaults left out", () => {
    const filters: WebFilters = { host: "shop.example", path: "/pricing", dateFrom: "-30d", order: { field: "Views", direction: "ASC" }, goal: null, filterTestAccounts: true };
    expect(paramsOf(filters)).toBe("host=shop.example&path=%2Fpricing&date_from=-30d&order=views-asc");
    expect(filtersFromParams(new URLSearchParams(paramsOf(filters)))).toEqual(filters);
    for (const order of [
      { field: "Visitors", direction: "ASC" },
      { field: "Views", direction: "DESC" },
      { field: "BounceRate", direction: "DESC" },
      { field: "BounceRate", direction: "ASC" },
    ] as const) {
      expect(filtersFromParams(new URLSearchParams(paramsOf({ ...filters, order })))).toEqual({ ...filters, order });
    }
    expect(paramsOf({ host: null, path: null, dateFrom: "-7d", order: { field: "BounceRate", direction: "DESC" }, goal: null, filterTestAccounts: true })).toBe("order=bounce-rate-desc");
    expect(paramsOf({ host: null, path: null, dateFrom: "-7d", order: null, goal: null, filterTestAccounts: true })).toBe("");
    // The default order is no order: the URL leaves it out.
    expect(paramsOf({ host: null, path: null, dateFrom: "-7d", order: { field: "Visitors", direction: "DESC" }, goal: null, filterTestAccounts: true })).toBe("");
  });

  it("keep \"Filter out internal and test users\" on unless the URL turns it off; a project without filters has it off", () => {
    const off: WebFilters = { host: null, path: null, dateFrom: "-7d", order: null, goal: null, filterTestAccounts: false };
    expect(paramsOf(off)).toBe("filter_test_accounts=false");
    expect(filtersFromParams(new URLSearchParams(paramsOf(off)))).toEqual(off);
    expect(paramsOf({ ...off, host: "shop.example", filterTestAccounts: true })).toBe("host=shop.example");
    // Only the word false turns it off
    for (const value of ["true", "0", "no", ""]) expect(filtersFromParams(new URLSearchParams({ filter_test_accounts: value })).filterTestAccounts).toBe(true);
    const filter = { key: "$host", type: "event", operator: "not_regex", value: "^localhost" };
    expect(webTestAccounts({ filterTestAccounts: true }, [filter])).toBe(true);
    expect(webTestAccounts({ filterTestAccounts: false }, [filter])).toBe(false);
    expect(webTestAccounts({ filterTestAccounts: true }, [])).toBe(false);
  });

  it("fall back to the defaults for values they do not know", () => {
    expect(filtersFromParams(new URLSearchParams("host=%20%20&date_from=-3y&path=" + "a".repeat(2000)))).toEqual({ host: null, path: null, dateFrom: "-7d", order: null, goal: null, filterTestAccounts: true });
    for (const order of ["visitors-desc", "Views-ASC", "views", "bounce-asc", "bouncerate-desc", "BounceRate-DESC", "constructor", "__proto__", ""]) {
      expect(filtersFromParams(new URLSearchParams({ order })).order).toBeNull();
    }
  });

  it("order the tables by a header: a new column from the most, the same one flipping, back to the default as none", () => {
    expect(nextOrder(null, "Views")).toEqual({ field: "Views", direction: "DESC" });
    expect(nextOrder({ field: "Views", direction: "DESC" }, "Views")).toEqual({ field: "Views", direction: "ASC" });
    expect(nextOrder({ field: "Views", direction: "ASC" }, "Views")).toEqual({ field: "Views", direction: "DESC" });
    expect(nextOrder(null, "Visitors")).toEqual({ field: "Visitors", direction: "ASC" });
    expect(nextOrder({ field: "Visitors", direction: "ASC" }, "Visitors")).toBeNull();
    expect(nextOrder({ field: "Views", direction: "ASC" }, "Visitors")).toBeNull();
    expect(nextOrder(null, "BounceRate")).toEqual({ field: "BounceRate", direction: "DESC" });
    expect(nextOrder({ field: "BounceRate", direction: "DESC" }, "BounceRate")).toEqual({ field: "BounceRate", direction: "ASC" });
    expect(nextOrder({ field: "BounceRate", direction: "ASC" }, "Views")).toEqual({ field: "Views", direction: "DESC" });
  });

  it("leave a table without a bounce rate column in its default order when the page orders by bounce rate", () => {
    const byBounce = { field: "BounceRate", direction: "ASC" } as const;
    expect(tableOrder(byBounce, true)).toEqual(byBounce);
    expect(tableOrder(byBounce, false)).toBeNull();
    expect(tableOrder({ field: "Views", direction: "ASC" }, false)).toEqual({ field: "Views", direction: "ASC" });
    expect(tableOrder(null, true)).toBeNull();
  });
});

describe("the queries", () => {
  const filters: WebFilters = { host: "shop.example", path: "/", dateFrom: "-24h", order: null, goal: null, filterTestAccounts: true };
  const properties = [
    { type: "event", key: "$host", operator: "exact", value: ["shop.example"] },
    { type: "event", key: "$pathname", operator: "exact", value: ["/"] },
  ];

  it("are PostHog's nodes with the filters as event properties", () => {
    expect(overviewQuery(filters)).toEqual({ kind: "WebOverviewQuery", properties, dateRange: { date_from: "-24h", date_to: null }, compareFilter: { compare: true }, filterTestAccounts: true });
    expect(statsTableQuery(filters, "InitialPage", 20)).toMatchObject({ kind: "WebStatsTableQuery", breakdownBy: "InitialPage", limit: 20, properties });
    expect(statsTableQuery(filters, "InitialPage", 20)).not.toHaveProperty("orderBy");
    expect(statsTableQuery({ ...filters, order: { field: "Views", direction: "ASC" } }, "Page", 20)).toMatchObject({ orderBy: ["Views", "ASC"] });
    expect(topClicksQuery(filters)).toEqual({ kind: "WebTopClicksQuery", properties, dateRange: { date_from: "-24h", date_to: null }, filterTestAccounts: true });
    expect(statsTableQuery(filters, "Page", 20)).toMatchObject({ filterTestAccounts: true });
    expect(sessionTrendQuery(filters)).toMatchObject({ filterTestAccounts: true });
    // Off: every node says so
    const off = { ...filters, filterTestAccounts: false };
    for (const node of [overviewQuery(off), statsTableQuery(off, "Page", 20), topClicksQuery(off), trendQuery(off), sessionTrendQuery(off)]) expect(node.filterTestAccounts).toBe(false);
    const trend = trendQuery(filters);
    expect(trend).toMatchObject({ kind: "TrendsQuery", interval: "hour", properties, filterTestAccounts: true });
    expect(trend.series.map((s) => s.math)).toEqual(["dau", "total", "unique_session"]);
    expect(trendQuery({ ...filters, dateFrom: "-30d" }).interval).toBe("day");
  });

  it("ask for a bounce rate on the entry pages only, and order by it only there", () => {
    const byBounce = { ...filters, order: { field: "BounceRate", direction: "DESC" } } as const;
    expect(statsTableQuery(filters, "InitialPage", 10)).toMatchObject({ includeBounceRate: true });
    expect(statsTableQuery(byBounce, "InitialPage", 10)).toMatchObject({ includeBounceRate: true, orderBy: ["BounceRate", "DESC"] });
    for (const breakdown of ["Page", "ExitPage", "Browser", "Country", "InitialReferringDomain"] as const) {
      // The query API refuses BounceRate without includeBounceRate: these keep their default order.
      expect(statsTableQuery(byBounce, breakdown, 10)).not.toHaveProperty("includeBounceRate");
      expect(statsTableQuery(byBounce, breakdown, 10)).not.toHaveProperty("orderBy");
    }
    expect(statsTableQuery({ ...filters, order: { field: "Views", direction: "ASC" } }, "ExitPage", 10)).toMatchObject({ orderBy: ["Views", "ASC"] });
  });

  it("with a goal, carry PostHog's conversionGoal, drop bounce rate and views, and order by the goal's figures", () => {
    const signup = { ...filters, goal: { kind: "event", event: "signup" } } as const;
    expect(overviewQuery(signup)).toMatchObject({ conversionGoal: { customEventName: "signup" } });
    expect(overviewQuery({ ...filters, goal: { kind: "action", id: 7 } })).toMatchObject({ conversionGoal: { actionId: 7 } });
    expect(overviewQuery({ ...filters, goal: { kind: "page", page: "/thanks" } })).toMatchObject({ conversionGoal: { pathname: "/thanks" } });
    // A full URL, or a path with a query string, is matched on the whole URL.
    expect(overviewQuery({ ...filters, goal: { kind: "page", page: "https://shop.example/thanks" } })).toMatchObject({ conversionGoal: { url: "https://shop.example/thanks" } });
    expect(overviewQuery({ ...filters, goal: { kind: "page", page: "/thanks?order=1" } })).toMatchObject({ conversionGoal: { url: "/thanks?order=1" } });
    expect(overviewQuery({ ...filters, goal: { kind: "page", page: "/thanks#done" } })).toMatchObject({ conversionGoal: { url: "/thanks#done" } });
    expect(statsTableQuery(signup, "InitialPage", 10)).not.toHaveProperty("includeBounceRate");
    expect(statsTableQuery({ ...signup, order: { field: "Views", direction: "ASC" } }, "Page", 10)).not.toHaveProperty("orderBy");
    expect(statsTableQuery({ ...signup, order: { field: "ConversionRate", direction: "DESC" } }, "Page", 10)).toMatchObject({ orderBy: ["ConversionRate", "DESC"] });
    expect(statsTableQuery({ ...filters, order: { field: "ConversionRate", direction: "DESC" } }, "Page", 10)).not.toHaveProperty("orderBy");
    expect(["/pricing", "/blog/*", "/a?b", "/a#b", "https://x.example/", "HTTP://x.example", "shop.example/pricing", "", "*"].map(pageGoalMatch)).toEqual([
      "path",
      "path",
      "url",
      "url",
      "url",
      "url",
      null,
      null,
      null,
    ]);
    // The goal travels in the URL; a broken one is none.
    expect(paramsOf({ ...signup, host: null, path: null })).toBe("date_from=-24h&goal=event%3Asignup");
    for (const goal of [
      { kind: "event", event: "signup" },
      { kind: "action", id: 7 },
      { kind: "page", page: "/thanks" },
      { kind: "page", page: "https://shop.example/thanks?x=1&y=2" },
    ] as const) {
      expect(filtersFromParams(new URLSearchParams(paramsOf({ ...filters, goal }))).goal).toEqual(goal);
    }
    for (const broken of ["action:x", "action:-1", "page:thanks", "page:ftp://shop.example/", "page:https://", "url:/a", ""]) expect(filtersFromParams(new URLSearchParams({ goal: broken })).goal).toBeNull();
  });

  it("ask the session duration and bounce rate as session-property maths over the same buckets, apart from the graph's", () => {
    const sessions = sessionTrendQuery(filters);
    expect(sessions).toMatchObject({ kind: "TrendsQuery", interval: "hour", properties, dateRange: { date_from: "-24h", date_to: null } });
    expect(sessions.series).toEqual([
      { kind: "EventsNode", event: "$pageview", name: "Session duration", math: "avg", math_property: "$session_duration", math_property_type: "session_properties" },
      { kind: "EventsNode", event: "$pageview", name: "Bounce rate", math: "avg", math_property: "$is_bounce", math_property_type: "session_properties" },
    ]);
    expect(sessionTrendQuery({ ...filters, dateFrom: "-30d" }).interval).toBe("day");
    // The visible graph keeps its three series.
    expect(trendQuery(filters).series).toHaveLength(3);
  });

  it("tag both trends as web analytics', which the server then counts by session start (from the sessions table)", () => {
    for (const node of [trendQuery(filters), sessionTrendQuery(filters), trendQuery({ ...filters, host: null, path: null, dateFrom: "-30d" })]) {
      expect(node.tags).toEqual({ productKey: "web_analytics" });
      expect(trendsSpec(trendsQuerySchema.parse(node)).bySessionStart).toBe(true);
      // Untagged, the same node is plain trends: the tag alone decides.
      expect(trendsSpec(trendsQuerySchema.parse({ ...node, tags: undefined })).bySessionStart).toBe(false);
    }
  });
});

describe("reading results", () => {
  it("takes WebOverviewQuery's items and refuses other shapes", () => {
    const items = overviewItems([
      { key: "visitors", kind: "unit", isIncreaseBad: false, value: 2, previous: 1, changeFromPreviousPct: 100 },
      { key: "bounce rate", kind: "percentage", isIncreaseBad: true, value: null, previous: null, changeFromPreviousPct: null },
    ]);
    expect(items).toEqual([
      { key: "visitors", kind: "unit", isIncreaseBad: false, value: 2, previous: 1, changeFromPreviousPct: 100 },
      { key: "bounce rate", kind: "percentage", isIncreaseBad: true, value: null, previous: null, changeFromPreviousPct: null },
    ]);
    expect(overviewItems({ results: [] })).toBeNull();
    expect(overviewItems([{ key: "visitors", kind: "weird" }])).toBeNull();
  });

  it("takes the stats table's (current, previous) tuples by column name", () => {
    const table = statsTable({
      columns: ["context.columns.breakdown_value", "context.columns.visitors", "context.columns.views", "context.columns.ui_fill_fraction", "context.columns.cross_sell"],
      results: [
        ["/", [2, null], [3, null], 2 / 3, ""],
        ["/login", [1, null], [1, null], 1 / 3, ""],
      ],
      hasMore: true,
    });
    expect(table).toEqual({
      rows: [
        { value: "/", visitors: 2, views: 3, bounceRate: null, fillFraction: 2 / 3, goal: null },
        { value: "/login", visitors: 1, views: 1, bounceRate: null, fillFraction: 1 / 3, goal: null },
      ],
      hasMore: true,
    });
    // With a goal: the conversion columns, by name.
    const goal = statsTable({
      columns: ["context.columns.breakdown_value", "context.columns.visitors", "context.columns.total_conversions", "context.columns.unique_conversions", "context.columns.conversion_rate", "context.columns.ui_fill_fraction", "context.columns.cross_sell"],
      results: [["/pricing", [4, null], [3, null], [2, null], [0.5, null], 1, ""]],
    });
    expect(goal?.rows[0]).toEqual({ value: "/pricing", visitors: 4, views: 0, bounceRate: null, fillFraction: 1, goal: { conversions: 3, converters: 2, rate: 0.5 } });
    expect(statsTable({ columns: ["context.columns.something_else"], results: [] })).toBeNull();
    expect(statsTable({ results: [["/", ["x"], 1, 0]] })).toBeNull();
  });

  it("takes the bounce rate by its column's name, null where a page had no session", () => {
    const table = statsTable({
      columns: [
        "context.columns.breakdown_value",
        "context.columns.visitors",
        "context.columns.views",
        "context.columns.bounce_rate",
        "context.columns.ui_fill_fraction",
        "context.columns.cross_sell",
      ],
      results: [
        ["/landing", [4, null], [4, null], [0.5, null], 0.8, ""],
        ["/docs", [1, null], [1, null], [null, null], 0.2, ""],
      ],
      hasMore: false,
    });
    expect(table?.rows.map((row) => [row.value, row.bounceRate, row.fillFraction])).toEqual([
      ["/landing", 0.5, 0.8],
      ["/docs", null, 0.2],
    ]);
  });

  it("takes the top clicks by column name, each row's bar its share of the clicks, and refuses other shapes", () => {
    const columns = ["el_text", "total_clicks", "unique_visitors"];
    expect(
      topClicks({
        columns,
        results: [
          ["Buy now", 3, 2],
          ["Docs", 1, 1],
        ],
      }),
    ).toEqual([
      { text: "Buy now", clicks: 3, visitors: 2, fillFraction: 0.75 },
      { text: "Docs", clicks: 1, visitors: 1, fillFraction: 0.25 },
    ]);
    expect(topClicks({ columns: ["unique_visitors", "el_text", "total_clicks"], results: [[2, "Buy now", 3]] })).toEqual([{ text: "Buy now", clicks: 3, visitors: 2, fillFraction: 1 }]);
    expect(topClicks({ columns, results: [] })).toEqual([]);
    expect(topClicks({ columns: ["el_text", "clicks"], results: [] })).toBeNull();
    expect(topClicks({ columns, results: [[null, 3, 2]] })).toBeNull();
    expect(topClicks({ columns, results: [["Buy now", "3", 2]] })).toBeNull();
    expect(topClicks([["Buy now", 3, 2]])).toBeNull();
  });

  it("takes the three trend series in order", () => {
    const series = (data: number[]) => ({ data, labels: ["1-Nov", "2-Nov"], days: ["2026-11-01", "2026-11-02"] });
    expect(trendSeries([series([1, 2]), series([3, 4]), series([1, 1])])?.map((s) => [s.key, s.data])).toEqual([
      ["visitors", [1, 2]],
      ["views", [3, 4]],
      ["sessions", [1, 1]],
    ]);
    expect(trendSeries([series([1, 2])])).toBeNull();
  });

  it("takes the session series keyed by their overview items, the bounce rate in percent", () => {
    const series = (data: unknown[]) => ({ data, labels: ["1-Nov", "2-Nov"], days: ["2026-11-01", "2026-11-02"] });
    expect(sessionTrendSeries([series([38.75, 64]), series([0.25, 0.5])])?.map((s) => [s.key, s.data])).toEqual([
      ["session duration", [38.75, 64]],
      ["bounce rate", [25, 50]],
    ]);
    expect(sessionTrendSeries([series([1, 2]), series([1, 2]), series([1, 2])])).toBeNull();
    expect(sessionTrendSeries([series([1, "x"]), series([1, 2])])).toBeNull();
  });
});

describe("formatting", () => {
  it("writes each overview kind in its unit", () => {
    expect(formatOverviewValue({ kind: "unit", value: 1234 })).toBe("1,234");
    expect(formatOverviewValue({ kind: "unit", value: 123_456 })).toBe("123.5K");
    expect(formatOverviewValue({ kind: "percentage", value: 66.666 })).toBe("67%");
    expect(formatOverviewValue({ kind: "duration_s", value: 28_800 })).toBe("8h 00m");
    expect(formatOverviewValue({ kind: "duration_s", value: null })).toBe("—");
    expect(formatDuration(185)).toBe("3m 05s");
    expect(formatDuration(9.6)).toBe("10s");
  });

  it("writes a bounce rate as a whole percentage, an en dash for none", () => {
    expect(formatRate(0.5)).toBe("50%");
    expect(formatRate(1 / 3)).toBe("33%");
    expect(formatRate(1)).toBe("100%");
    expect(formatRate(0)).toBe("0%");
    expect(formatRate(null)).toBe("—");
  });

  it("colours a change by whether a rise is bad", () => {
    expect(changeTone({ changeFromPreviousPct: 20, isIncreaseBad: false })).toBe("good");
    expect(changeTone({ changeFromPreviousPct: 20, isIncreaseBad: true })).toBe("bad");
    expect(changeTone({ changeFromPreviousPct: -20, isIncreaseBad: true })).toBe("good");
    expect(changeTone({ changeFromPreviousPct: null, isIncreaseBad: false })).toBe("neutral");
    expect(changeText(-5)).toBe("−5%");
    expect(changeText(12)).toBe("+12%");
    expect(changeText(null)).toBeNull();
  });

  it("writes breakdown values in words", () => {
    expect(breakdownLabel("Country", "FR")).toBe("France");
    expect(breakdownLabel("Country", null)).toBe("(none)");
    expect(breakdownLabel("InitialReferringDomain", "$direct")).toBe("Direct");
    expect(breakdownLabel("Viewport", [1280, 800])).toBe("1280 × 800");
    expect(breakdownLabel("City", ["DE", "Berlin"])).toBe("Berlin, Germany");
    expect(breakdownLabel("Region", ["GB", "ENG", "England"])).toBe("England, United Kingdom");
    expect(breakdownLabel("Timezone", -5)).toBe("UTC−5");
    expect(breakdownLabel("Timezone", 0)).toBe("UTC");
    expect(breakdownLabel("Page", "/docs")).toBe("/docs");
  });
});
