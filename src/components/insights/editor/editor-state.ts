/**
 * The insight editor's state and the PostHog query node it stands for. The node is what
 * runs (tRPC `query.run`), what is saved and what the URL carries (`?q=`, lz-string); the
 * state is the form's view of it, shared across kinds so switching kind keeps the series,
 * filters and dates. `nodeFromState` and `stateFromNode` are inverse for every kind; given
 * the stored query, `nodeFromState` changes only what the form changed (stored-node.ts), and
 * filters the form cannot show are kept read-only (filter-groups.ts).
 *
 * Only client-safe contracts are imported (the shared node pieces, and the kinds whose
 * contracts are plain zod): trends, funnels and paths fields are checked by the server,
 * whose message the editor shows inline.
 */
import LZString from "lz-string";
import type { z } from "zod";
import { breakdownFilterSchema, dateRangeSchema, propertiesField } from "@/server/analytics/nodes";
import type { Interval } from "@/server/analytics/date-range";
import { queryNodeSchema, runnableNode } from "@/server/query/contract";
import { lifecycleQuerySchema } from "@/server/lifecycle/contract";
import { retentionQuerySchema } from "@/server/retention/contract";
import { stickinessQuerySchema } from "@/server/stickiness/contract";
import { PROPERTY_MATHS } from "@/server/db/events/trend/query";
import { isObject, text, type Json } from "./json";
import { groupsFromNode, groupsNode, isKept, itemsFromNode, itemsNode, noGroups, type FilterGroups, type FilterItem, type FilterType } from "./filter-groups";
import { overStored } from "./stored-node";

export const EDITOR_KINDS = ["trends", "funnels", "retention", "paths", "stickiness", "lifecycle"] as const;
export type EditorKind = (typeof EDITOR_KINDS)[number];

export const KIND_LABELS: Record<EditorKind, string> = {
  trends: "Trends",
  funnels: "Funnels",
  retention: "Retention",
  paths: "Paths",
  stickiness: "Stickiness",
  lifecycle: "Lifecycle",
};

export const NODE_KINDS: Record<EditorKind, string> = {
  trends: "TrendsQuery",
  funnels: "FunnelsQuery",
  retention: "RetentionQuery",
  paths: "PathsQuery",
  stickiness: "StickinessQuery",
  lifecycle: "LifecycleQuery",
};

/** The kinds with series of events (retention and paths have their own event choices). */
export const SERIES_KINDS: ReadonlySet<EditorKind> = new Set(["trends", "funnels", "stickiness", "lifecycle"]);
/** The kinds that break down (retention and stickiness refuse a breakdown, paths and lifecycle have none). */
export const BREAKDOWN_KINDS: ReadonlySet<EditorKind> = new Set(["trends", "funnels"]);
/** The kinds with an interval. */
export const INTERVAL_KINDS: ReadonlySet<EditorKind> = new Set(["trends", "funnels", "stickiness", "lifecycle"]);

// The trends contract is server-side (formula parser, stores); these lists are checked against it in the unit test.
export const BASE_MATH_LABELS = {
  total: "Total count",
  dau: "Unique users",
  weekly_active: "Weekly active users",
  monthly_active: "Monthly active users",
  unique_session: "Unique sessions",
} as const;
export const PROPERTY_MATH_LABELS: Record<(typeof PROPERTY_MATHS)[number], string> = {
  sum: "Sum of property",
  avg: "Average of property",
  min: "Minimum of property",
  max: "Maximum of property",
  median: "Median of property",
  p75: "75th percentile of property",
  p90: "90th percentile of property",
  p95: "95th percentile of property",
  p99: "99th percentile of property",
};
export type SeriesMath = keyof typeof BASE_MATH_LABELS | (typeof PROPERTY_MATHS)[number];
export const MATH_LABELS: Record<SeriesMath, string> = { ...BASE_MATH_LABELS, ...PROPERTY_MATH_LABELS };
export const isPropertyMath = (math: string): boolean => (PROPERTY_MATHS as readonly string[]).includes(math);

