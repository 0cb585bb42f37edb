/**
 * Request shapes of the cohorts API, shared by REST (`/api/…/cohorts/`), tRPC and the cohort
 * form. Field names and messages are PostHog's (posthog/api/cohort.py, its pydantic filter
 * models). Browser-safe (the form imports it).
 *
 * `filters` is `{properties: PropertyGroup}` parsed by the one filter engine
 * (properties/contract.ts) after a strict pass here: cohorts take only `person`, `cohort` and
 * `behavioral` leaves, a person leaf must name its operator, and unknown keys are refused as
 * PostHog's `extra="forbid"` models refuse them.
 */
import { z } from "zod";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { recordId } from "@/server/input/record-id";
import {
  isBehavioralFilter,
  isCohortFilter,
  isPropertyGroup,
  propertiesParamSchema,
  PROPERTY_LIMITS,
  type PropertyGroup,
  type PropertyNode,
} from "@/server/properties/contract";
import { isObject } from "@/server/input/json-object";
import { userBasicSchema } from "@/server/accounts/contract";

export const COHORT_LIMITS = {
  maxName: 400,
  maxDescription: 1000,
  /** `add_persons_to_static_cohort` (PostHog's limit). */
  maxAddPersons: 1000,
  /** `_create_static_person_ids` on create. */
  maxCreatePersonIds: 10_000,
  /** A CSV upload, read no further than this. */
  maxCsvBytes: 20 * 1024 * 1024,
  /** Cohorts nested in cohorts, followed at most this deep when computing. */
  maxNesting: 10,
} as const;

export const COHORT_CYCLE_MESSAGE = "Cohorts cannot reference other cohorts in a loop.";

/** Keys each leaf may carry (PostHog's models; `conditionHash` is its editor's bookkeeping). */
const LEAF_KEYS: Record<string, ReadonlySet<string>> = {
  person: new Set(["type", "key", "operator", "value", "negation", "conditionHash"]),
  cohort: new Set(["type", "key", "operator", "value", "negation", "conditionHash"]),
  behavioral: new Set([
    "type",
    "key",
    "value",
    "event_type",
    "time_value",
    "time_interval",
    "operator",
    "operator_value",
    "seq_event",
    "seq_event_type",
    "seq_time_value",
    "seq_time_interval",
    "total_periods",
    "min_periods",
    "event_filters",
    "explicit_datetime",
    "negation",
    "conditionHash",
  ]),
};
const GROUP_KEYS = new Set(["type", "values"]);
const VALUELESS = new Set(["is_set", "is_not_set"]);

type Issue = { message: string; path: (string | number)[] };

/** The first thing PostHog's strict models refuse in a raw filter tree, or null. Bounded: deeper than the engine allows is the engine's error. */
function strictIssue(node: unknown, path: (string | number)[], depth = 0): Issue | null {
  if (depth > PROPERTY_LIMITS.maxDepth + 1) return null;
  if (!isObject(node)) return { message: "Each property filter must be an object.", path };
  const type = node.type;
  if (type === "AND" || type === "OR") {
    const extra = Object.keys(node).find((key) => !GROUP_KEYS.has(key));
    if (extra) return { message: "Extra inputs are not permitted", path: [...path, extra] };
    if (!Array.isArray(node.values)) return { message: "values must be a list.", path: [...path, "values"] };
    for (let i = 0; i < node.values.length && i <= PROPERTY_LIMITS.maxFilters; i++) {
      const found = strictIssue(node.values[i], [...path, "values", i], depth + 1);
      if (found) return found;
    }
    return null;
  }
  const allowed = typeof type === "string" ? LEAF_KEYS[type] : undefined;
  if (!allowed) return { message: `Filters of type '${String(type).slice(0, 40)}' are not supported in cohorts; use person, cohort or behavioral.`, path: [...path, "type"] };
  const extra = Object.keys(node).find((key) => !allowed.has(key));
  if (extra) return { message: "Extra inputs are not permitted", path: [...path, extra] };
  if (type === "person") {
    const missing = ["key", "operator"].filter((key) => node[key] === undefined || node[key] === null);
    if (typeof node.operator === "string" && !VALUELESS.has(node.operator) && node.value === undefined) missing.push("value");
    if (missing.length > 0) return { message: `Missing required keys for person filter: ${missing.join(", ")}`, path };
  }
  if (type === "cohort" && (node.value === undefined || node.value === null)) return { message: "Missing required keys for cohort filter: value", path };
  return null;
}

