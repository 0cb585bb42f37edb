/**
 * PostHog's feature-flag fields as zod schemas: one contract for the REST API, tRPC and the
 * flag form. Everything that needs no database is checked here (key format, filter shape,
 * operators, rollout and variant percentages, payload keys); the service adds the checks
 * that do (a duplicate key among the project's live flags, flag dependencies).
 *
 * Error messages are PostHog's where PostHog has one (posthog/api/feature_flag.py); the
 * issue path names the field at fault (`filters.groups.0.properties.1.operator`), which the
 * REST edge reports as `attr` joined with `__`.
 */
import { z } from "zod";
import { hasNul, NUL_MESSAGE } from "@/server/input/nul";
import { pageQuery } from "@/server/input/page";
import { INT4_MAX } from "@/server/input/record-id";
import { isFilterDate, PROPERTY_LIMITS } from "@/server/properties/contract";
import { FLAG_PROPERTY_OPERATORS } from "@/server/properties/flag-filters";
import { regexSyntaxError } from "@/server/properties/regex";
import { normaliseTags } from "@/server/tags/service";

/** PostHog's rule for flag (and variant) keys. */
export const FLAG_KEY_PATTERN = /^[a-zA-Z0-9_-]+$/;
export const FLAG_KEY_MESSAGE = "Only letters, numbers, hyphens (-) & underscores (_) are allowed.";
export const DUPLICATE_FLAG_KEY_MESSAGE = "There is already a feature flag with this key.";
export const MAX_FLAG_KEY_LENGTH = 400;

/** Group types a project may have (PostHog allows five, indexes 0–4). */
const MAX_GROUP_TYPE_INDEX = 4;

/**
 * Every operator PostHog knows for flag conditions (posthog.schema.PropertyOperator and the
 * flags service's additions): those Burrow evaluates, and those it recognises but does not
 * evaluate yet (refused with a clearer message than an unknown operator gets).
 */
const POSTHOG_FLAG_OPERATORS: readonly string[] = [
  ...FLAG_PROPERTY_OPERATORS,
  "is_date_exact",
  "between",
  "not_between",
  "min",
  "max",
  "in",
  "not_in",
  "is_cleaned_path_exact",
  "flag_evaluates_to",
];

/** Whose property a condition reads. Flags cannot read event properties (PostHog's rule). */
export const FLAG_PROPERTY_TYPES = ["person", "group", "cohort", "flag"] as const;
export type FlagPropertyType = (typeof FLAG_PROPERTY_TYPES)[number];

const scalar = z.union([z.string().max(PROPERTY_LIMITS.maxTextLength), z.number(), z.boolean(), z.null()], {
  error: "value must be a string, number, boolean or null (or a list of them).",
});