export const DISPLAY_LABELS = {
  ActionsLineGraph: "Line chart",
  ActionsAreaGraph: "Area chart",
  ActionsBar: "Bar chart",
  ActionsStackedBar: "Stacked bar chart",
  ActionsUnstackedBar: "Grouped bar chart",
  ActionsLineGraphCumulative: "Cumulative line chart",
  BoldNumber: "Number",
  ActionsPie: "Pie chart",
  ActionsBarValue: "Bar chart (totals)",
  ActionsTable: "Table",
  WorldMap: "World map",
} as const;
export type Display = keyof typeof DISPLAY_LABELS;

export const INTERVAL_LABELS: Record<Interval, string> = { hour: "Hour", day: "Day", week: "Week", month: "Month" };

export { DATE_PRESETS, intervalForRange } from "../date-presets";

export const FUNNEL_ORDER_LABELS = { ordered: "Sequential", strict: "Strict order", unordered: "Any order" } as const;
export const FUNNEL_VIZ_LABELS = { steps: "Conversion steps", time_to_convert: "Time to convert", trends: "Conversion trends" } as const;
export const WINDOW_UNIT_LABELS = { second: "seconds", minute: "minutes", hour: "hours", day: "days", week: "weeks", month: "months" } as const;
export const RETENTION_PERIOD_LABELS = { Hour: "Hourly", Day: "Daily", Week: "Weekly", Month: "Monthly" } as const;
export const RETENTION_TYPE_LABELS = { retention_recurring: "Recurring (any time)", retention_first_time: "First time" } as const;
export const PATH_TYPE_LABELS = { $pageview: "Page views", $screen: "Screen views", custom_event: "Custom events" } as const;
export const STICKINESS_LABELS = { non_cumulative: "Exactly N intervals", cumulative: "N or more intervals (cumulative)" } as const;

export { FILTER_TYPES, LISTED_OPERATORS, newFilter, newGroup, VALUELESS_OPERATORS } from "./filter-groups";
export type { FilterDraft, FilterGroup, FilterGroups, FilterItem, FilterType, GroupType, KeptFilter } from "./filter-groups";

export interface SeriesDraft {
  /** null: all events. */
  event: string | null;
  math: SeriesMath;
  math_property: string;
  custom_name: string;
  /** A flat AND list, as PostHog's series filters are. */
  properties: FilterItem[];
  /** The stored series' fields the editor has no control for, written back as they were. */
  extra?: Record<string, unknown>;
}

export interface EditorState {
  kind: EditorKind;
  series: SeriesDraft[];
  properties: FilterGroups;
  breakdown: { type: FilterType; value: string } | null;
  dateFrom: string;
  /** "" : up to now. */
  dateTo: string;
  interval: Interval;
  display: Display;
  formula: string;
  funnel: {
    orderType: keyof typeof FUNNEL_ORDER_LABELS;
    vizType: keyof typeof FUNNEL_VIZ_LABELS;
    windowInterval: number;
    windowUnit: keyof typeof WINDOW_UNIT_LABELS;
    exclusions: { event: string | null; from: number; to: number }[];
  };
  retention: {
    target: string | null;
    returning: string | null;
    period: keyof typeof RETENTION_PERIOD_LABELS;
    totalIntervals: number;
    retentionType: keyof typeof RETENTION_TYPE_LABELS;
  };
  /** ignoreQuery: one step for `/page?utm=…` and `/page` (a cleaning rule, PATH_QUERY_RULE); on for new insights. */
  paths: { includeEventTypes: (keyof typeof PATH_TYPE_LABELS)[]; startPoint: string; endPoint: string; stepLimit: number; ignoreQuery: boolean };
  stickiness: { computedAs: keyof typeof STICKINESS_LABELS };
  /** PostHog's "Filter out internal and test users": the project's test account filters hold (every kind). */
  filterTestAccounts: boolean;
}

