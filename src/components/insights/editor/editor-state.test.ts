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
  type FilterItem,
} from "./editor-state";
import { describeKept } from "./filter-groups";
import { sameJson } from "./stored-node";

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
    filterTestAccounts: true,
    series: [
      { event: "buy", math: "sum", math_property: "price", custom_name: "Revenue", properties: [{ type: "event", key: "currency", operator: "exact", value: "EUR, USD" }] },
      { event: null, math: "dau", math_property: "", custom_name: "", properties: [{ type: "person", key: "age", operator: "gt", value: "30" }] },
    ],
    properties: {
      type: "AND",
      values: [
        {
          type: "AND",
          values: [
            { type: "cohort", key: "id", operator: "not_in", value: "4" },
            { type: "event", key: "$browser", operator: "is_set", value: "" },
          ],
        },
      ],
    },
    breakdown: { type: "person", value: "plan" },
    dateFrom: "-30d",
    dateTo: "-1d",
    interval: "week",
    display: "ActionsBar",
    formula: "A / B",
  },
  funnels: {
    ...defaultState("funnels"),
    filterTestAccounts: true,
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
    filterTestAccounts: true,
    properties: { type: "AND", values: [{ type: "AND", values: [{ type: "person", key: "email", operator: "not_icontains", value: "@test" }] }] },
    dateFrom: "-90d",
    retention: { target: "sign up", returning: null, period: "Week", totalIntervals: 10, retentionType: "retention_first_time" },
  },
  paths: {
    ...defaultState("paths"),
    filterTestAccounts: true,
    dateFrom: "all",
    paths: { includeEventTypes: ["$pageview", "custom_event"], startPoint: "/home", endPoint: "/buy", stepLimit: 8, ignoreQuery: true },
  },
  stickiness: {
    ...defaultState("stickiness"),
    filterTestAccounts: true,
    series: [
      { event: "$pageview", math: "total", math_property: "", custom_name: "", properties: [] },
      { event: "buy", math: "total", math_property: "", custom_name: "Buyers", properties: [] },
    ],
    interval: "week",
    stickiness: { computedAs: "cumulative" },
  },
  lifecycle: { ...defaultState("lifecycle"), filterTestAccounts: true, series: [{ event: "buy", math: "total", math_property: "", custom_name: "", properties: [] }], interval: "month" },
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
    expect(state?.properties).toEqual({ type: "AND", values: [{ type: "OR", values: [{ type: "event", key: "x", operator: "exact", value: "1" }] }] });
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
      properties: { type: "AND", values: [{ type: "AND", values: [{ type: "event", key: " ", operator: "exact", value: "" }] }] },
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

  it("names an unfinished filter by its group once there are two groups", () => {
    const done = { type: "event" as const, key: "$browser", operator: "exact" as const, value: "Firefox" };
    const unfinished = { type: "cohort" as const, key: "id", operator: "in" as const, value: "" };
    const state: EditorState = { ...STATES.trends, properties: { type: "OR", values: [{ type: "AND", values: [done] }, { type: "OR", values: [done, unfinished] }] } };
    expect(problemsOf(state)).toEqual(["Group 2 filter 2 needs a cohort."]);
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
    const edited = nodeFromState({ ...state, formula: "", breakdown: { type: "person", value: "plan" }, series: [newSeriesFor("new")] }, stored);
    expect(edited).toEqual({
      kind: "InsightVizNode",
      full: true,
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "new", name: "new", math: "total" }],
        // Interval and dates were not touched: still absent, as stored.
        compareFilter: { compare: true },
        breakdownFilter: { breakdown: "plan", breakdown_type: "person", breakdown_limit: 5 },
        // The formula was removed in the editor: it stays removed.
        trendsFilter: { display: "ActionsPie", showLegend: true },
      },
    });
    expect(stateFromNode(edited)).toEqual(stateFromNode(nodeFromState({ ...state, formula: "", breakdown: { type: "person", value: "plan" }, series: [newSeriesFor("new")] })));
    const other = nodeFromState(defaultState("funnels"));
    expect(nodeFromState(defaultState("funnels"), stored)).toEqual(other);
    expect(nodeFromState(defaultState("funnels"), null)).toEqual(other);
  });
});

