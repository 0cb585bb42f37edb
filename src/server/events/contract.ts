/**
 * The events API's contract: its limits, the list's and values' parameters checked and
 * brought into the store's query shape (every problem is a 400 whose `attr` names the
 * parameter), and the explorer's typed filters. Nothing here touches the database or HTTP:
 * the REST edge reads the query string into the parameters (http/rest/resources/events-query.ts).
 * The explorer's half (filters, `filterParams`, `VALUELESS`) is imported by the browser too.
 */
import { z } from "zod";
import { AppError } from "@/server/errors";
import { INT4_MAX } from "@/server/input/record-id";
import { queryCount, queryText } from "@/server/input/query-param";
import { storableText } from "@/server/properties/coerce";
import { parseTimeParam } from "@/server/input/time";

export { parseTimeParam } from "@/server/input/time";
import { PROPERTY_FILTER_TYPES, PROPERTY_OPERATORS, propertiesParamSchema, type PropertyGroup } from "@/server/properties/contract";
import { SqlParams } from "@/server/properties/sql";
import { compileSelect, compileWhere } from "@/server/hogql/compile";
import { located, parseExpr, parseExpressionList, parseSelectItem } from "@/server/hogql/parse";
import { EVENT_VALUES_LIMITS, type EventFormat, type EventListQuery, type EventValuesQuery } from "@/server/db/events/list/query";

export const EVENT_LIMITS = {
  /** JSON pages: PostHog's page size, and the most one page may hold. */
  defaultLimit: 100,
  maxLimit: 1000,
  /** CSV exports: PostHog's defaults. */
  csvDefaultLimit: 3500,
  csvMaxLimit: 100_000,
  /** Rows fetched per query while a CSV export streams. */
  csvChunk: 1000,
  /** `values/`: how many values, and how many of the newest events having the key are looked at. */
  valuesLimit: EVENT_VALUES_LIMITS.limit,
  valuesSample: EVENT_VALUES_LIMITS.sample,
  /** Longest text accepted in one parameter (event names, ids, keys) and for `properties`. */
  maxText: 10_000,
  maxPropertiesJson: 100_000,
  maxOffset: 2_147_483_647,
  /** The explorer's "of N matching events" counts this far, then says "N+" (a wide filter stays fast). */
  countCap: 100_000,
} as const;

export type { EventFormat, EventListQuery, EventValuesQuery } from "@/server/db/events/list/query";

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A uuid in its canonical form (lower case, dashed), or null. Dashes may be left out. */
export function canonicalUuid(text: string): string | null {
  if (!UUID_RE.test(text)) return null;
  const hex = text.replace(/-/g, "").toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** One text value of a query parameter (a repeated parameter is a 400). */
const text = (name: string) => queryText(name, EVENT_LIMITS.maxText);
const count = queryCount;

/** The events list's query string (PostHog's names); the REST edge reads it into `listQueryOf`. */
export const eventListParams = z.object({
  format: z.enum(["json", "csv"], { error: "format must be 'json' or 'csv'." }).optional(),
  limit: count("limit", EVENT_LIMITS.maxOffset).optional(),
  offset: count("offset", EVENT_LIMITS.maxOffset).optional(),
  after: text("after").optional(),
  before: text("before").optional(),
  before_uuid: text("before_uuid").optional(),
  event: text("event").optional(),
  distinct_id: text("distinct_id").optional(),
  person_id: text("person_id").optional(),
  action_id: text("action_id")
    .refine((value) => /^[0-9]{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= 2_147_483_647, "action_id must be an action's integer id.")
    .optional(),
  properties: z
    .string({ error: "properties must be given once." })
    .max(EVENT_LIMITS.maxPropertiesJson, `properties must be at most ${EVENT_LIMITS.maxPropertiesJson} characters.`)
    .optional(),
  select: z
    .string({ error: "select must be given once." })
    .max(EVENT_LIMITS.maxPropertiesJson, `select must be at most ${EVENT_LIMITS.maxPropertiesJson} characters.`)
    .optional(),
  where: z
    .string({ error: "where must be given once." })
    .max(EVENT_LIMITS.maxPropertiesJson, `where must be at most ${EVENT_LIMITS.maxPropertiesJson} characters.`)
    .optional(),
});

/**
 * `select` / `where`: parsed, and compiled once on no data so that every error in them
 * (unknown names, wrong types) is a 400 before any query runs.
 */
function parseHogqlParams(select: string | undefined, where: string | undefined): Pick<EventListQuery, "select" | "where"> {
  const out: Pick<EventListQuery, "select" | "where"> = {};
  const check = { params: new SqlParams(), columns: { event: "e.properties", person: "pp.properties" } };
  if (select !== undefined) {
    const items = parseExpressionList("select", select).map((text, i) => located("select", i, () => parseSelectItem(storableText(text))));
    if (items.length === 0) throw new AppError("invalid_input", "select must name at least one expression.", "select");
    compileSelect(items, check);
    out.select = items;
  }
  if (where !== undefined) {
    const exprs = parseExpressionList("where", where).map((text, i) => located("where", i, () => parseExpr(storableText(text))));
    compileWhere(exprs, check);
    if (exprs.length > 0) out.where = exprs;
  }
  return out;
}

/** The `properties` parameter: PostHog's JSON list (or group) of property filters. */
export function parsePropertiesParam(value: string): PropertyGroup | null {
  if (value.trim() === "") return null;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new AppError("invalid_input", "properties must be a JSON list of property filters.", "properties");
  }
  const result = propertiesParamSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
    throw new AppError("invalid_input", where ? `properties${where}: ${issue.message}` : `properties: ${issue.message}`, "properties");
  }
  return result.data.values.length === 0 ? null : result.data;
}

