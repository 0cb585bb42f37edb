/**
 * PostHog's property filters: `{key, value, operator, type}` leaves and `{type: "AND"|"OR",
 * values}` groups — the parsed filter tree every target compiles (tree.ts): the in-memory
 * matcher (match.ts), PostgreSQL (sql.ts) and ClickHouse (clickhouse.ts), with the operators
 * of operators.ts. This file is the schema the events API, insights and transformations
 * parse it with.
 */
import { z } from "zod";
import { filterDate, storableText } from "./coerce";
import { regexSyntaxError } from "./regex";

export const PROPERTY_OPERATORS = [
  "exact",
  "is_not",
  "icontains",
  "not_icontains",
  "regex",
  "not_regex",
  "gt",
  "gte",
  "lt",
  "lte",
  "is_set",
  "is_not_set",
  "is_date_before",
  "is_date_after",
] as const;
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

/** Whose properties a filter reads. Cohort leaves have their own schema; PostHog's others (group, element, …) are not supported. */
export const PROPERTY_FILTER_TYPES = ["event", "person"] as const;
export type PropertyFilterType = (typeof PROPERTY_FILTER_TYPES)[number];

export type ScalarValue = string | number | boolean | null;

/**
 * PostHog's `event_metadata` leaves read an event's own columns rather than its properties:
 * each target reads them as a record of these keys (sql.ts, clickhouse.ts, match.ts). Actions
 * (src/server/actions) match event names and autocapture elements with them. `elements_chain`
 * is the column, or where it is empty the `$elements_chain` property posthog-js sends.
 */
export const EVENT_METADATA_KEYS = ["event", "distinct_id", "elements_chain"] as const;
export type EventMetadataKey = (typeof EVENT_METADATA_KEYS)[number];

/** The leaf types the schema takes. */
export const PROPERTY_LEAF_TYPES = [...PROPERTY_FILTER_TYPES, "event_metadata"] as const;

/**
 * Whose properties a leaf of the tree reads: the schema gives event, person and event_metadata
 * leaves; group leaves (`groupTypeIndex`) are read by the in-memory matcher only, for now.
 */
export type PropertyLeafType = PropertyFilterType | "event_metadata" | "group";

export interface PropertyFilter {
  type: PropertyLeafType;
  key: string;
  operator: PropertyOperator;
  /** exact/is_not: a list (any of); is_set/is_not_set: null; others: one value. */
  value: ScalarValue | ScalarValue[];
  /** Inverts the result (cohort-style filters carry it). */
  negation: boolean;
  /** Group leaves: which group type's properties (PostHog's `group_type_index`). */
  groupTypeIndex?: number;
}

/**
 * A cohort leaf, as PostHog writes it (`{type: "cohort", key: "id", value: 42}`): membership
 * of the person in a cohort. Each target compiles it through the cohort resolver its caller
 * passes (tree.ts), and refuses it without one.
 */
export interface CohortFilter {
  type: "cohort";
  key: "id";
  value: number;
  operator: "in" | "not_in";
  negation: boolean;
}

export const BEHAVIORAL_KINDS = ["performed_event", "performed_event_multiple"] as const;
/** PostHog's other behavioral kinds: parsed far enough to say they are not supported yet. */
export const UNSUPPORTED_BEHAVIORAL_KINDS = [
  "performed_event_first_time",
  "performed_event_sequence",
  "performed_event_regularly",
  "stopped_performing_event",
  "restarted_performing_event",
] as const;
export const TIME_INTERVALS = ["day", "week", "month", "year"] as const;
export const COUNT_OPERATORS = ["gte", "lte", "exact", "gt", "lt"] as const;
export type CountOperator = (typeof COUNT_OPERATORS)[number];

/**
 * A behavioral leaf, as PostHog's cohorts write it: the person performed `key` (an event
 * name) since a time (`time_value` `time_interval`s ago, or `explicit_datetime`), and for
 * `performed_event_multiple` a number of times (`operator` `operator_value`, default gte).
 * Kept in PostHog's snake_case: the stored cohort filters are this JSON. Compiled through
 * the behavioral resolver its caller passes (tree.ts), refused without one.
 */
export interface BehavioralFilter {
  type: "behavioral";
  key: string;
  value: (typeof BEHAVIORAL_KINDS)[number];
  event_type: "events";
  time_value?: number;
  time_interval?: (typeof TIME_INTERVALS)[number];
  explicit_datetime?: string;
  operator?: CountOperator;
  operator_value?: number;
  negation: boolean;
}

