/**
 * The flag form's state and how it maps to PostHog's flag JSON, both ways. Pure: the form
 * edits a Draft, `toFlagInput` builds what `createFlagInput` / `updateFlagInput` (the REST
 * and tRPC contract) check, and `draftOf` reads a saved flag back.
 */
import type { FlagResource } from "@/server/flags/present";
import type { CreateFlagInput } from "@/server/flags/contract";
import { OPERATOR_LABELS as EVENT_OPERATOR_LABELS } from "@/components/events/filter-params";
import { VALUELESS } from "@/server/events/contract";
import { FLAG_PROPERTY_OPERATORS, type FlagPropertyOperator } from "@/server/properties/flag-filters";

/** The events explorer's operator labels, and those of the operators only flags have. */
export const OPERATOR_LABELS: Record<FlagPropertyOperator, string> = {
  ...EVENT_OPERATOR_LABELS,
  starts_with: "starts with",
  not_starts_with: "does not start with",
  ends_with: "ends with",
  not_ends_with: "does not end with",
  semver_eq: "version =",
  semver_neq: "version ≠",
  semver_gt: "version >",
  semver_gte: "version ≥",
  semver_lt: "version <",
  semver_lte: "version ≤",
  semver_tilde: "version ~",
  semver_caret: "version ^",
  semver_wildcard: "version matches *",
};
export const OPERATORS = FLAG_PROPERTY_OPERATORS;

export { VALUELESS };
/** Operators whose value may list several alternatives (comma-separated in the form). */
export const LISTED = new Set<string>(["exact", "is_not"]);

let nextId = 0;
/** A stable React key for rows added in the form. */
export const rowId = () => ++nextId;

/** A cohort condition's operators (PostHog's), with the form's labels. */
export const COHORT_OPERATORS = ["in", "not_in"] as const;
export type CohortOperator = (typeof COHORT_OPERATORS)[number];
export const COHORT_OPERATOR_LABELS: Record<CohortOperator, string> = { in: "is in", not_in: "is not in" };

export interface PropertyDraft {
  id: number;
  /** A person-property filter, or membership of a cohort (`value` is then the cohort id). */
  type: "person" | "cohort";
  key: string;
  operator: FlagPropertyOperator | CohortOperator;
  value: string;
}

export interface ConditionDraft {
  id: number;
  properties: PropertyDraft[];
  /** 0–100, as text so the field can be cleared while typing. */
  rollout: string;
  /** Variant override; "" for none. */
  variant: string;
}

export interface VariantDraft {
  id: number;
  key: string;
  name: string;
  rollout: string;
}

export interface FlagDraft {
  key: string;
  name: string;
  active: boolean;
  ensureExperienceContinuity: boolean;
  tags: string;
  conditions: ConditionDraft[];
  multivariate: boolean;
  variants: VariantDraft[];
  /** JSON text by "true" or variant key; "" for no payload. */
  payloads: Record<string, string>;
}

export const newCondition = (rollout = "100"): ConditionDraft => ({ id: rowId(), properties: [], rollout, variant: "" });
export const newProperty = (): PropertyDraft => ({ id: rowId(), type: "person", key: "", operator: "exact", value: "" });
export const newCohortProperty = (): PropertyDraft => ({ id: rowId(), type: "cohort", key: "id", operator: "in", value: "" });
export const newVariant = (key: string, rollout: string): VariantDraft => ({ id: rowId(), key, name: "", rollout });

export const EMPTY_DRAFT: FlagDraft = {
  key: "",
  name: "",
  active: true,
  ensureExperienceContinuity: false,
  tags: "",
  // PostHog's new flag: one condition set without filters and no rollout limit — everyone (featureFlagLogic's NEW_FLAG).
  conditions: [newCondition("100")],
  multivariate: false,
  variants: [newVariant("control", "50"), newVariant("test", "50")],
  payloads: {},
};

function valueText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.map(valueText).join(", ");
  return String(value);
}

function valueOf(property: PropertyDraft): string | string[] | undefined {
  if (VALUELESS.has(property.operator as FlagPropertyOperator)) return undefined;
  if (LISTED.has(property.operator)) {
    return property.value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
  }
  return property.value;
}

/**
 * A percentage field: the number, or the text as typed so the contract reports the field
 * (an empty rollout must not become null, which PostHog reads as 100%).
 */
function percentageOf(text: string): number | string {
  const number = Number(text);
  return text.trim() !== "" && Number.isFinite(number) ? number : text;
}

/** The payload keys the form shows: "true" for a boolean flag, else each variant's key. */
export function payloadKeys(draft: FlagDraft): string[] {
  return draft.multivariate ? draft.variants.map((variant) => variant.key).filter((key) => key !== "") : ["true"];
}

/** The create/update body for a draft. Payload text that is not JSON is sent as is, so the contract reports it. */
export function toFlagInput(draft: FlagDraft): CreateFlagInput {
  const payloads: Record<string, unknown> = {};
  for (const key of payloadKeys(draft)) {
    const text = draft.payloads[key]?.trim();
    if (text) payloads[key] = text;
  }
  return {
    key: draft.key.trim(),
    name: draft.name,
    active: draft.active,
    ensure_experience_continuity: draft.ensureExperienceContinuity,
    tags: draft.tags
      .split(",")
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ""),
    filters: {
      groups: draft.conditions.map((condition) => ({
        properties: condition.properties.map((property) =>
          property.type === "cohort"
            ? // An unchosen cohort is sent as null: the contract names the field.
              { key: "id", operator: property.operator, value: property.value === "" ? null : Number(property.value), type: "cohort" as const }
            : { key: property.key.trim(), operator: property.operator, value: valueOf(property), type: "person" as const },
        ),
        rollout_percentage: percentageOf(condition.rollout) as number,
        variant: draft.multivariate && condition.variant ? condition.variant : null,
      })),
      multivariate: draft.multivariate
        ? { variants: draft.variants.map((variant) => ({ key: variant.key.trim(), name: variant.name, rollout_percentage: percentageOf(variant.rollout) as number })) }
        : null,
      payloads,
    },
  };
}