/** PostHog's localPathCleaningFilters rule that drops a URL's query string and fragment (and a slash before them). */
export const PATH_QUERY_RULE = { regex: "/?[?#].*$", alias: "" } as const;

export const newSeries = (event: string | null = "$pageview"): SeriesDraft => ({ event, math: "total", math_property: "", custom_name: "", properties: [] });

export function defaultState(kind: EditorKind = "trends"): EditorState {
  return {
    kind,
    series: kind === "funnels" ? [newSeries("$pageview"), newSeries(null)] : [newSeries("$pageview")],
    properties: noGroups(),
    breakdown: null,
    dateFrom: "-7d",
    dateTo: "",
    interval: "day",
    display: "ActionsLineGraph",
    formula: "",
    funnel: { orderType: "ordered", vizType: "steps", windowInterval: 14, windowUnit: "day", exclusions: [] },
    retention: { target: "$pageview", returning: "$pageview", period: "Day", totalIntervals: 7, retentionType: "retention_recurring" },
    paths: { includeEventTypes: ["$pageview"], startPoint: "", endPoint: "", stepLimit: 5, ignoreQuery: true },
    stickiness: { computedAs: "non_cumulative" },
    filterTestAccounts: false,
  };
}

// ---------------------------------------------------------------------------------------
// State → node

/** The series fields the editor writes; the others of a stored series are its `extra`. */
const SERIES_FIELDS: ReadonlySet<string> = new Set(["kind", "event", "name", "math", "math_property", "custom_name", "properties"]);
/** The maths, which the editor shows and writes for trends only: other kinds keep a stored one as `extra`. */
const MATH_FIELDS: ReadonlySet<string> = new Set(["math", "math_property"]);

function eventsNode(series: SeriesDraft, withMath: boolean): Json {
  const node: Json = { kind: "EventsNode", ...series.extra, event: series.event, name: series.event ?? "All events" };
  if (withMath) {
    node.math = series.math;
    if (isPropertyMath(series.math)) node.math_property = series.math_property;
  }
  if (series.custom_name) node.custom_name = series.custom_name;
  const properties = itemsNode(series.properties);
  if (properties) node.properties = properties;
  return node;
}

function breakdownNode(breakdown: EditorState["breakdown"]): Json | undefined {
  if (!breakdown) return undefined;
  if (breakdown.type === "cohort") return { breakdown: [/^\d{1,10}$/.test(breakdown.value) ? Number(breakdown.value) : breakdown.value], breakdown_type: "cohort" };
  return { breakdown: breakdown.value, breakdown_type: breakdown.type };
}

/** The kind's node (a TrendsQuery, FunnelsQuery, …) as the query API takes it. */
export function sourceFromState(state: EditorState): Json {
  const node: Json = { kind: NODE_KINDS[state.kind] };
  const { kind } = state;
  if (SERIES_KINDS.has(kind)) {
    const series = kind === "lifecycle" ? state.series.slice(0, 1) : state.series;
    node.series = series.map((one) => eventsNode(one, kind === "trends"));
  }
  if (INTERVAL_KINDS.has(kind)) node.interval = state.interval;
  node.dateRange = { date_from: state.dateFrom || null, date_to: state.dateTo || null };
  const properties = groupsNode(state.properties);
  if (properties) node.properties = properties;
  // Off is the field's absence: a stored `false` is kept as it was (stored-node.ts)
  if (state.filterTestAccounts) node.filterTestAccounts = true;
  if (BREAKDOWN_KINDS.has(kind)) {
    const breakdown = breakdownNode(state.breakdown);
    if (breakdown) node.breakdownFilter = breakdown;
  }
  if (kind === "trends") {
    node.trendsFilter = { display: state.display, ...(state.formula.trim() ? { formula: state.formula.trim() } : {}) };
  } else if (kind === "funnels") {
    const { funnel } = state;
    node.funnelsFilter = {
      funnelOrderType: funnel.orderType,
      funnelVizType: funnel.vizType,
      funnelWindowInterval: funnel.windowInterval,
      funnelWindowIntervalUnit: funnel.windowUnit,
      ...(funnel.exclusions.length
        ? {
            exclusions: funnel.exclusions.map((exclusion) => ({
              kind: "EventsNode",
              event: exclusion.event,
              name: exclusion.event ?? "All events",
              funnelFromStep: exclusion.from,
              funnelToStep: exclusion.to,
            })),
          }
        : {}),
    };
  } else if (kind === "retention") {
    const { retention } = state;
    const entity = (event: string | null) => ({ id: event, type: "events", name: event ?? "All events" });
    node.retentionFilter = {
      targetEntity: entity(retention.target),
      returningEntity: entity(retention.returning),
      period: retention.period,
      totalIntervals: retention.totalIntervals,
      retentionType: retention.retentionType,
    };
  } else if (kind === "paths") {
    const { paths } = state;
    node.pathsFilter = {
      includeEventTypes: paths.includeEventTypes,
      stepLimit: paths.stepLimit,
      ...(paths.startPoint ? { startPoint: paths.startPoint } : {}),
      ...(paths.endPoint ? { endPoint: paths.endPoint } : {}),
      ...(paths.ignoreQuery ? { localPathCleaningFilters: [PATH_QUERY_RULE] } : {}),
    };
  } else if (kind === "stickiness") {
    node.stickinessFilter = { computedAs: state.stickiness.computedAs };
  }
  return node;
}