export type PropertyLeaf = PropertyFilter | CohortFilter | BehavioralFilter;

export function isCohortFilter(node: PropertyNode): node is CohortFilter {
  return node.type === "cohort";
}

export function isBehavioralFilter(node: PropertyNode): node is BehavioralFilter {
  return node.type === "behavioral";
}

export interface PropertyGroup {
  type: "AND" | "OR";
  values: PropertyNode[];
}
export type PropertyNode = PropertyLeaf | PropertyGroup;

export function isPropertyGroup(node: PropertyNode): node is PropertyGroup {
  return node.type === "AND" || node.type === "OR";
}

/** Bounds that keep one request's SQL small. */
export const PROPERTY_LIMITS = {
  maxFilters: 100,
  maxDepth: 8,
  maxListValues: 1000,
  maxKeyLength: 1000,
  maxTextLength: 10_000,
  maxRegexLength: 1000,
} as const;

const scalar = z.union([z.string().max(PROPERTY_LIMITS.maxTextLength), z.number(), z.boolean(), z.null()], {
  error: "value must be a string, number, boolean or null.",
});

/** Whether `text` is a date a filter may compare against (relative like `-7d`, or ISO 8601). */
export function isFilterDate(text: string): boolean {
  return filterDate(text, new Date()) !== null;
}