/** Caller input quoted in a message, cut short. */
function shown(input: unknown): string {
  const text = typeof input === "string" ? input : (JSON.stringify(input) ?? String(input));
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

const percentage = (what: string) =>
  z
    .number({ error: `${what} must be a number between 0 and 100.` })
    .min(0, `${what} must be a number between 0 and 100.`)
    .max(100, `${what} must be a number between 0 and 100.`);

const groupTypeIndex = z
  .number({ error: "aggregation_group_type_index must be an integer from 0 to 4, or null." })
  .int("aggregation_group_type_index must be an integer from 0 to 4, or null.")
  .min(0, "aggregation_group_type_index must be an integer from 0 to 4, or null.")
  .max(MAX_GROUP_TYPE_INDEX, "aggregation_group_type_index must be an integer from 0 to 4, or null.");

/** One condition `{key, value, operator, type}`; the operator and value are checked together with the flag (see `flagFiltersSchema`). */
export const flagPropertyFilterSchema = z.object({
  key: z.string({ error: "key must be a string." }).min(1, "key must not be empty.").max(PROPERTY_LIMITS.maxKeyLength),
  value: z.union([scalar, z.array(scalar)]).optional(),
  operator: z.string({ error: "operator must be a string." }).nullish(),
  type: z.enum(FLAG_PROPERTY_TYPES, { error: "Filters are not valid (can only use person, cohort, and flag properties)" }),
  group_type_index: groupTypeIndex.nullish(),
  negation: z.boolean().optional(),
});
export type FlagConditionProperty = z.infer<typeof flagPropertyFilterSchema>;

/** A condition set: all its properties must hold, then the rollout percentage applies. */
export const flagConditionSchema = z.object({
  properties: z.array(flagPropertyFilterSchema, { error: "properties must be a list." }).max(PROPERTY_LIMITS.maxFilters).default([]),
  rollout_percentage: percentage("rollout_percentage").nullable().default(null),
  variant: z.string({ error: "variant must be a string or null." }).nullish(),
  description: z.string().max(1000).nullish(),
});
export type FlagCondition = z.infer<typeof flagConditionSchema>;

export const flagVariantSchema = z.object({
  key: z.string({ error: "Each variant needs a key." }).min(1, "Each variant needs a key.").max(MAX_FLAG_KEY_LENGTH).regex(FLAG_KEY_PATTERN, FLAG_KEY_MESSAGE),
  name: z.string().max(1000).nullish(),
  rollout_percentage: percentage("rollout_percentage"),
});
export type FlagVariant = z.infer<typeof flagVariantSchema>;

const payloadValue = z.unknown();

/** The filters of a flag as sent; `flagFiltersSchema` checks and normalises them. */
const rawFiltersSchema = z.object(
  {
    groups: z.array(flagConditionSchema, { error: "groups must be a list of condition sets." }).max(100, "A flag has at most 100 condition sets."),
    multivariate: z
      .object({ variants: z.array(flagVariantSchema, { error: "variants must be a list." }).max(100, "A flag has at most 100 variants.") })
      .nullish(),
    payloads: z.record(z.string(), payloadValue, { error: "Payloads must be passed as a dictionary" }).nullish(),
    aggregation_group_type_index: groupTypeIndex.nullish(),
    /** An experiment holdout (PostHog's newer form): members get `holdout-<id>` before any condition. */
    holdout: z
      .object({
        id: z.number({ error: "holdout.id must be an id." }).int().positive(),
        exclusion_percentage: z.number({ error: "holdout.exclusion_percentage must be a number." }).min(0).max(100),
      })
      .nullish(),
    // Early-access enrolment (PostHog's super condition, set by the early-access domain).
    super_groups: z.array(flagConditionSchema, { error: "super_groups must be a list of condition sets." }).max(1, "A flag has at most one super condition set.").nullish(),
    feature_enrollment: z.boolean({ error: "feature_enrollment must be a boolean." }).nullish(),
  },
  { error: "filters must be an object." },
);

/** Stored and returned filters: PostHog's JSON, normalised (payloads as JSON text, `multivariate` null for boolean flags). */
export interface FlagFilters {
  groups: FlagCondition[];
  multivariate: { variants: FlagVariant[] } | null;
  aggregation_group_type_index: number | null;
  payloads: Record<string, string>;
  /** Present only when the flag belongs to an experiment with a holdout. */
  holdout?: { id: number; exclusion_percentage: number };
  /** Early access: the enrolment condition that decides before the groups (flags/evaluation.ts). */
  super_groups?: FlagCondition[] | null;
  feature_enrollment?: boolean;
}

type Issue = { message: string; path: (string | number)[] };

function checkPropertyValue(property: FlagConditionProperty, operator: string, at: (string | number)[]): Issue | null {
  const fail = (message: string): Issue => ({ message, path: [...at, "value"] });
  const value = property.value;
  if (Array.isArray(value) && value.length > PROPERTY_LIMITS.maxListValues) {
    return fail(`Property group expressions of type ${property.key} cannot contain more than ${PROPERTY_LIMITS.maxListValues} values.`);
  }
  switch (operator) {
    case "is_set":
    case "is_not_set":
      return null; // PostHog's UI sends the operator's name as the value; it is not read
    case "exact":
    case "is_not":
      if (value === undefined || (Array.isArray(value) && value.length === 0)) return fail(`A value is required for operator '${operator}'.`);
      return null;
    case "regex":
    case "not_regex":
    case "icontains":
    case "not_icontains":
    case "starts_with":
    case "not_starts_with":
    case "ends_with":
    case "not_ends_with":
    case "semver_eq":
    case "semver_neq":
    case "semver_gt":
    case "semver_gte":
    case "semver_lt":
    case "semver_lte":
    case "semver_tilde":
    case "semver_caret":
    case "semver_wildcard": {
      const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
      if (typeof one !== "string") return fail(`Invalid value for operator ${operator}: ${shown(value ?? null)}`);
      if (operator.endsWith("regex")) {
        if (one.length > PROPERTY_LIMITS.maxRegexLength) return fail(`The regular expression is longer than ${PROPERTY_LIMITS.maxRegexLength} characters.`);
        const refused = regexSyntaxError(one);
        if (refused) return fail(`Invalid regular expression: ${shown(one)} (${refused})`);
      }
      return null;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
      if (typeof one !== "string" && typeof one !== "number") return fail(`Invalid value for operator ${operator}: ${shown(value ?? null)}`);
      return null;
    }
    case "is_date_before":
    case "is_date_after": {
      const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
      if (typeof one !== "string" || !isFilterDate(one)) return fail(`Invalid date value: ${shown(value ?? null)}`);
      return null;
    }
    case "flag_evaluates_to":
      if (typeof value !== "boolean" && typeof value !== "string") return fail("A flag dependency's value must be true, false or a variant key.");
      return null;
    case "in":
    case "not_in":
      if (typeof value !== "number" && !(typeof value === "string" && /^\d+$/.test(value))) return fail(`Cohort with id ${shown(value ?? null)} does not exist`);
      return null;
    default:
      return null;
  }
}

/** The first thing wrong with one property filter of a flag whose aggregation is `groupIndex`. */
/** A condition's operator when it names none: `in` for a cohort (PostHog's flags service), else `exact`. */
function operatorOf(property: FlagConditionProperty): string {
  return property.operator ?? (property.type === "cohort" ? "in" : "exact");
}

function checkProperty(property: FlagConditionProperty, groupIndex: number | null, at: (string | number)[]): Issue | null {
  const operator = operatorOf(property);
  if (groupIndex === null && property.type === "group") {
    return { message: "Filters are not valid (can only use person, cohort, and flag properties)", path: [...at, "type"] };
  }
  if (groupIndex !== null && (property.type !== "group" || property.group_type_index !== groupIndex)) {
    return { message: "Filters are not valid (can only use group properties)", path: [...at, property.type !== "group" ? "type" : "group_type_index"] };
  }
  if (!POSTHOG_FLAG_OPERATORS.includes(operator)) {
    return { message: `Unknown operator '${shown(operator)}'.`, path: [...at, "operator"] };
  }
  if (property.type === "flag" && operator !== "flag_evaluates_to") {
    return { message: "Flag properties must use the 'flag_evaluates_to' operator", path: [...at, "operator"] };
  }
  if ((operator === "in" || operator === "not_in") && property.type !== "cohort") {
    return { message: `The '${operator}' operator is only valid for cohort properties, not '${property.type}' properties.`, path: [...at, "operator"] };
  }
  if (property.type === "cohort" && operator !== "in" && operator !== "not_in") {
    return { message: "Cohort properties must use the 'in' or 'not_in' operator.", path: [...at, "operator"] };
  }
  // Person and group conditions: the operators the flag matcher (src/server/properties/flag-filters.ts) evaluates.
  const supported = property.type === "cohort" || property.type === "flag" || (FLAG_PROPERTY_OPERATORS as readonly string[]).includes(operator);
  if (!supported) {
    return { message: `Operator '${operator}' is not supported yet; use one of: ${FLAG_PROPERTY_OPERATORS.join(", ")}.`, path: [...at, "operator"] };
  }
  return checkPropertyValue(property, operator, at);
}

/** Payload values are stored as JSON text, as PostHog's UI sends them; a string must already be JSON. */
function payloadText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") {
    try {
      JSON.parse(value);
      return value;
    } catch {
      return undefined;
    }
  }
  return JSON.stringify(value);
}

