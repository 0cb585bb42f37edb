/**
 * The cohort form's state and how it maps to PostHog's cohort JSON, both ways. Pure: the
 * form edits a Draft, `toCohortInput` builds what `cohortCreateBody` / `cohortUpdateBody`
 * (the REST and tRPC contract) check, and `draftOf` reads a saved cohort back.
 */
import type { CohortCreateInput } from "@/server/cohorts/contract";
import type { CohortResource } from "@/server/cohorts/present";
import { OPERATOR_LABELS as EVENT_OPERATOR_LABELS } from "@/components/events/filter-params";
import { PROPERTY_OPERATORS, type PropertyOperator } from "@/server/properties/contract";
import { isObject } from "@/server/input/json-object";

export const OPERATORS = PROPERTY_OPERATORS;
export const OPERATOR_LABELS: Record<PropertyOperator, string> = EVENT_OPERATOR_LABELS;
export const VALUELESS = new Set<string>(["is_set", "is_not_set"]);
export const LISTED = new Set<string>(["exact", "is_not"]);

export type ConditionKind = "person" | "cohort" | "behavioral";
export type CountOperator = "gte" | "exact" | "lte";
export const COUNT_LABELS: Record<CountOperator, string> = { gte: "at least", exact: "exactly", lte: "at most" };

let nextId = 0;
const rowId = () => ++nextId;

export interface ConditionDraft {
  id: number;
  kind: ConditionKind;
  /** "Not": the condition must not hold. */
  negation: boolean;
  key: string;
  operator: PropertyOperator;
  value: string;
  /** The nested cohort's id, as text ("" until chosen). */
  cohortId: string;
  event: string;
  countOperator: CountOperator;
  count: string;
  days: string;
}

export interface GroupDraft {
  id: number;
  type: "AND" | "OR";
  conditions: ConditionDraft[];
}

export interface CohortDraft {
  name: string;
  description: string;
  isStatic: boolean;
  /** How the groups combine. */
  type: "AND" | "OR";
  groups: GroupDraft[];
}

export const newCondition = (kind: ConditionKind = "person"): ConditionDraft => ({
  id: rowId(),
  kind,
  negation: false,
  key: "",
  operator: "exact",
  value: "",
  cohortId: "",
  event: "",
  countOperator: "gte",
  count: "1",
  days: "30",
});
export const newGroup = (): GroupDraft => ({ id: rowId(), type: "AND", conditions: [newCondition()] });

export const emptyDraft = (): CohortDraft => ({ name: "", description: "", isStatic: false, type: "OR", groups: [newGroup()] });

function valueOf(condition: ConditionDraft): string | string[] | undefined {
  if (VALUELESS.has(condition.operator)) return undefined;
  if (LISTED.has(condition.operator)) {
    return condition.value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
  }
  return condition.value;
}

/** A number field: the number, or the text as typed so the contract reports the field. */
function numberOf(text: string): number | string {
  const number = Number(text);
  return text.trim() !== "" && Number.isFinite(number) ? number : text;
}

function leafOf(condition: ConditionDraft): Record<string, unknown> {
  switch (condition.kind) {
    case "cohort":
      return { type: "cohort", key: "id", value: numberOf(condition.cohortId), negation: condition.negation };
    case "behavioral": {
      const once = condition.countOperator === "gte" && condition.count.trim() === "1";
      return {
        type: "behavioral",
        key: condition.event.trim(),
        value: once ? "performed_event" : "performed_event_multiple",
        event_type: "events",
        time_value: numberOf(condition.days),
        time_interval: "day",
        ...(once ? {} : { operator: condition.countOperator, operator_value: numberOf(condition.count) }),
        negation: condition.negation,
      };
    }
    default: {
      const value = valueOf(condition);
      return { type: "person", key: condition.key.trim(), operator: condition.operator, ...(value === undefined ? {} : { value }), negation: condition.negation };
    }
  }
}