/**
 * The query an insight stores: PostHog's InsightVizNode around the kind's node. Given the
 * stored query the editor was opened on, what the form did not change is kept from it as it
 * was (stored-node.ts); a query of another kind keeps nothing.
 */
export function nodeFromState(state: EditorState, stored?: unknown): Json {
  const source = sourceFromState(state);
  const runnable = stored === undefined || stored === null ? null : runnableNode(stored);
  const read = runnable ? stateFromNode(stored) : null;
  if (!runnable || !read || read.kind !== state.kind) return { kind: "InsightVizNode", source };
  const merged = overStored(source, sourceFromState(read), runnable.node);
  return runnable.path.length && isObject(stored) ? { ...stored, source: merged } : { kind: "InsightVizNode", source: merged };
}

// ---------------------------------------------------------------------------------------
// Node → state

const pick = <T extends string>(value: unknown, choices: Record<T, unknown>, fallback: T): T => (typeof value === "string" && value in choices ? (value as T) : fallback);
const eventOf = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : null);

function seriesFromNode(node: unknown, showsMath: boolean): SeriesDraft {
  const one = isObject(node) ? node : {};
  const series: SeriesDraft = {
    event: eventOf(one.event),
    math: pick(one.math, MATH_LABELS, "total"),
    math_property: text(one.math_property),
    custom_name: text(one.custom_name),
    properties: itemsFromNode(one.properties),
  };
  const extra = Object.fromEntries(Object.entries(one).filter(([key]) => !SERIES_FIELDS.has(key) || (!showsMath && MATH_FIELDS.has(key))));
  if (Object.keys(extra).length) series.extra = extra;
  return series;
}

const KIND_OF_NODE: Record<string, EditorKind> = Object.fromEntries(Object.entries(NODE_KINDS).map(([kind, node]) => [node, kind as EditorKind]));