/** A saved flag as a draft. Conditions on other than person properties are kept out of reach of this form (see `editableInForm`). */
export function draftOf(flag: FlagResource): FlagDraft {
  const variants = flag.filters.multivariate?.variants ?? [];
  return {
    key: flag.key,
    name: flag.name,
    active: flag.active,
    ensureExperienceContinuity: flag.ensure_experience_continuity,
    tags: flag.tags.join(", "),
    conditions: flag.filters.groups.map((group) => ({
      id: rowId(),
      properties: (group.properties ?? []).map((property) => ({
        id: rowId(),
        type: property.type === "cohort" ? ("cohort" as const) : ("person" as const),
        key: property.key,
        operator: (property.operator ?? (property.type === "cohort" ? "in" : "exact")) as PropertyDraft["operator"],
        value: valueText(property.value),
      })),
      rollout: group.rollout_percentage === null || group.rollout_percentage === undefined ? "100" : String(group.rollout_percentage),
      variant: group.variant ?? "",
    })),
    multivariate: variants.length > 0,
    variants: variants.length > 0 ? variants.map((variant) => ({ id: rowId(), key: variant.key, name: variant.name ?? "", rollout: String(variant.rollout_percentage) })) : EMPTY_DRAFT.variants,
    payloads: { ...flag.filters.payloads },
  };
}

/**
 * Whether the form can edit the flag without losing conditions: it edits person properties
 * with the matcher's operators and cohort membership; group flags and flag conditions are API-only.
 */
export function editableInForm(flag: FlagResource): boolean {
  return (
    flag.filters.aggregation_group_type_index === null &&
    flag.filters.groups.every((group) =>
      (group.properties ?? []).every((property) =>
        property.type === "cohort"
          ? (COHORT_OPERATORS as readonly string[]).includes(property.operator ?? "in") && !property.negation
          : property.type === "person" && (OPERATORS as readonly string[]).includes(property.operator ?? "exact"),
      ),
    )
  );
}

/** One line saying who gets the flag, for the list. */
export function rolloutSummary(flag: Pick<FlagResource, "filters" | "active">): string {
  const groups = flag.filters.groups;
  const variants = flag.filters.multivariate?.variants.length ?? 0;
  const suffix = variants > 0 ? ` · ${variants} ${variants === 1 ? "variant" : "variants"}` : "";
  if (groups.length === 0) return `No conditions${suffix}`;
  if (groups.length === 1) {
    const group = groups[0]!;
    const rollout = group.rollout_percentage ?? 100;
    const count = (group.properties ?? []).length;
    const who = count === 0 ? "all users" : `users matching ${count} ${count === 1 ? "condition" : "conditions"}`;
    return `${rollout}% of ${who}${suffix}`;
  }
  return `${groups.length} condition sets${suffix}`;
}

/** The first issue of a failed parse as `attr` (path joined with `__`) and message. */
export interface FieldIssue {
  attr: string | null;
  message: string;
}

/** A share (0–1) of users as the reach lines show it: whole percent, "<1%" for a few, "≈" when estimated. */
export function reachPercent(share: number, approximate: boolean): string {
  const percent = share * 100;
  const text = percent > 0 && percent < 1 ? "<1%" : percent < 100 && percent > 99 ? ">99%" : `${Math.round(percent)}%`;
  return approximate ? `≈${text}` : text;
}

/** The condition sets of a draft as the reach estimate takes them (variant overrides do not change who is served). */
export function reachGroups(draft: FlagDraft) {
  return (toFlagInput(draft).filters?.groups ?? []).map((group) => ({ ...group, variant: null }));
}

type WhyProperty = { key: string; value?: unknown; operator?: string | null; type: string };

/** A condition set named for "Why": its number and its description, or else its filters in words. */
export function conditionName(index: number, description: string | null, properties: readonly WhyProperty[]): string {
  const n = `condition set ${index + 1}`;
  if (description) return `${n} (“${description}”)`;
  if (properties.length === 0) return `${n} (everyone)`;
  const words = properties.map((property) => {
    if (property.type === "cohort") return `${COHORT_OPERATOR_LABELS[(property.operator as CohortOperator) ?? "in"] ?? "is in"} cohort ${valueText(property.value)}`;
    const operator = (property.operator ?? "exact") as FlagPropertyOperator;
    const label = OPERATOR_LABELS[operator] ?? operator;
    return VALUELESS.has(operator) ? `${property.key} ${label}` : `${property.key} ${label} ${valueText(property.value)}`;
  });
  return `${n} (${words.join(" and ")})`;
}

/** The person's bucket against the set's rollout: in when bucket ≤ rollout/100, as the flag hash is read. */
export function bucketText(bucket: number, rollout: number): string {
  const inside = bucket <= rollout / 100;
  // Two decimals, unless that rounds onto the boundary and hides which side it is on.
  const shown = Number(bucket.toFixed(2)) === rollout / 100 && bucket !== rollout / 100 ? bucket.toFixed(4) : bucket.toFixed(2);
  return `bucket ${shown} ${inside ? "≤" : ">"} rollout ${rollout}%: ${inside ? "inside" : "outside"} the rollout`;
}