/**
 * `filters` checked against PostHog's rules and normalised. Variant percentages must sum to
 * 100; a condition's variant override and every payload key must name a variant (or be
 * "true" for a boolean flag).
 */
export const flagFiltersSchema = rawFiltersSchema.transform((raw, ctx): FlagFilters => {
  const report = (issue: Issue) => {
    ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  };
  const groupIndex = raw.aggregation_group_type_index ?? null;
  const variants = raw.multivariate?.variants ?? [];
  const variantKeys = new Set<string>();
  for (const [index, variant] of variants.entries()) {
    if (variantKeys.has(variant.key)) return report({ message: `Variant keys must be unique: '${variant.key}' appears twice.`, path: ["multivariate", "variants", index, "key"] });
    variantKeys.add(variant.key);
  }
  if (variants.length > 0) {
    const sum = variants.reduce((total, variant) => total + variant.rollout_percentage, 0);
    // Percentages may be decimals (33.33 + 33.33 + 33.34); compare with a rounding tolerance.
    if (Math.abs(sum - 100) > 1e-9) {
      return report({ message: "Invalid variant definitions: Variant rollout percentages must sum to 100.", path: ["multivariate", "variants"] });
    }
  }
  for (const [conditionIndex, condition] of raw.groups.entries()) {
    const at = ["groups", conditionIndex];
    if (condition.variant !== null && condition.variant !== undefined && !variantKeys.has(condition.variant)) {
      return report({ message: "Filters are not valid (variant override does not exist)", path: [...at, "variant"] });
    }
    for (const [propertyIndex, property] of condition.properties.entries()) {
      const issue = checkProperty(property, groupIndex, [...at, "properties", propertyIndex]);
      if (issue) return report(issue);
    }
  }
  const payloads: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw.payloads ?? {})) {
    const at = ["payloads", key];
    if (variants.length > 0 ? !variantKeys.has(key) : key !== "true") {
      return report({
        message: variants.length > 0 ? "Payload keys must match a variant key for multivariate flags" : "Payload keys must be 'true' for boolean flags",
        path: at,
      });
    }
    const text = payloadText(value);
    if (text === undefined) return report({ message: "Payload value is not valid JSON", path: at });
    if (text !== null) payloads[key] = text;
  }
  return {
    groups: raw.groups.map((condition) => ({
      properties: condition.properties.map((property) => ({ ...property, operator: operatorOf(property) })),
      rollout_percentage: condition.rollout_percentage,
      variant: condition.variant ?? null,
      ...(condition.description ? { description: condition.description } : {}),
    })),
    multivariate: variants.length > 0 ? { variants: variants.map(({ key, name, rollout_percentage }) => ({ key, name: name ?? "", rollout_percentage })) } : null,
    aggregation_group_type_index: groupIndex,
    payloads,
    ...(raw.holdout ? { holdout: { id: raw.holdout.id, exclusion_percentage: raw.holdout.exclusion_percentage } } : {}),
    ...(raw.super_groups !== undefined ? { super_groups: raw.super_groups } : {}),
    ...(raw.feature_enrollment ? { feature_enrollment: true } : {}),
  };
});