/** `filters`: `{properties: {type: AND|OR, values: […]}}` (an empty group: everyone). */
export const cohortFiltersSchema: z.ZodType<CohortFilters> = z.unknown().transform((input, ctx): CohortFilters => {
  const fail = (issue: Issue) => {
    ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  };
  if (!isObject(input)) return fail({ message: "filters must be an object: {properties: {type, values}}.", path: [] });
  const extra = Object.keys(input).find((key) => key !== "properties");
  if (extra) return fail({ message: "Extra inputs are not permitted", path: [extra] });
  if (input.properties === undefined) return { properties: { type: "AND", values: [] } };
  const properties = input.properties;
  if (!isObject(properties) || (properties.type !== "AND" && properties.type !== "OR")) {
    return fail({ message: "properties must be a property group: {type: 'AND' or 'OR', values: [...]}.", path: ["properties"] });
  }
  const refused = strictIssue(properties, ["properties"]);
  if (refused) return fail(refused);
  const parsed = propertiesParamSchema.safeParse(properties);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: ["properties", ...issue.path.map((part) => part as string | number)] });
    return z.NEVER;
  }
  return { properties: parsed.data };
});

export interface CohortFilters {
  properties: PropertyGroup;
}

/** The ids of the cohorts a tree references directly. */
export function referencedCohortIds(node: PropertyNode): number[] {
  if (isPropertyGroup(node)) return [...new Set(node.values.flatMap(referencedCohortIds))];
  return isCohortFilter(node) ? [node.value] : [];
}

/** Whether a tree has behavioral leaves (PostHog's `cohort_type` "behavioral"). */
export function hasBehavioralFilters(node: PropertyNode): boolean {
  return isPropertyGroup(node) ? node.values.some(hasBehavioralFilters) : isBehavioralFilter(node);
}

const COUNT_OPERATORS_LEGACY: Record<string, string> = { gte: "gte", lte: "lte", eq: "exact", exact: "exact" };

/**
 * PostHog's deprecated `groups` (`[{properties: [...]} | {event_id, days, count, count_operator}]`)
 * as `filters`, the way PostHog converts them (cohort.py `properties`): each group one AND
 * group of an OR, legacy person properties defaulting to `exact`, event groups becoming
 * performed_event(_multiple) in the last `days` (365 without). Used only when `filters` is absent.
 */
export function filtersFromLegacyGroups(groups: unknown): unknown {
  if (!Array.isArray(groups)) return groups;
  return {
    properties: {
      type: "OR",
      values: groups.slice(0, PROPERTY_LIMITS.maxFilters + 1).map((group: unknown) => {
        if (!isObject(group)) return group;
        if (group.action_id !== undefined && group.action_id !== null) return { type: "behavioral", key: String(group.action_id), value: "performed_event", event_type: "actions", time_value: 1, time_interval: "day" };
        if (typeof group.event_id === "string") {
          const count = group.count === undefined || group.count === null ? null : Number(group.count);
          const operator = COUNT_OPERATORS_LEGACY[String(group.count_operator ?? "gte")] ?? "gte";
          return {
            type: "AND",
            values: [
              {
                type: "behavioral",
                key: group.event_id,
                value: count === null ? "performed_event" : "performed_event_multiple",
                event_type: "events",
                time_value: Number(group.days ?? 365) || 365,
                time_interval: "day",
                ...(count === null ? {} : { operator, operator_value: count }),
              },
            ],
          };
        }
        const properties = Array.isArray(group.properties) ? group.properties : [];
        return {
          type: "AND",
          values: properties.map((leaf: unknown) =>
            isObject(leaf) && (leaf.type === undefined || leaf.type === "person") ? { ...leaf, type: "person", operator: leaf.operator ?? "exact" } : leaf,
          ),
        };
      }),
    },
  };
}

/** A body's legacy `groups` read as `filters` when no `filters` came with them. */
const withLegacyGroups = (input: unknown) => {
  if (!isObject(input) || input.filters !== undefined || input.groups === undefined || input.groups === null) return input;
  const { groups, ...rest } = input;
  return Array.isArray(groups) && groups.length === 0 ? rest : { ...rest, filters: filtersFromLegacyGroups(groups) };
};

const uuidSchema = z.string().regex(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i, "Must be a valid UUID.").transform((text) => text.toLowerCase());

const writable = {
  name: z
    .string({ error: "Not a valid string." })
    .max(COHORT_LIMITS.maxName, `Ensure this field has no more than ${COHORT_LIMITS.maxName} characters.`)
    .nullable()
    .transform((name) => name ?? ""),
  description: z
    .string({ error: "Not a valid string." })
    .max(COHORT_LIMITS.maxDescription, `Ensure this field has no more than ${COHORT_LIMITS.maxDescription} characters.`)
    .nullable()
    .transform((text) => text ?? ""),
  is_static: drfBoolean,
  filters: cohortFiltersSchema,
  /** HogQL/actors-query cohorts are not supported: refused rather than ignored. */
  query: z.unknown().refine((value) => value === null || value === undefined, "Query-based cohorts are not supported yet."),
};