/** The editor's state for a stored or linked query; null when it is no insight kind the editor builds. */
export function stateFromNode(query: unknown): EditorState | null {
  const runnable = runnableNode(query);
  if (!runnable) return null;
  const node = runnable.node;
  const kind = typeof node.kind === "string" ? KIND_OF_NODE[node.kind] : undefined;
  if (!kind) return null;
  const state = defaultState(kind);
  if (SERIES_KINDS.has(kind) && Array.isArray(node.series)) state.series = node.series.map((one) => seriesFromNode(one, kind === "trends"));
  const interval = node.interval;
  if (typeof interval === "string" && interval in INTERVAL_LABELS) state.interval = interval as Interval;
  const dateRange = isObject(node.dateRange) ? node.dateRange : {};
  state.dateFrom = text(dateRange.date_from);
  state.dateTo = text(dateRange.date_to);
  state.properties = groupsFromNode(node.properties);
  state.filterTestAccounts = node.filterTestAccounts === true;
  const breakdown = isObject(node.breakdownFilter) ? node.breakdownFilter : null;
  if (breakdown && breakdown.breakdown !== null && breakdown.breakdown !== undefined && breakdown.breakdown !== "") {
    const type = pick<FilterType>(breakdown.breakdown_type, { event: 1, person: 1, cohort: 1 }, "event");
    const value = Array.isArray(breakdown.breakdown) ? text(breakdown.breakdown[0]) : text(breakdown.breakdown);
    state.breakdown = { type, value };
  }
  if (kind === "trends") {
    const filter = isObject(node.trendsFilter) ? node.trendsFilter : {};
    state.display = pick(filter.display, DISPLAY_LABELS, "ActionsLineGraph");
    const formulas = Array.isArray(filter.formulaNodes) && isObject(filter.formulaNodes[0]) ? filter.formulaNodes[0].formula : Array.isArray(filter.formulas) ? filter.formulas[0] : filter.formula;
    state.formula = text(formulas);
  } else if (kind === "funnels") {
    const filter = isObject(node.funnelsFilter) ? node.funnelsFilter : {};
    state.funnel = {
      orderType: pick(filter.funnelOrderType, FUNNEL_ORDER_LABELS, "ordered"),
      vizType: pick(filter.funnelVizType, FUNNEL_VIZ_LABELS, "steps"),
      windowInterval: typeof filter.funnelWindowInterval === "number" ? filter.funnelWindowInterval : 14,
      windowUnit: pick(filter.funnelWindowIntervalUnit, WINDOW_UNIT_LABELS, "day"),
      exclusions: (Array.isArray(filter.exclusions) ? filter.exclusions : []).filter(isObject).map((exclusion) => ({
        event: eventOf(exclusion.event),
        from: typeof exclusion.funnelFromStep === "number" ? exclusion.funnelFromStep : 0,
        to: typeof exclusion.funnelToStep === "number" ? exclusion.funnelToStep : 1,
      })),
    };
  } else if (kind === "retention") {
    const filter = isObject(node.retentionFilter) ? node.retentionFilter : {};
    const entityEvent = (entity: unknown) => (isObject(entity) ? eventOf(entity.id) : "$pageview");
    state.retention = {
      target: entityEvent(filter.targetEntity),
      returning: entityEvent(filter.returningEntity),
      period: pick(filter.period, RETENTION_PERIOD_LABELS, "Day"),
      totalIntervals: typeof filter.totalIntervals === "number" ? filter.totalIntervals : 7,
      retentionType: pick(filter.retentionType, RETENTION_TYPE_LABELS, "retention_recurring"),
    };
  } else if (kind === "paths") {
    const filter = isObject(node.pathsFilter) ? node.pathsFilter : {};
    state.paths = {
      includeEventTypes: (Array.isArray(filter.includeEventTypes) ? filter.includeEventTypes : []).filter(
        (type): type is keyof typeof PATH_TYPE_LABELS => typeof type === "string" && type in PATH_TYPE_LABELS,
      ),
      startPoint: text(filter.startPoint),
      endPoint: text(filter.endPoint),
      stepLimit: typeof filter.stepLimit === "number" ? filter.stepLimit : 5,
      ignoreQuery: Array.isArray(filter.localPathCleaningFilters) && filter.localPathCleaningFilters.some((rule) => isObject(rule) && rule.regex === PATH_QUERY_RULE.regex),
    };
  } else if (kind === "stickiness") {
    const filter = isObject(node.stickinessFilter) ? node.stickinessFilter : {};
    state.stickiness = { computedAs: pick(filter.computedAs, STICKINESS_LABELS, "non_cumulative") };
  }
  return state;
}

// ---------------------------------------------------------------------------------------
// Checks before running