const flagKeySchema = z
  .string({ error: (issue) => (issue.input === undefined ? "This field is required." : "Not a valid string.") })
  .min(1, "This field may not be blank.")
  .max(MAX_FLAG_KEY_LENGTH, `Ensure this field has no more than ${MAX_FLAG_KEY_LENGTH} characters.`)
  .regex(FLAG_KEY_PATTERN, FLAG_KEY_MESSAGE);

/** PostHog's tags: normalised by `tagify` (trimmed, lower case), no duplicates. */
export const tagsSchema = z
  .array(z.string({ error: "Each tag must be a string." }).max(255, "A tag has at most 255 characters."), { error: "tags must be a list of strings." })
  .max(100, "A flag has at most 100 tags.")
  .transform(normaliseTags);

/** `ensure_experience_continuity`: PostHog's "classic" boolean, where null reads false. */
const classicBoolean = z
  .boolean({ error: "Must be a valid boolean." })
  .nullish()
  .transform((value) => value ?? false);

const flagFields = {
  name: z.string({ error: "name must be a string." }).max(10_000, "name is at most 10,000 characters."),
  active: z.boolean({ error: "Must be a valid boolean." }),
  deleted: z.boolean({ error: "Must be a valid boolean." }),
  ensure_experience_continuity: classicBoolean,
  tags: tagsSchema,
};

/** A new flag, as PostHog's create takes it (`POST …/feature_flags/`). Unknown fields are ignored, as DRF does. */
export const createFlagInput = z.object({
  key: flagKeySchema,
  name: flagFields.name.default(""),
  filters: flagFiltersSchema
    .refine((filters) => filters.groups.length > 0, { message: "Feature flags must have at least one condition set (group).", path: ["groups"] })
    .optional(),
  active: flagFields.active.default(true),
  deleted: flagFields.deleted.default(false),
  ensure_experience_continuity: flagFields.ensure_experience_continuity,
  tags: flagFields.tags.default([]),
});
export type CreateFlagInput = z.input<typeof createFlagInput>;
export type CreateFlag = z.output<typeof createFlagInput>;