/** Caller input quoted in an error message, cut short. */
function shown(input: unknown): string {
  const text = typeof input === "string" ? input : JSON.stringify(input) ?? String(input);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function sanitise(value: ScalarValue): ScalarValue {
  return typeof value === "string" ? storableText(value) : value;
}

export const propertyFilterSchema = z
  .object({
    key: z
      .string({ error: "key must be a string." })
      .min(1, "key must not be empty.")
      .max(PROPERTY_LIMITS.maxKeyLength, `key must be at most ${PROPERTY_LIMITS.maxKeyLength} characters.`),
    value: z.union([scalar, z.array(scalar).max(PROPERTY_LIMITS.maxListValues)]).optional(),
    operator: z
      .enum(PROPERTY_OPERATORS, {
        error: (issue) => `Unknown operator '${shown(issue.input)}'; supported: ${PROPERTY_OPERATORS.join(", ")}.`,
      })
      .nullish(),
    type: z.enum(PROPERTY_LEAF_TYPES, {
      error: (issue) => `Property filter type '${shown(issue.input)}' is not supported; use 'event', 'person' or 'event_metadata'.`,
    }),
    negation: z.boolean().nullish(),
  })
  .transform((raw, ctx): PropertyFilter => {
    const operator = raw.operator ?? "exact";
    const fail = (message: string) => {
      ctx.addIssue({ code: "custom", message, path: ["value"], input: raw.value });
      return z.NEVER;
    };
    if (raw.type === "event_metadata" && !(EVENT_METADATA_KEYS as readonly string[]).includes(raw.key)) {
      ctx.addIssue({ code: "custom", message: `Event metadata '${shown(raw.key)}' is not supported; use one of ${EVENT_METADATA_KEYS.join(", ")}.`, path: ["key"], input: raw.key });
      return z.NEVER;
    }
    const base = { type: raw.type, key: storableText(raw.key), operator, negation: raw.negation ?? false };
    if (operator === "is_set" || operator === "is_not_set") return { ...base, value: null };
    if (raw.value === undefined) return fail(`value is required for operator '${operator}'.`);
    if (operator === "exact" || operator === "is_not") {
      const list = Array.isArray(raw.value) ? raw.value : [raw.value];
      return { ...base, value: list.map(sanitise) };
    }
    // Other operators take one value; PostHog's UI sometimes wraps it in a list.
    let value: ScalarValue;
    if (Array.isArray(raw.value)) {
      if (raw.value.length !== 1) return fail(`Operator '${operator}' takes a single value, not a list.`);
      value = raw.value[0]!;
    } else {
      value = raw.value;
    }
    value = sanitise(value);
    switch (operator) {
      case "regex":
      case "not_regex": {
        if (typeof value !== "string") return fail(`Operator '${operator}' needs a regular expression (a string).`);
        if (value.length > PROPERTY_LIMITS.maxRegexLength) return fail(`The regular expression is longer than ${PROPERTY_LIMITS.maxRegexLength} characters.`);
        const refused = regexSyntaxError(value);
        if (refused) return fail(`Invalid regular expression: ${JSON.stringify(shown(value))} (${refused}).`);
        return { ...base, value };
      }
      case "gt":
      case "gte":
      case "lt":
      case "lte":
        if (typeof value !== "number" && typeof value !== "string") return fail(`Operator '${operator}' needs a number or a string.`);
        return { ...base, value };
      case "is_date_before":
      case "is_date_after":
        if (typeof value !== "string" || !isFilterDate(value)) {
          return fail(`Operator '${operator}' needs an ISO 8601 date or a relative date such as '-7d'.`);
        }
        return { ...base, value };
      default:
        // icontains / not_icontains: the value's text (null reads "null").
        return { ...base, value };
    }
  });

/** `{type: "cohort", key: "id", value: N}`; `operator` in (default) or not_in, as PostHog's flags and filters write it. */
export const cohortFilterSchema = z
  .object({
    type: z.literal("cohort"),
    key: z.literal("id", { error: 'A cohort filter\'s key must be "id".' }),
    value: z.union([z.number(), z.string().regex(/^\d{1,10}$/, "A cohort filter's value must be a cohort id.")], { error: "A cohort filter's value must be a cohort id." }).transform(Number).refine((id) => Number.isInteger(id) && id > 0 && id <= 2_147_483_647, "A cohort filter's value must be a cohort id."),
    operator: z.enum(["in", "not_in"], { error: "A cohort filter's operator must be 'in' or 'not_in'." }).nullish(),
    negation: z.boolean().nullish(),
  })
  .transform((raw): CohortFilter => ({ type: "cohort", key: "id", value: raw.value, operator: raw.operator ?? "in", negation: raw.negation ?? false }));

const MAX_TIME_VALUE = 100_000;

/** PostHog's behavioral leaf (`performed_event` and `performed_event_multiple`; other kinds are a 400 saying they are not supported yet). */
export const behavioralFilterSchema = z
  .object({
    type: z.literal("behavioral"),
    key: z
      .string({ error: "A behavioral filter's key must be an event name." })
      .min(1, "A behavioral filter's key must be an event name.")
      .max(PROPERTY_LIMITS.maxKeyLength, `key must be at most ${PROPERTY_LIMITS.maxKeyLength} characters.`),
    value: z.string({ error: "A behavioral filter's value must say what the person did (performed_event, performed_event_multiple)." }),
    event_type: z.string({ error: "Missing required keys for behavioral filter: event_type" }),
    time_value: z.union([z.number(), z.string().regex(/^\d{1,6}$/)]).transform(Number).pipe(z.number().int("time_value must be a whole number.").min(1, "time_value must be at least 1.").max(MAX_TIME_VALUE, `time_value must be at most ${MAX_TIME_VALUE}.`)).nullish(),
    time_interval: z.enum(TIME_INTERVALS, { error: `time_interval must be one of ${TIME_INTERVALS.join(", ")}.` }).nullish(),
    explicit_datetime: z.string().max(100).refine(isFilterDate, "explicit_datetime must be an ISO 8601 date or a relative date such as '-30d'.").nullish(),
    operator: z.enum(COUNT_OPERATORS, { error: `A behavioral filter's operator must be one of ${COUNT_OPERATORS.join(", ")}.` }).nullish(),
    operator_value: z.union([z.number(), z.string().regex(/^\d{1,9}$/)]).transform(Number).pipe(z.number().int("operator_value must be a whole number.").min(0, "operator_value must not be negative.").max(1_000_000_000)).nullish(),
    negation: z.boolean().nullish(),
  })
  .transform((raw, ctx): BehavioralFilter => {
    const fail = (message: string, path: string) => {
      ctx.addIssue({ code: "custom", message, path: [path] });
      return z.NEVER;
    };
    if ((UNSUPPORTED_BEHAVIORAL_KINDS as readonly string[]).includes(raw.value)) {
      return fail(`Behavioral filter '${raw.value}' is not supported yet; supported: ${BEHAVIORAL_KINDS.join(", ")}.`, "value");
    }
    if (!(BEHAVIORAL_KINDS as readonly string[]).includes(raw.value)) return fail(`Unknown behavioral filter '${shown(raw.value)}'.`, "value");
    if (raw.event_type === "actions") return fail("Behavioral filters on actions are not supported yet; use event_type 'events'.", "event_type");
    if (raw.event_type !== "events") return fail("event_type must be 'events' or 'actions'.", "event_type");
    const window = raw.explicit_datetime ? { explicit_datetime: raw.explicit_datetime } : null;
    if (!window && (raw.time_value == null || raw.time_interval == null)) {
      return fail("Missing required keys for behavioral filter: time_value, time_interval (or explicit_datetime)", "time_value");
    }
    const filter: BehavioralFilter = {
      type: "behavioral",
      key: storableText(raw.key),
      value: raw.value as BehavioralFilter["value"],
      event_type: "events",
      ...(window ?? { time_value: raw.time_value!, time_interval: raw.time_interval! }),
      negation: raw.negation ?? false,
    };
    if (filter.value === "performed_event_multiple") {
      if (raw.operator_value == null) return fail("Missing required keys for behavioral filter: operator_value", "operator_value");
      filter.operator = raw.operator ?? "gte";
      filter.operator_value = raw.operator_value;
    }
    return filter;
  });

type Parsed<T> = { success: true; data: T } | { success: false; issues: { message: string; path: PropertyKey[] }[] };

function fromZod<T>(result: z.ZodSafeParseResult<T>): Parsed<T> {
  return result.success ? result : { success: false, issues: result.error.issues.map(({ message, path }) => ({ message, path })) };
}

/** A filter or a group, told apart by `type`: "AND"/"OR" is a group, anything else a filter (default "event"). */
function parseNode(input: unknown): Parsed<PropertyNode> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { success: false, issues: [{ message: "Each property filter must be an object.", path: [] }] };
  }
  const type = (input as { type?: unknown }).type;
  if (type === "AND" || type === "OR") return fromZod(propertyGroupSchema.safeParse(input));
  if (type === "cohort") return fromZod(cohortFilterSchema.safeParse(input));
  if (type === "behavioral") return fromZod(behavioralFilterSchema.safeParse(input));
  return fromZod(propertyFilterSchema.safeParse(type === undefined || type === null ? { ...input, type: "event" } : input));
}

