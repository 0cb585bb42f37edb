import { describe, expect, it } from "vitest";
import { DISPLAYS, MATHS } from "@/server/trends/contract";
import { FUNNEL_ORDER_TYPES, FUNNEL_VIZ_TYPES, WINDOW_UNITS } from "@/server/funnels/contract";
import { PERIODS } from "@/server/retention/contract";
import { PATH_TYPES } from "@/server/paths/contract";
import { funnelsQuerySchema } from "@/server/funnels/contract";
import { trendsQuerySchema } from "@/server/trends/contract";
import { pathsQuerySchema } from "@/server/paths/contract";
import { retentionQuerySchema } from "@/server/retention/contract";
import { stickinessQuerySchema } from "@/server/stickiness/contract";
import { lifecycleQuerySchema } from "@/server/lifecycle/contract";
import {
  decodeQuery,
  defaultState,
  DISPLAY_LABELS,
  EDITOR_KINDS,
  encodeQuery,
  keepUnedited,
  FUNNEL_ORDER_LABELS,
  FUNNEL_VIZ_LABELS,
  MATH_LABELS,
  MAX_URL_QUERY,
  nodeFromState,
  PATH_TYPE_LABELS,
  problemsOf,
  RETENTION_PERIOD_LABELS,
  sourceFromState,
  stateFromNode,
  WINDOW_UNIT_LABELS,
  type EditorKind,
  type EditorState,
} from "./editor-state";

const SCHEMAS = {
  trends: trendsQuerySchema,
  funnels: funnelsQuerySchema,
  retention: retentionQuerySchema,
  paths: pathsQuerySchema,
  stickiness: stickinessQuerySchema,
  lifecycle: lifecycleQuerySchema,
} as const;

/** A state of each kind with every field it uses away from its default. */
const STATES: Record<EditorKind, EditorState> = {
  trends: {
    ...defaultState("trends"),
    series: [
      { event: "buy", math: "sum", math_property: "price", custom_name: "Revenue", properties: [{ type: "event", key: "currency", operator: "exact", value: "EUR, USD" }] },
      { event: null, math: "dau", math_property: "", custom_name: "", properties: [{ type: "person", key: "age", operator: "gt", value: "30" }] },
    ],
    properties: [
      { type: "cohort", key: "id", operator: "not_in", value: "4" },
      { type: "event", key: "$browser", operator: "is_set", value: "" },
    ],
    breakdown: { type: "person", value: "plan" },
    dateFrom: "-30d",
    dateTo: "-1d",
    interval: "week",
    display: "ActionsBar",
    formula: "A / B",
  },
  funnels: {
    ...defaultState("funnels"),
    series: [
      { event: "sign up", math: "total", math_property: "", custom_name: "", properties: [] },
      { event: "play movie", math: "total", math_property: "", custom_name: "Watched", properties: [{ type: "event", key: "genre", operator: "icontains", value: "drama" }] },
      { event: "buy", math: "total", math_property: "", custom_name: "", properties: [] },
    ],
    breakdown: { type: "cohort", value: "7" },
    interval: "hour",
    funnel: { orderType: "strict", vizType: "time_to_convert", windowInterval: 3, windowUnit: "hour", exclusions: [{ event: "cancel", from: 0, to: 2 }] },
  },
  retention: {
    ...defaultState("retention"),
    properties: [{ type: "person", key: "email", operator: "not_icontains", value: "@test" }],
    dateFrom: "-90d",
    retention: { target: "sign up", returning: null, period: "Week", totalIntervals: 10, retentionType: "retention_first_time" },
  },
  paths: {
    ...defaultState("paths"),
    dateFrom: "all",
    paths: { includeEventTypes: ["$pageview", "custom_event"], startPoint: "/home", endPoint: "/buy", stepLimit: 8 },
  },
  stickiness: {
    ...defaultState("stickiness"),
    series: [
      { event: "$pageview", math: "total", math_property: "", custom_name: "", properties: [] },
      { event: "buy", math: "total", math_property: "", custom_name: "Buyers", properties: [] },
    ],
    interval: "week",
    stickiness: { computedAs: "cumulative" },
  },
  lifecycle: { ...defaultState("lifecycle"), series: [{ event: "buy", math: "total", math_property: "", custom_name: "", properties: [] }], interval: "month" },
};