describe("a stored insight opened and saved", () => {
  const A = { key: "plan", value: ["pro"], operator: "exact", type: "person" };
  const B = { key: "$browser", value: "Firefox", operator: "exact", type: "event" };
  const C = { key: "amount", value: 10, operator: "gt", type: "event" };
  const ELEMENT = { key: "selector", value: "button.buy", operator: "exact", type: "element" };
  const HOGQL = { key: "properties.$os = 'Mac'", type: "hogql" };
  const NEGATED = { key: "plan", value: ["free"], operator: "exact", type: "person", negation: true };
  const trend = (extra: Record<string, unknown>) => ({ kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "buy", math: "total" }], ...extra } });
  const propertiesOf = (node: unknown) => (node as { source: { properties?: unknown } }).source.properties;

  it("keeps an OR of two AND groups as it is, and edits a group without flattening the rest", () => {
    const properties = { type: "OR", values: [{ type: "AND", values: [A, B] }, { type: "AND", values: [C] }] };
    const stored = trend({ properties });
    const state = stateFromNode(stored)!;
    expect(state.properties).toEqual({
      type: "OR",
      values: [
        { type: "AND", values: [{ type: "person", key: "plan", operator: "exact", value: "pro" }, { type: "event", key: "$browser", operator: "exact", value: "Firefox" }] },
        { type: "AND", values: [{ type: "event", key: "amount", operator: "gt", value: "10" }] },
      ],
    });
    expect(nodeFromState(state, stored)).toEqual(stored);
    expect(nodeFromState({ ...state, dateFrom: "-30d" }, stored)).toEqual(trend({ properties, dateRange: { date_from: "-30d" } }));
    // The second group's filters become "any": the first group is written the same, the outer OR stays.
    const second = state.properties.values[1]!;
    const edited = nodeFromState({ ...state, properties: { ...state.properties, values: [state.properties.values[0]!, { ...second, type: "OR" }] } }, stored);
    expect(propertiesOf(edited)).toEqual({ type: "OR", values: [{ type: "AND", values: [A, B] }, { type: "OR", values: [C] }] });
    // Built in the editor without a stored node: the same two-level shape, in the editor's spelling.
    expect(sourceFromState(state).properties).toEqual({ type: "OR", values: [{ type: "AND", values: [A, { ...B, value: ["Firefox"] }] }, { type: "AND", values: [C] }] });
    const parsed = trendsQuerySchema.safeParse(sourceFromState(state));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it("reads a flat list as one AND group and writes it flat while it is one; a second group makes it two-level", () => {
    const stored = trend({ properties: [A, B] });
    const state = stateFromNode(stored)!;
    expect(state.properties.type).toBe("AND");
    expect(state.properties.values).toHaveLength(1);
    expect(propertiesOf(nodeFromState(state, stored))).toEqual([A, B]);
    // An edit inside the one group: still a flat list.
    const one = state.properties.values[0]!;
    const edited = nodeFromState({ ...state, properties: { ...state.properties, values: [{ ...one, values: one.values.slice(0, 1) }] } }, stored);
    expect(propertiesOf(edited)).toEqual([A]);
    const two = nodeFromState({ ...state, properties: { type: "OR", values: [one, { type: "AND", values: [{ type: "event", key: "amount", operator: "gt", value: "10" }] }] } }, stored);
    expect(propertiesOf(two)).toEqual({ type: "OR", values: [{ type: "AND", values: [A, B] }, { type: "AND", values: [C] }] });
    // Every filter removed: the field goes, empty groups are not written.
    expect(propertiesOf(nodeFromState({ ...state, properties: { type: "AND", values: [{ type: "OR", values: [] }] } }, stored))).toBeUndefined();
  });

  it("keeps filters of types it does not edit where they were, read-only, until removed", () => {
    const properties = { type: "AND", values: [{ type: "OR", values: [ELEMENT, B] }, { type: "AND", values: [HOGQL, NEGATED] }] };
    const stored = trend({ properties, series: [{ kind: "EventsNode", event: "buy", properties: [C, { key: "$session_duration", value: 30, operator: "gt", type: "session" }] }] });
    const state = stateFromNode(stored)!;
    expect(state.properties.values.map((group) => group.values.map((item) => item.type))).toEqual([
      ["kept", "event"],
      ["kept", "kept"],
    ]);
    expect(state.series[0]!.properties.map((item) => item.type)).toEqual(["event", "kept"]);
    expect(nodeFromState(state, stored)).toEqual(stored);
    // An edit beside them writes them back unchanged, in place.
    const [first, second] = state.properties.values;
    const edited = nodeFromState({ ...state, dateFrom: "-90d", properties: { ...state.properties, values: [{ ...first!, values: [first!.values[0]!, newFilterOf("amount")] }, second!] } }, stored);
    expect(propertiesOf(edited)).toEqual({ type: "AND", values: [{ type: "OR", values: [ELEMENT, C] }, { type: "AND", values: [HOGQL, NEGATED] }] });
    const seriesEdited = nodeFromState({ ...state, series: [{ ...state.series[0]!, custom_name: "Buys" }] }, stored);
    expect((seriesEdited.source as { series: unknown[] }).series).toEqual([
      { kind: "EventsNode", event: "buy", name: "buy", math: "total", custom_name: "Buys", properties: [C, { key: "$session_duration", value: 30, operator: "gt", type: "session" }] },
    ]);
    // Removed: gone.
    const removed = nodeFromState({ ...state, properties: { ...state.properties, values: [{ ...first!, values: [first!.values[1]!] }, { ...second!, values: [] }] } }, stored);
    expect(propertiesOf(removed)).toEqual({ type: "AND", values: [{ type: "OR", values: [B] }] });
    // They do not stop a save (the server judges them when the query runs).
    expect(problemsOf(state)).toEqual([]);
  });

  it("keeps a group nested deeper than two levels whole, and says how many conditions it holds", () => {
    const deep = { type: "OR", values: [A, { type: "AND", values: [B, C] }] };
    const properties = { type: "AND", values: [{ type: "AND", values: [deep, C] }, { type: "OR", values: [A] }] };
    const stored = trend({ properties });
    const state = stateFromNode(stored)!;
    expect(state.properties.values[0]!.values[0]).toEqual({ type: "kept", node: deep });
    expect(describeKept(deep)).toBe("3 nested conditions (OR), edit through the API");
    expect(describeKept(HOGQL)).toBe("hogql · properties.$os = 'Mac'");
    expect(describeKept(NEGATED)).toBe('person · plan · exact · ["free"] · negation: true');
    const edited = nodeFromState({ ...state, properties: { ...state.properties, type: "OR" } }, stored);
    expect(propertiesOf(edited)).toEqual({ ...properties, type: "OR" });
    // A flat list holding a group keeps the group inside the one AND group.
    const flat = trend({ properties: [A, deep] });
    const flatState = stateFromNode(flat)!;
    expect(flatState.properties.values[0]!.values[1]).toEqual({ type: "kept", node: deep });
    expect(nodeFromState({ ...flatState, interval: "week" }, flat)).toEqual(trend({ properties: [A, deep], interval: "week" }));
  });

  it("keeps every node and series field it has no control for, and removes what was cleared", () => {
    const stored = {
      kind: "InsightVizNode",
      showHeader: true,
      source: {
        kind: "TrendsQuery",
        series: [
          { kind: "EventsNode", event: "buy", name: "buy", math: "sum", math_property: "amount", custom_name: "Revenue", math_group_type_index: 0, fixedProperties: [A] },
          { kind: "EventsNode", event: "sign up", math: "dau" },
        ],
        dateRange: { date_from: "-14d", explicitDate: true },
        compareFilter: { compare: true, compare_to: "-1y" },
        breakdownFilter: { breakdown: ["$browser", "$os"], breakdown_type: "event", breakdown_limit: 5, breakdown_hide_other_aggregation: true },
        trendsFilter: { display: "ActionsBar", formulaNodes: [{ formula: "A/B", custom_name: "Ratio" }], showLegend: true, aggregationAxisFormat: "percentage" },
        filterTestAccounts: true,
        samplingFactor: 0.1,
        properties: [A],
      },
    };
    const state = stateFromNode(stored)!;
    expect(nodeFromState(state, stored)).toEqual(stored);
    expect(encodeQuery(nodeFromState(state, stored))).toBe(encodeQuery(stored));
    // The two series swap places: each keeps its own fields.
    const swapped = nodeFromState({ ...state, series: [state.series[1]!, state.series[0]!] }, stored);
    expect((swapped.source as { series: unknown[] }).series).toEqual([stored.source.series[1], stored.source.series[0]]);
    // The first series' custom name, the formula, the filters and the dates are cleared.
    const cleared = nodeFromState({ ...state, series: [{ ...state.series[0]!, custom_name: "" }, state.series[1]!], formula: "", properties: { type: "AND", values: [] }, dateFrom: "" }, stored);
    expect(cleared.source).toEqual({

      ...stored.source,
      series: [{ kind: "EventsNode", math_group_type_index: 0, fixedProperties: [A], event: "buy", name: "buy", math: "sum", math_property: "amount" }, stored.source.series[1]],
      dateRange: { explicitDate: true, date_from: null },
      trendsFilter: { display: "ActionsBar", showLegend: true, aggregationAxisFormat: "percentage" },
      properties: undefined,
    });
    expect("properties" in (cleared.source as object)).toBe(false);
    expect(cleared.showHeader).toBe(true);
    // A new breakdown replaces both of the stored ones and keeps the limit.
    const broken = nodeFromState({ ...state, breakdown: { type: "person", value: "plan" } }, stored);
    expect((broken.source as Record<string, unknown>).breakdownFilter).toEqual({ breakdown: "plan", breakdown_type: "person", breakdown_limit: 5, breakdown_hide_other_aggregation: true });
  });

  it("writes filterTestAccounts for every kind when on, keeps a stored false untouched, and keeps it across a change of kind", () => {
    for (const kind of EDITOR_KINDS) {
      expect(sourceFromState({ ...defaultState(kind), filterTestAccounts: true }).filterTestAccounts).toBe(true);
      expect("filterTestAccounts" in sourceFromState(defaultState(kind))).toBe(false);
    }
    const stored = { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "buy", name: "buy", math: "total" }], filterTestAccounts: false } };
    const state = stateFromNode(stored)!;
    expect(state.filterTestAccounts).toBe(false);
    expect(nodeFromState({ ...state, interval: "week" }, stored).source).toMatchObject({ filterTestAccounts: false, interval: "week" });
    const on = nodeFromState({ ...state, filterTestAccounts: true }, stored);
    expect((on.source as Record<string, unknown>).filterTestAccounts).toBe(true);
    // Turned off again: the stored node comes back as it was
    expect(nodeFromState({ ...stateFromNode(on)!, filterTestAccounts: false }, stored)).toEqual(stored);
    // Off from a stored true: the field goes (absent is off, as PostHog reads it)
    const storedOn = { ...stored, source: { ...stored.source, filterTestAccounts: true } };
    expect("filterTestAccounts" in (nodeFromState({ ...stateFromNode(storedOn)!, filterTestAccounts: false }, storedOn).source as object)).toBe(false);
    expect(sourceFromState({ ...stateFromNode(storedOn)!, kind: "retention" }).filterTestAccounts).toBe(true);
  });

  it("keeps a stored math on an edited series of a kind whose form shows no math", () => {
    const stored = {
      kind: "InsightVizNode",
      source: { kind: "StickinessQuery", series: [{ kind: "EventsNode", event: "buy", name: "buy", math: "dau" }], interval: "day" },
    };
    const state = stateFromNode(stored)!;
    expect(nodeFromState(state, stored)).toEqual(stored);
    // The event is edited: the series is the editor's now, and still counts as stored.
    const edited = nodeFromState({ ...state, series: [{ ...state.series[0]!, event: "sell" }] }, stored);
    expect((edited.source as { series: unknown[] }).series).toEqual([{ kind: "EventsNode", event: "sell", name: "sell", math: "dau" }]);
  });

  it("sameJson ignores key order and undefined fields, and nothing else", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1, d: undefined })).toBe(true);
    expect(sameJson({ a: 1 }, { a: "1" })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: null }, {})).toBe(false);
  });
});

function newFilterOf(key: string): FilterItem {
  return { type: "event", key, operator: "gt", value: "10" };
}

function newSeriesFor(event: string) {
  return { event, math: "total" as const, math_property: "", custom_name: "", properties: [] };
}