function parsePersonId(value: string): EventListQuery["personId"] {
  const uuid = canonicalUuid(value);
  if (uuid) return { uuid };
  if (/^[0-9]{1,10}$/.test(value) && Number(value) <= 2_147_483_647) return { id: Number(value) };
  throw new AppError("invalid_input", "person_id must be a person's uuid or integer id.", "person_id");
}

/** Wants CSV: `format=csv`, or no format and an Accept header naming text/csv. */
function formatOf(format: EventFormat | undefined, accept: string | null): EventFormat {
  if (format) return format;
  return accept && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept) ? "csv" : "json";
}

/** The named list parameters that are not empty, one value each, or a list when repeated (a 400). */
export type EventListParams = Record<string, string | string[]>;

/** The list's parameter names (what the REST edge reads of the query string). */
export const EVENT_LIST_PARAMS = Object.keys(eventListParams.shape);

/**
 * The list's parameters, by their REST names, checked and brought into one shape: the REST
 * query string and the explorer's typed filters (`filterParams` below) both end here.
 */
/** The list's query as the API reads it: the store's, and an action whose steps narrow it (the service resolves it into property filters). */
export interface EventListRequest extends EventListQuery {
  actionId: number | null;
}

export function listQueryOf(params: EventListParams, accept: string | null, now: Date): EventListRequest {
  const parsed = eventListParams.parse(params);
  const format = formatOf(parsed.format, accept);
  const [defaultLimit, maxLimit] = format === "csv" ? [EVENT_LIMITS.csvDefaultLimit, EVENT_LIMITS.csvMaxLimit] : [EVENT_LIMITS.defaultLimit, EVENT_LIMITS.maxLimit];
  if (parsed.limit !== undefined && parsed.limit > maxLimit) {
    throw new AppError("invalid_input", `limit must be at most ${maxLimit}${format === "csv" ? " for CSV" : ""}.`, "limit");
  }
  const before = parsed.before === undefined ? null : parseTimeParam("before", parsed.before, now);
  let beforeUuid: string | null = null;
  if (parsed.before_uuid !== undefined) {
    beforeUuid = canonicalUuid(parsed.before_uuid);
    if (!beforeUuid) throw new AppError("invalid_input", "before_uuid must be a uuid.", "before_uuid");
    if (!before) throw new AppError("invalid_input", "before_uuid needs before.", "before_uuid");
  }
  return {
    format,
    limit: parsed.limit || defaultLimit, // 0 reads as the default, as DRF does
    offset: parsed.offset ?? 0,
    after: parsed.after === undefined ? null : parseTimeParam("after", parsed.after, now),
    before,
    beforeUuid,
    event: parsed.event ?? null,
    distinctId: parsed.distinct_id ?? null,
    personId: parsed.person_id === undefined ? null : parsePersonId(parsed.person_id),
    properties: parsed.properties === undefined ? null : parsePropertiesParam(parsed.properties),
    actionId: parsed.action_id === undefined ? null : Number(parsed.action_id),
    ...parseHogqlParams(parsed.select, parsed.where),
  };
}

/** `values/`'s query string. */
export const eventValuesParams = z.object({
  key: text("key"),
  value: text("value").optional(),
  event_name: text("event_name").optional(),
  format: z.enum(["json"], { error: "format must be 'json'." }).optional(),
});

/** The values parameter names (what the REST edge reads of the query string). */
export const EVENT_VALUES_PARAMS = Object.keys(eventValuesParams.shape);

/** `values/`'s parameters, by their REST names (the edge has checked that `key` is given). */
export function valuesQueryOf(params: EventListParams): EventValuesQuery {
  const parsed = eventValuesParams.parse(params);
  return { key: parsed.key, prefix: parsed.value || null, eventName: parsed.event_name ?? null };
}