/** The create/update body for a draft (a static cohort sends no filters). */
export function toCohortInput(draft: CohortDraft): CohortCreateInput {
  return {
    name: draft.name.trim(),
    description: draft.description,
    is_static: draft.isStatic,
    ...(draft.isStatic
      ? {}
      : { filters: { properties: { type: draft.type, values: draft.groups.map((group) => ({ type: group.type, values: group.conditions.map(leafOf) })) } } }),
  };
}

function conditionOf(leaf: Record<string, unknown>): ConditionDraft {
  const base = newCondition();
  const negation = leaf.negation === true;
  if (leaf.type === "cohort") {
    // `not_in` reads as "not in" (the same set as negation).
    return { ...base, kind: "cohort", cohortId: String(leaf.value ?? ""), negation: negation !== (leaf.operator === "not_in") };
  }
  if (leaf.type === "behavioral") {
    const multiple = leaf.value === "performed_event_multiple";
    const operator = leaf.operator === "exact" || leaf.operator === "lte" ? leaf.operator : "gte";
    const days = leaf.time_interval === "week" ? Number(leaf.time_value) * 7 : leaf.time_interval === "month" ? Number(leaf.time_value) * 30 : leaf.time_interval === "year" ? Number(leaf.time_value) * 365 : Number(leaf.time_value ?? 30);
    return {
      ...base,
      kind: "behavioral",
      event: String(leaf.key ?? ""),
      countOperator: multiple ? operator : "gte",
      count: multiple ? String(leaf.operator_value ?? 1) : "1",
      days: String(Number.isFinite(days) ? days : 30),
      negation,
    };
  }
  const value = leaf.value;
  return {
    ...base,
    kind: "person",
    key: String(leaf.key ?? ""),
    operator: (PROPERTY_OPERATORS as readonly string[]).includes(String(leaf.operator)) ? (leaf.operator as PropertyOperator) : "exact",
    value: Array.isArray(value) ? value.map(String).join(", ") : value === undefined || value === null ? "" : String(value),
    negation,
  };
}

/** The form's draft of a saved cohort: top-level groups of leaves (a leaf at the top becomes a group of its own). */
export function draftOf(cohort: CohortResource): CohortDraft {
  const properties = isObject(cohort.filters) && isObject(cohort.filters.properties) ? cohort.filters.properties : null;
  const values = properties && Array.isArray(properties.values) ? properties.values.filter(isObject) : [];
  const groups: GroupDraft[] = values.map((node) =>
    node.type === "AND" || node.type === "OR"
      ? { id: rowId(), type: node.type, conditions: (Array.isArray(node.values) ? node.values : []).filter(isObject).filter((leaf) => leaf.type !== "AND" && leaf.type !== "OR").map(conditionOf) }
      : { id: rowId(), type: "AND", conditions: [conditionOf(node)] },
  );
  return {
    name: cohort.name,
    description: cohort.description,
    isStatic: cohort.is_static,
    type: properties?.type === "AND" ? "AND" : "OR",
    groups: cohort.is_static ? [newGroup()] : groups,
  };
}

/** What a dynamic cohort's definition says, in a line, for the list. */
export function cohortKindLabel(cohort: Pick<CohortResource, "cohort_type">): string {
  return cohort.cohort_type === "static" ? "Static" : cohort.cohort_type === "behavioral" ? "Behavioral" : "Dynamic";
}

/** Whether the form can show the whole definition (groups of leaves, two levels); deeper trees are shown as JSON instead. */
export function editableInForm(cohort: CohortResource): boolean {
  if (cohort.is_static) return true;
  const properties = isObject(cohort.filters) && isObject(cohort.filters.properties) ? cohort.filters.properties : null;
  if (!properties) return true;
  const values = Array.isArray(properties.values) ? properties.values : [];
  return values.every((node) => !isObject(node) || !Array.isArray(node.values) || node.values.every((leaf) => !isObject(leaf) || (leaf.type !== "AND" && leaf.type !== "OR")));
}
