/**
 * The insight editor's property filters and the PostHog JSON they stand for.
 *
 * An insight's own `properties` are PostHog's PropertyGroupFilter: an outer AND/OR over
 * groups, each group an AND/OR over filters (PropertyGroupFilters in PostHog's frontend). The
 * older flat list reads as one AND group and is written back flat while it still is one. A
 * series' `properties` stay a flat AND list, as in PostHog.
 *
 * What the editor cannot show as an editable row — a leaf of another type (element, hogql,
 * session, group, behavioral, …), one with fields or values the row has no control for, a
 * group nested deeper than two levels — is a `KeptFilter`: shown read-only, written back
 * exactly as it was, removable.
 */
import { PROPERTY_OPERATORS, type PropertyOperator } from "@/server/properties/contract";
import { isObject, isScalar, text, type Json } from "./json";

export const FILTER_TYPES = ["event", "person", "cohort"] as const;
export type FilterType = (typeof FILTER_TYPES)[number];
export const VALUELESS_OPERATORS: ReadonlySet<string> = new Set(["is_set", "is_not_set"]);
/** Operators whose value may list alternatives, comma-separated (PostHog sends a list). */
export const LISTED_OPERATORS: ReadonlySet<string> = new Set(["exact", "is_not"]);
const NUMERIC_OPERATORS: ReadonlySet<string> = new Set(["gt", "gte", "lt", "lte"]);

/** One condition of the shared builder; cohort filters use `value` for the cohort id and `operator` in/not_in. */
export interface FilterDraft {
  type: FilterType;
  key: string;
  operator: PropertyOperator | "in" | "not_in";
  value: string;
}

/** A leaf or nested group the editor shows read-only and writes back untouched. */
export interface KeptFilter {
  type: "kept";
  node: unknown;
}

export type FilterItem = FilterDraft | KeptFilter;
export type GroupType = "AND" | "OR";
export interface FilterGroup {
  type: GroupType;
  values: FilterItem[];
}
/** The insight's filters: `type` joins the groups. */
export interface FilterGroups {
  type: GroupType;
  values: FilterGroup[];
}

export const isKept = (item: FilterItem): item is KeptFilter => item.type === "kept";

export const newFilter = (type: FilterType = "event"): FilterDraft =>
  type === "cohort" ? { type, key: "id", operator: "in", value: "" } : { type, key: "", operator: "exact", value: "" };
/** PostHog's "Add filter group": an AND group with one empty filter. */
export const newGroup = (): FilterGroup => ({ type: "AND", values: [newFilter("event")] });
export const noGroups = (): FilterGroups => ({ type: "AND", values: [] });

export const isGroupNode = (value: unknown): value is { type: GroupType; values: unknown[] } =>
  isObject(value) && (value.type === "AND" || value.type === "OR") && Array.isArray(value.values);

// ---------------------------------------------------------------------------------------
// JSON → items

const LEAF_FIELDS: ReadonlySet<string> = new Set(["key", "value", "operator", "type"]);

/**
 * The editable row of a leaf, or null when a row would change it: another type, a field the
 * row has no control for (`negation: true`, `group_type_index`, …), an operator or value it
 * cannot show.
 */
function draftOf(node: Json): FilterDraft | null {
  const extra = Object.keys(node).filter((key) => !LEAF_FIELDS.has(key) && !(key === "negation" && !node.negation));
  if (extra.length) return null;
  if (node.type === "cohort") {
    const operator = node.operator ?? "in";
    if (node.key !== "id" || (operator !== "in" && operator !== "not_in")) return null;
    if (!(typeof node.value === "number" || (typeof node.value === "string" && /^\d{1,10}$/.test(node.value)))) return null;
    return { type: "cohort", key: "id", operator, value: String(node.value) };
  }
  if (node.type !== "event" && node.type !== "person") return null;
  const operator = node.operator ?? "exact";
  if (typeof node.key !== "string" || !(PROPERTY_OPERATORS as readonly unknown[]).includes(operator)) return null;
  const values = Array.isArray(node.value) ? node.value : node.value === undefined || node.value === null ? [] : [node.value];
  if (!values.every(isScalar)) return null;
  if (values.length > 1 && !LISTED_OPERATORS.has(operator as string)) return null;
  // A listed value holding a comma would split into two on the way back.
  if (values.length > 1 && values.some((value) => String(value).includes(","))) return null;
  return { type: node.type, key: node.key, operator: operator as PropertyOperator, value: values.map(text).join(", ") };
}