// The explorer's filters (tRPC `events.list`, the "Export CSV" link) as typed input, and the
// list parameters they stand for: the explorer builds its CSV link from `filterParams`, and
// the server reads the same parameters with `listQueryOf`, so a bad `after` or property
// filter is the same 400 there as in the REST list.

/** Operators that take no value. */
export const VALUELESS = new Set<string>(["is_set", "is_not_set"]);

export const propertyFilterInput = z.object({
  key: z.string().max(10_000),
  operator: z.enum(PROPERTY_OPERATORS),
  value: z.string().max(10_000).optional(),
  type: z.enum(PROPERTY_FILTER_TYPES).default("event"),
});
export type PropertyFilterInput = z.input<typeof propertyFilterInput>;

/** A cohort row of the filter bar: the person is (or is not) in the cohort; `cohortId` 0 is "none chosen yet" and left out. */
export const cohortFilterInput = z.object({
  type: z.literal("cohort"),
  cohortId: z.number().int().min(0).max(INT4_MAX),
  operator: z.enum(["in", "not_in"]).default("in"),
});
export type CohortFilterInput = z.input<typeof cohortFilterInput>;
export type FilterRowInput = PropertyFilterInput | CohortFilterInput;

export const isCohortRow = (row: FilterRowInput): row is CohortFilterInput => row.type === "cohort";

export const eventFiltersInput = z.object({
  event: z.string().max(10_000).optional(),
  distinctId: z.string().max(10_000).optional(),
  /** ISO 8601, a relative time (-1h, -7d …) or `now`, as the REST API accepts. */
  after: z.string().max(100).optional(),
  before: z.string().max(100).optional(),
  /** A person's uuid or integer id, as the REST list's `person_id`. */
  personId: z.string().max(100).optional(),
  properties: z.array(z.union([cohortFilterInput, propertyFilterInput])).max(50).optional(),
});
export type EventFilters = z.input<typeof eventFiltersInput>;

/**
 * The list parameters of a filter, by their REST names. Blank fields and property rows
 * without a key are left out (as the REST API treats an empty parameter as not given).
 */
export function filterParams(filters: EventFilters): Record<string, string> {
  const params: Record<string, string> = {};
  if (filters.event?.trim()) params.event = filters.event.trim();
  if (filters.distinctId?.trim()) params.distinct_id = filters.distinctId.trim();
  if (filters.after?.trim()) params.after = filters.after.trim();
  if (filters.before?.trim()) params.before = filters.before.trim();
  if (filters.personId?.trim()) params.person_id = filters.personId.trim();
  const properties = (filters.properties ?? [])
    .filter((filter) => (isCohortRow(filter) ? filter.cohortId > 0 : filter.key.trim() !== ""))
    .map((filter) => {
      if (isCohortRow(filter)) return { type: "cohort", key: "id", value: filter.cohortId, operator: filter.operator ?? "in" };
      const type = filter.type ?? "event";
      if (VALUELESS.has(filter.operator)) return { key: filter.key.trim(), operator: filter.operator, type };
      return { key: filter.key.trim(), operator: filter.operator, value: filter.value ?? "", type };
    });
  if (properties.length > 0) params.properties = JSON.stringify(properties);
  return params;
}

/** Where the next page of the explorer's list starts: the last row shown. */
export const eventPageCursor = z.object({ before: z.string().max(100), beforeUuid: z.string().max(100) });
export type EventPageCursor = z.infer<typeof eventPageCursor>;


// What the events API answers (the OpenAPI document's schemas; present.ts builds them).

/** A stored event as PostHog's events API shows it. */
export const eventSchema = z
  .object({
    id: z.string().describe("The event's uuid."),
    distinct_id: z.string(),
    properties: z.record(z.string(), z.unknown()),
    event: z.string(),
    timestamp: z.iso.datetime(),
    person: z.object({ is_identified: z.boolean(), distinct_ids: z.array(z.string()), properties: z.record(z.string(), z.unknown()) }).nullable(),
    elements: z.array(z.unknown()),
    elements_chain: z.string(),
  })
  .meta({ id: "Event" });
export type EventResource = z.infer<typeof eventSchema>;

/** A page of the list: newest first; `next` is this request's URL moved on by a `before` cursor. */
export const eventPageSchema = z.object({ next: z.string().nullable(), results: z.array(eventSchema) }).meta({ id: "EventPage" });

/** A page of `select` rows: one value per expression, in select order. */
export const eventSelectPageSchema = z
  .object({ columns: z.array(z.string()), types: z.array(z.string()), results: z.array(z.array(z.unknown())), next: z.string().nullable() })
  .meta({ id: "EventSelectPage" });

/** `values/`: a property's values, most frequent first. */
export const eventValuesSchema = z.array(z.object({ name: z.unknown() })).meta({ id: "EventPropertyValues" });