describe("the insight editor's query node", () => {
  it.each(EDITOR_KINDS)("%s: state → node → state is the same state, and the node is one its kind's contract accepts", (kind) => {
    const state = STATES[kind];
    const node = nodeFromState(state);
    expect(node.kind).toBe("InsightVizNode");
    expect(stateFromNode(node)).toEqual(state);
    // The bare node reads the same as the wrapped one.
    expect(stateFromNode(sourceFromState(state))).toEqual(state);
    const parsed = SCHEMAS[kind].safeParse(sourceFromState(state));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(problemsOf(state)).toEqual([]);
  });

  it.each(EDITOR_KINDS)("%s: the default state round-trips and runs", (kind) => {
    expect(stateFromNode(nodeFromState(defaultState(kind)))).toEqual(defaultState(kind));
    expect(SCHEMAS[kind].safeParse(sourceFromState(defaultState(kind))).success).toBe(true);
  });

  it("writes PostHog's shapes: series maths, listed values, cohort filters and breakdowns, funnel and retention filters", () => {
    const trends = sourceFromState(STATES.trends);
    expect(trends.series).toEqual([
      {
        kind: "EventsNode",
        event: "buy",
        name: "buy",
        math: "sum",
        math_property: "price",
        custom_name: "Revenue",
        properties: [{ key: "currency", operator: "exact", type: "event", value: ["EUR", "USD"] }],
      },
      { kind: "EventsNode", event: null, name: "All events", math: "dau", properties: [{ key: "age", operator: "gt", type: "person", value: 30 }] },
    ]);
    expect(trends.properties).toEqual([
      { type: "cohort", key: "id", value: 4, operator: "not_in" },
      { key: "$browser", operator: "is_set", type: "event" },
    ]);
    expect(trends.trendsFilter).toEqual({ display: "ActionsBar", formula: "A / B" });
    const funnels = sourceFromState(STATES.funnels);
    expect(funnels.breakdownFilter).toEqual({ breakdown: [7], breakdown_type: "cohort" });
    expect(funnels.funnelsFilter).toMatchObject({ funnelOrderType: "strict", funnelWindowInterval: 3, exclusions: [{ event: "cancel", funnelFromStep: 0, funnelToStep: 2 }] });
    expect(sourceFromState(STATES.retention).retentionFilter).toMatchObject({ targetEntity: { id: "sign up", type: "events" }, returningEntity: { id: null }, period: "Week" });
    // Lifecycle has one series: extra ones stay in the form but are not sent.
    expect((sourceFromState({ ...STATES.lifecycle, series: [...STATES.lifecycle.series, ...STATES.stickiness.series] }).series as unknown[]).length).toBe(1);
  });

  it("reads PostHog's other spellings: filter groups, formulaNodes, cohort breakdown ids", () => {
    const state = stateFromNode({
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "a" }],
      properties: { type: "AND", values: [{ type: "OR", values: [{ key: "x", value: "1", operator: "exact", type: "event" }] }] },
      trendsFilter: { formulaNodes: [{ formula: "A*2" }] },
      breakdownFilter: { breakdown: "3", breakdown_type: "cohort" },
    });
    expect(state?.properties).toEqual([{ type: "event", key: "x", operator: "exact", value: "1" }]);
    expect(state?.formula).toBe("A*2");
    expect(state?.breakdown).toEqual({ type: "cohort", value: "3" });
    expect(stateFromNode({ kind: "HogQLQuery", query: "select 1" })).toBeNull();
    expect(stateFromNode("nope")).toBeNull();
  });

  it("the browser's lists are the server's", () => {
    expect(Object.keys(MATH_LABELS).sort()).toEqual([...MATHS].sort());
    expect(Object.keys(DISPLAY_LABELS).sort()).toEqual([...DISPLAYS].sort());
    expect(Object.keys(FUNNEL_ORDER_LABELS).sort()).toEqual([...FUNNEL_ORDER_TYPES].sort());
    expect(Object.keys(FUNNEL_VIZ_LABELS).sort()).toEqual([...FUNNEL_VIZ_TYPES].sort());
    expect(Object.keys(WINDOW_UNIT_LABELS).sort()).toEqual([...WINDOW_UNITS].sort());
    expect(Object.keys(RETENTION_PERIOD_LABELS).sort()).toEqual([...PERIODS].sort());
    expect(Object.keys(PATH_TYPE_LABELS).sort()).toEqual([...PATH_TYPES].sort());
  });
});