/**
 * A change to a flag (`PATCH …/feature_flags/:id/`): every field optional. `filters`
 * without `groups` is merged into the flag's current filters by the service (PostHog keeps
 * the current filters then), so its shape is checked there.
 */
export const updateFlagInput = z.object({
  key: flagKeySchema.optional(),
  name: flagFields.name.optional(),
  filters: z.record(z.string(), z.unknown(), { error: "filters must be an object." }).optional(),
  active: flagFields.active.optional(),
  deleted: flagFields.deleted.optional(),
  ensure_experience_continuity: z.boolean({ error: "Must be a valid boolean." }).nullish(),
  tags: flagFields.tags.optional(),
});
export type UpdateFlagInput = z.input<typeof updateFlagInput>;
export type UpdateFlag = z.output<typeof updateFlagInput>;

const jsonList = (name: string) =>
  z.string().transform((text, ctx): string[] => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
      ctx.addIssue({ code: "custom", message: `${name} must be a JSON list of strings.` });
      return z.NEVER;
    }
    // Its JSON escapes decode to NUL only here, after the edges looked at the raw text.
    if (value.some(hasNul)) {
      ctx.addIssue({ code: "custom", message: NUL_MESSAGE });
      return z.NEVER;
    }
    return value;
  });

export const FLAG_LIST_ORDERS = ["key", "-key", "name", "-name", "created_at", "-created_at", "updated_at", "-updated_at"] as const;

/** The list's filters (PostHog's `_apply_filters`); empty parameters count as not given. */
export const flagListFilters = z.object({
  search: z.string().max(400).optional(),
  active: z.enum(["true", "false"], { error: "active must be 'true' or 'false'." }).optional(),
  type: z.enum(["boolean", "multivariant", "experiment", "remote_config"], { error: "type must be 'boolean', 'multivariant', 'experiment' or 'remote_config'." }).optional(),
  created_by_id: z.coerce.number({ error: "created_by_id must be an integer." }).int("created_by_id must be an integer.").min(0).max(INT4_MAX).optional(),
  tags: jsonList("tags").optional(),
  excluded_properties: jsonList("excluded_properties").optional(),
  order: z.enum(FLAG_LIST_ORDERS, { error: `order must be one of ${FLAG_LIST_ORDERS.join(", ")}.` }).optional(),
});
export type FlagListFilters = z.output<typeof flagListFilters>;

/** The list's query string: page and filters; empty parameters count as not given (`?search=`). */
export const flagListQuery = z.preprocess(
  (query) => (typeof query === "object" && query !== null ? Object.fromEntries(Object.entries(query).filter(([, value]) => value !== "")) : query),
  pageQuery.extend(flagListFilters.shape),
);
export type FlagListQuery = z.output<typeof flagListQuery>;

/** The "test for a user" box: one flag, one distinct id, optional properties and groups. */
export const testFlagInput = z.object({
  distinctId: z.string().trim().min(1, "Enter a distinct ID.").max(200, "A distinct ID is at most 200 characters."),
  personProperties: z.record(z.string(), z.unknown(), { error: "Person properties must be a JSON object." }).default({}),
  groups: z.record(z.string(), z.string(), { error: "Groups must be a JSON object of group type → group key." }).default({}),
  groupProperties: z.record(z.string(), z.record(z.string(), z.unknown()), { error: "Group properties must be a JSON object per group type." }).default({}),
});
export type TestFlagInput = z.input<typeof testFlagInput>;

/** A flag id (digits) or key, as PostHog takes either for remote config payloads; anything else names no flag. */
export const flagReference = z.string().max(MAX_FLAG_KEY_LENGTH).regex(FLAG_KEY_PATTERN);

/** "Will match about X% of users": the condition sets to estimate (the form's, saved or not). */
export const flagReachInput = z.object({ filters: flagFiltersSchema });

/** How many persons the reach estimate reads at most (flags/reach.ts). */
export const REACH_SAMPLE = 10_000;