/**
 * The fields a cohort answers with that a client may send back unchanged (PostHog's
 * read-only fields, which DRF ignores): accepted and ignored. Any other key is refused with a
 * 400 naming it, so a body cannot carry megabytes of what nothing reads (issue 32).
 */
const READ_ONLY_FIELDS = ["id", "count", "created_at", "created_by", "errors_calculating", "experiment_set", "is_calculating", "last_calculation", "last_error", "cohort_type", "deleted", "version", "groups"] as const;
const readOnly = Object.fromEntries(READ_ONLY_FIELDS.map((field) => [field, z.unknown().optional().transform(() => undefined)]));

/** `POST …/cohorts/` (also the multipart form's fields, which arrive as text): unknown keys refused, read-only ones ignored. */
/** The create fields without the legacy `groups` reading (tRPC and the form, which never send them). */
export const cohortCreateFields = z.strictObject({
  ...readOnly,
  name: writable.name.optional().transform((name) => name ?? ""),
  description: writable.description.optional().transform((text) => text ?? ""),
  is_static: writable.is_static.optional().transform((value) => value ?? false),
  filters: writable.filters.optional(),
  query: writable.query.optional(),
  /** Static cohorts: the persons (uuids) to start with. */
  _create_static_person_ids: z
    .array(uuidSchema, { error: "Expected a list of person uuids." })
    .max(COHORT_LIMITS.maxCreatePersonIds, `At most ${COHORT_LIMITS.maxCreatePersonIds} person ids.`)
    .optional(),
});
export const cohortCreateBody = z.preprocess(withLegacyGroups, cohortCreateFields);
export type CohortCreateBody = z.output<typeof cohortCreateFields>;
export type CohortCreateInput = z.input<typeof cohortCreateFields>;

/** `PATCH …/cohorts/:id/`: the given fields change; `deleted: true` is the soft delete, `false` restores. */
export const cohortUpdateFields = z.object({
  name: writable.name.optional(),
  description: writable.description.optional(),
  is_static: writable.is_static.optional(),
  filters: writable.filters.optional(),
  query: writable.query.optional(),
  deleted: drfBoolean.optional(),
});
export const cohortUpdateBody = z.preprocess(withLegacyGroups, cohortUpdateFields);
export type CohortUpdateBody = z.output<typeof cohortUpdateFields>;
export type CohortUpdateInput = z.input<typeof cohortUpdateFields>;

/** `GET …/cohorts/`: PostHog's list filters. */
export const cohortListQuery = pageQuery.extend({
  type: z.enum(["static", "dynamic"], { error: "type must be 'static' or 'dynamic'." }).optional(),
  search: z.string().max(400, "search must be at most 400 characters.").optional(),
  created_by_id: z.coerce.number({ error: "created_by_id must be a user id." }).pipe(recordId("created_by_id must be a user id.")).optional(),
  hide_behavioral_cohorts: drfBoolean.optional(),
});
export type CohortListQuery = z.output<typeof cohortListQuery>;

export const addPersonsBody = z.object({
  person_ids: z
    .array(uuidSchema, { error: "person_ids must be a list of person uuids." })
    .min(1, "person_ids must not be empty.")
    .max(COHORT_LIMITS.maxAddPersons, `At most ${COHORT_LIMITS.maxAddPersons} person ids at a time.`),
});
export type AddPersonsBody = z.output<typeof addPersonsBody>;

export const removePersonBody = z.object({
  person_id: uuidSchema,
});
export type RemovePersonBody = z.output<typeof removePersonBody>;

/** `GET …/cohorts/:id/persons/`: a page of members. */
export const cohortPersonsQuery = pageQuery;
export type CohortPersonsQuery = z.output<typeof cohortPersonsQuery>;

/** PostHog's `cohort_type`: static, or by what the definition reads. */
export const COHORT_TYPES = ["static", "person_property", "behavioral"] as const;
export type CohortType = (typeof COHORT_TYPES)[number];

/** A cohort as PostHog's API shows it (CohortSerializer); present.ts builds it. */
export const cohortSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    /** PostHog's deprecated legacy groups: never written here. */
    groups: z.array(z.never()),
    deleted: z.boolean(),
    filters: z.record(z.string(), z.unknown()).describe("`{properties: PropertyGroup}`: person, cohort and behavioral conditions; {} for a static cohort."),
    query: z.null(),
    is_calculating: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    last_calculation: z.iso.datetime().nullable(),
    errors_calculating: z.number().int(),
    /** Not PostHog's: why the last computation failed, so the page can say it. */
    last_error: z.string().nullable(),
    count: z.number().int().nullable(),
    is_static: z.boolean(),
    cohort_type: z.enum(COHORT_TYPES),
    experiment_set: z.array(z.never()),
  })
  .meta({ id: "Cohort" });
export type CohortResource = z.infer<typeof cohortSchema>;