describe("what keeps a query from running", () => {
  it("names unfinished filters, property maths without a property, an empty breakdown and a backwards exclusion", () => {
    const state: EditorState = {
      ...STATES.trends,
      series: [{ ...STATES.trends.series[0]!, math: "avg", math_property: "" }],
      properties: [{ type: "event", key: " ", operator: "exact", value: "" }],
      breakdown: { type: "event", value: "" },
    };
    expect(problemsOf(state)).toEqual([
      "Global filter 1 needs a property.",
      'Series 1: "Average of property" needs a numeric property.',
      "Choose a property to break down by.",
    ]);
    expect(problemsOf({ ...STATES.funnels, funnel: { ...STATES.funnels.funnel, exclusions: [{ event: "x", from: 2, to: 1 }] } })).toEqual([
      "Exclusion 1: its last step must come after its first.",
    ]);
    expect(problemsOf({ ...STATES.lifecycle, series: [] })).toEqual(["Add a series."]);
  });

  it("uses the shared contracts: a bad date and an out-of-range retention count", () => {
    expect(problemsOf({ ...STATES.paths, dateFrom: "yesterday-ish" }).join(" ")).toMatch(/^dateRange\.date_from: /);
    expect(problemsOf({ ...STATES.retention, retention: { ...STATES.retention.retention, totalIntervals: 0 } })).toEqual([
      "retentionFilter.totalIntervals: totalIntervals must be at least 1.",
    ]);
  });
});

describe("the query in the URL", () => {
  it("round-trips through lz-string and refuses what is not ours", () => {
    const node = nodeFromState(STATES.funnels);
    const param = encodeQuery(node);
    expect(param).toMatch(/^[A-Za-z0-9+\-$]+$/);
    expect(decodeQuery(param)).toEqual(node);
    expect(decodeQuery(null)).toBeNull();
    expect(decodeQuery("%%%")).toBeNull();
    expect(decodeQuery("A".repeat(MAX_URL_QUERY + 1))).toBeNull();
  });
});

describe("fields the editor does not edit", () => {
  it("are kept from the stored query of the same kind, and dropped for another kind", () => {
    const stored = {
      kind: "InsightVizNode",
      full: true,
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "old" }],
        compareFilter: { compare: true },
        breakdownFilter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 5 },
        trendsFilter: { display: "ActionsPie", showLegend: true, formula: "A" },
      },
    };
    const state = stateFromNode(stored)!;
    expect(state.formula).toBe("A");
    const edited = keepUnedited(nodeFromState({ ...state, formula: "", breakdown: { type: "person", value: "plan" }, series: [newSeriesFor("new")] }), stored);
    expect(edited).toEqual({
      kind: "InsightVizNode",
      full: true,
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "new", name: "new", math: "total" }],
        interval: "day",
        dateRange: { date_from: null, date_to: null },
        compareFilter: { compare: true },
        breakdownFilter: { breakdown: "plan", breakdown_type: "person", breakdown_limit: 5 },
        // The formula was removed in the editor: it stays removed.
        trendsFilter: { display: "ActionsPie", showLegend: true },
      },
    });
    expect(stateFromNode(edited)).toEqual(stateFromNode(nodeFromState({ ...state, formula: "", breakdown: { type: "person", value: "plan" }, series: [newSeriesFor("new")] })));
    const other = nodeFromState(defaultState("funnels"));
    expect(keepUnedited(other, stored)).toEqual(other);
    expect(keepUnedited(other, null)).toEqual(other);
  });
});

function newSeriesFor(event: string) {
  return { event, math: "total" as const, math_property: "", custom_name: "", properties: [] };
}