const issuesOf = (result: z.ZodSafeParseResult<unknown>, prefix: string): string[] =>
  result.success ? [] : result.error.issues.map((issue) => `${prefix}${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);

const withoutKept = (groups: FilterGroups): FilterGroups => ({
  ...groups,
  values: groups.values.map((group) => ({ ...group, values: group.values.filter((item) => !isKept(item)) })),
});

/**
 * What keeps the query from running, found in the browser: an unfinished filter or series,
 * and whatever the client-safe contracts refuse. The server checks the rest (its message is
 * shown the same way).
 */
export function problemsOf(state: EditorState): string[] {
  const problems: string[] = [];
  const checkFilters = (filters: FilterItem[], where: string) =>
    filters.forEach((filter, index) => {
      if (isKept(filter)) return;
      if (filter.type === "cohort" ? filter.value === "" : filter.key.trim() === "") {
        problems.push(`${where} filter ${index + 1} needs ${filter.type === "cohort" ? "a cohort" : "a property"}.`);
      }
    });
  const groups = state.properties.values;
  groups.forEach((group, index) => checkFilters(group.values, groups.length > 1 ? `Group ${index + 1}` : "Global"));
  if (SERIES_KINDS.has(state.kind)) {
    const series = state.kind === "lifecycle" ? state.series.slice(0, 1) : state.series;
    const noun = state.kind === "funnels" ? "Step" : "Series";
    if (series.length === 0) problems.push(state.kind === "funnels" ? "Add a step." : "Add a series.");
    series.forEach((one, index) => {
      if (state.kind === "trends" && isPropertyMath(one.math) && !one.math_property.trim()) {
        problems.push(`${noun} ${index + 1}: "${MATH_LABELS[one.math]}" needs a numeric property.`);
      }
      checkFilters(one.properties, `${noun} ${index + 1}`);
    });
  }
  if (BREAKDOWN_KINDS.has(state.kind) && state.breakdown && state.breakdown.value.trim() === "") {
    problems.push(state.breakdown.type === "cohort" ? "Choose a cohort to break down by." : "Choose a property to break down by.");
  }
  if (state.kind === "funnels") {
    state.funnel.exclusions.forEach((exclusion, index) => {
      if (exclusion.from >= exclusion.to) problems.push(`Exclusion ${index + 1}: its last step must come after its first.`);
    });
  }
  if (problems.length) return problems;

  const node = sourceFromState(state);
  problems.push(...issuesOf(queryNodeSchema.safeParse(node), ""));
  problems.push(...issuesOf(dateRangeSchema.safeParse(node.dateRange), "dateRange."));
  // Kept entries are the server's to judge (the chart shows its refusal): they must not stop a save.
  problems.push(...issuesOf(propertiesField.safeParse(groupsNode(withoutKept(state.properties))), "properties."));
  if (node.breakdownFilter) problems.push(...issuesOf(breakdownFilterSchema.safeParse(node.breakdownFilter), "breakdownFilter."));
  if (state.kind === "retention") problems.push(...issuesOf(retentionQuerySchema.safeParse(node), ""));
  if (state.kind === "stickiness") problems.push(...issuesOf(stickinessQuerySchema.safeParse(node), ""));
  if (state.kind === "lifecycle") problems.push(...issuesOf(lifecycleQuerySchema.safeParse(node), ""));
  return [...new Set(problems)];
}

// ---------------------------------------------------------------------------------------
// The URL

/** A linked query longer than this is not read: lz-string's decompression has no bound of its own. */
export const MAX_URL_QUERY = 8_000;

export const encodeQuery = (query: unknown): string => LZString.compressToEncodedURIComponent(JSON.stringify(query));

/** The query of a `?q=` parameter, or null when it is missing, too long or not ours. */
export function decodeQuery(param: string | null): unknown {
  if (!param || param.length > MAX_URL_QUERY) return null;
  try {
    const json = LZString.decompressFromEncodedURIComponent(param);
    return json ? (JSON.parse(json) as unknown) : null;
  } catch {
    return null;
  }
}