function reportTo(ctx: z.RefinementCtx, issues: { message: string; path: PropertyKey[] }[]): never {
  for (const { message, path } of issues) ctx.addIssue({ code: "custom", message, path });
  return z.NEVER as never;
}

export const propertyNodeSchema: z.ZodType<PropertyNode> = z.unknown().transform((input, ctx): PropertyNode => {
  const result = parseNode(input);
  return result.success ? result.data : reportTo(ctx, result.issues);
});

export const propertyGroupSchema: z.ZodType<PropertyGroup> = z.object({
  type: z.enum(["AND", "OR"]),
  values: z.array(propertyNodeSchema, { error: "values must be a list." }).max(PROPERTY_LIMITS.maxFilters, `A group holds at most ${PROPERTY_LIMITS.maxFilters} entries.`),
});

/** How deeply lists and groups nest, counted until it passes `limit`. */
function nestingOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit) return depth;
  let deepest = depth;
  const children = Array.isArray(value) ? value : typeof value === "object" && value !== null && "values" in value ? [(value as { values: unknown }).values] : [];
  for (const child of children) {
    deepest = Math.max(deepest, nestingOf(child, limit, depth + 1));
    if (deepest > limit) break;
  }
  return deepest;
}

function countFilters(node: PropertyNode): number {
  return isPropertyGroup(node) ? node.values.reduce((sum, child) => sum + countFilters(child), 0) : 1;
}

/**
 * The `properties` parameter (already JSON-parsed): a list of filters and groups (all must
 * hold), a group, or one filter. Throws a ZodError whose first issue says what is wrong.
 */
export const propertiesParamSchema: z.ZodType<PropertyGroup> = z.unknown().transform((input, ctx): PropertyGroup => {
  // A group is an object holding a list: two levels a group.
  if (nestingOf(input, PROPERTY_LIMITS.maxDepth * 2 + 1) > PROPERTY_LIMITS.maxDepth * 2 + 1) {
    return reportTo(ctx, [{ message: `Property groups nest at most ${PROPERTY_LIMITS.maxDepth} deep.`, path: [] }]);
  }
  let group: PropertyGroup;
  if (Array.isArray(input)) {
    const result = fromZod(z.array(propertyNodeSchema).max(PROPERTY_LIMITS.maxFilters, `At most ${PROPERTY_LIMITS.maxFilters} property filters.`).safeParse(input));
    if (!result.success) return reportTo(ctx, result.issues);
    group = { type: "AND", values: result.data };
  } else {
    const result = parseNode(input);
    if (!result.success) return reportTo(ctx, result.issues);
    group = isPropertyGroup(result.data) ? result.data : { type: "AND", values: [result.data] };
  }
  if (countFilters(group) > PROPERTY_LIMITS.maxFilters) {
    return reportTo(ctx, [{ message: `At most ${PROPERTY_LIMITS.maxFilters} property filters.`, path: [] }]);
  }
  return group;
});