export function itemFromNode(node: unknown): FilterItem {
  return (isObject(node) && !isGroupNode(node) && draftOf(node)) || { type: "kept", node };
}

/** A flat list of filters (a series', or one group's): nested groups are kept as they are. */
export function itemsFromNode(node: unknown): FilterItem[] {
  if (node === null || node === undefined) return [];
  if (Array.isArray(node)) return node.map(itemFromNode);
  // An AND group is the same list; an OR group stays one kept entry so the list's AND does not swallow it.
  if (isGroupNode(node) && node.type === "AND") return node.values.map(itemFromNode);
  return [itemFromNode(node)];
}

/** PostHog's two-level groups from whatever `properties` holds (convertPropertiesToPropertyGroup, plus deeper trees kept). */
export function groupsFromNode(node: unknown): FilterGroups {
  if (node === null || node === undefined || (Array.isArray(node) && node.length === 0)) return noGroups();
  if (!isGroupNode(node)) return { type: "AND", values: [{ type: "AND", values: itemsFromNode(node) }] };
  if (!node.values.some(isGroupNode)) return { type: "AND", values: node.values.length ? [{ type: node.type, values: node.values.map(itemFromNode) }] : [] };
  return {
    type: node.type,
    values: node.values.map((value) => (isGroupNode(value) ? { type: value.type, values: value.values.map(itemFromNode) } : { type: "AND", values: [itemFromNode(value)] })),
  };
}

// ---------------------------------------------------------------------------------------
// Items → JSON

function filterNode(filter: FilterDraft): Json {
  if (filter.type === "cohort") {
    const id = /^\d{1,10}$/.test(filter.value) ? Number(filter.value) : filter.value;
    return { type: "cohort", key: "id", value: id, operator: filter.operator === "not_in" ? "not_in" : "in" };
  }
  const node: Json = { key: filter.key, operator: filter.operator, type: filter.type };
  if (VALUELESS_OPERATORS.has(filter.operator)) return node;
  if (LISTED_OPERATORS.has(filter.operator)) {
    node.value = filter.value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
  } else if (NUMERIC_OPERATORS.has(filter.operator) && filter.value.trim() !== "" && Number.isFinite(Number(filter.value))) {
    node.value = Number(filter.value);
  } else {
    node.value = filter.value;
  }
  return node;
}

export const itemNode = (item: FilterItem): unknown => (isKept(item) ? item.node : filterNode(item));

/** A series' list, or nothing when it is empty. */
export const itemsNode = (items: FilterItem[]): unknown[] | undefined => (items.length ? items.map(itemNode) : undefined);

/**
 * The insight's `properties`: nothing without filters, a flat list while they are one AND
 * group (PostHog's older form, so an insight saved without edits keeps its shape), else
 * PostHog's two-level groups. Empty groups are left out (an empty OR would match nothing).
 */
export function groupsNode(groups: FilterGroups): unknown {
  const kept = groups.values.filter((group) => group.values.length > 0);
  if (kept.length === 0) return undefined;
  if (kept.length === 1 && kept[0]!.type === "AND") return kept[0]!.values.map(itemNode);
  return { type: groups.type, values: kept.map((group) => ({ type: group.type, values: group.values.map(itemNode) })) };
}

// ---------------------------------------------------------------------------------------
// Read-only entries

/** How many leaves a group holds, however deep. */
function leavesIn(node: unknown): number {
  return isGroupNode(node) ? node.values.reduce<number>((sum, value) => sum + leavesIn(value), 0) : 1;
}

const shownValue = (value: unknown): string => {
  const textOf = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  return textOf.length > 60 ? `${textOf.slice(0, 60)}…` : textOf;
};

/** What a kept entry is, in words: "hogql · properties.$os = 'Mac' · exact · …", or a nested group's size. */
export function describeKept(node: unknown): string {
  if (isGroupNode(node)) {
    const count = leavesIn(node);
    return `${count} nested condition${count === 1 ? "" : "s"} (${node.type}), edit through the API`;
  }
  if (!isObject(node)) return `Unreadable filter ${shownValue(node)}`;
  const parts = [text(node.type) || "event", text(node.key) || "(no key)"];
  if (node.operator !== undefined && node.operator !== null) parts.push(text(node.operator) || shownValue(node.operator));
  if (node.value !== undefined && node.value !== null) parts.push(shownValue(node.value));
  const extra = Object.entries(node).filter(([key]) => !LEAF_FIELDS.has(key));
  for (const [key, value] of extra) parts.push(`${key}: ${shownValue(value)}`);
  return parts.join(" · ");
}
