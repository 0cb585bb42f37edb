/**
 * The query parameters of the events API, checked and brought into one shape. Every
 * problem is a 400 whose `attr` names the parameter; nothing here touches the database.
 */
import { z } from "zod";
import { AppError } from "@/server/errors";
import { isStorableDate, parseIsoDate, relativeDate, storableText } from "@/server/properties/coerce";
import { propertiesParamSchema, type PropertyGroup } from "@/server/properties/contract";
import { SqlParams } from "@/server/properties/sql";
import { compileSelect, compileWhere } from "./hogql/compile";
import { located, parseExpr, parseExpressionList, parseSelectItem, type Expr, type SelectItem } from "./hogql/parse";

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
  valuesLimit: 50,
  valuesSample: 100_000,
  /** Longest text accepted in one parameter (event names, ids, keys) and for `properties`. */
  maxText: 10_000,
  maxPropertiesJson: 100_000,
  maxOffset: 2_147_483_647,
} as const;

export type EventFormat = "json" | "csv";

export interface EventListQuery {
  format: EventFormat;
  limit: number;
  offset: number;
  after: Date | null;
  before: Date | null;
  /** Tie-breaker of `before` (set by `next` links): events at `before` with a smaller uuid also count. */
  beforeUuid: string | null;
  event: string | null;
  distinctId: string | null;
  /** A person's uuid, or their integer id. */
  personId: { uuid: string } | { id: number } | null;
  properties: PropertyGroup | null;
  /** Experimental `select` (HogQL subset): the answer is rows of these columns. Absent when not given. */
  select?: SelectItem[];
  /** Experimental `where` (HogQL subset): conditions ANDed with the other filters. Absent when not given. */
  where?: Expr[];
}

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A uuid in its canonical form (lower case, dashed), or null. Dashes may be left out. */
export function canonicalUuid(text: string): string | null {
  if (!UUID_RE.test(text)) return null;
  const hex = text.replace(/-/g, "").toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** One text value of a query parameter (a repeated parameter is a 400). */
function text(name: string) {
  return z
    .string({ error: `${name} must be given once.` })
    .max(EVENT_LIMITS.maxText, `${name} must be at most ${EVENT_LIMITS.maxText} characters.`)
    .transform(storableText);
}

function count(name: string, max: number) {
  return z
    .string({ error: `${name} must be given once.` })
    .regex(/^[0-9]{1,10}$/, `${name} must be a non-negative integer.`)
    .transform(Number)
    .refine((n) => n <= max, `${name} must be at most ${max}.`);
}

const listSchema = z.object({
  format: z.enum(["json", "csv"], { error: "format must be 'json' or 'csv'." }).optional(),
  limit: count("limit", EVENT_LIMITS.maxOffset).optional(),
  offset: count("offset", EVENT_LIMITS.maxOffset).optional(),
  after: text("after").optional(),
  before: text("before").optional(),
  before_uuid: text("before_uuid").optional(),
  event: text("event").optional(),
  distinct_id: text("distinct_id").optional(),
  person_id: text("person_id").optional(),
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

/** Parameters of PostHog's that Burrow does not serve yet: a 400 rather than silently ignoring them. */
const NOT_SUPPORTED: Record<string, string> = {
  action_id: "action_id is not supported yet: Burrow has no actions.",
};

const TIME_HELP =
  "an ISO 8601 date or time (2024-01-31, 2024-01-31T12:00:00Z, 2024-01-31T12:00:00.123+02:00) " +
  "or a relative time: -<n>h (hours), -<n>d (days), -<n>w (weeks), -<n>m (months), -<n>q (quarters), -<n>y (years), or now";

/**
 * `after`/`before`: `now`, a relative time (`-1d`, `-2h`, `-1w`, `-1m` is a month, `-1y`),
 * or ISO 8601 (no offset means UTC). A `+` of an offset that arrived as a space (an
 * unencoded `+` in a URL) is read as `+`.
 */
export function parseTimeParam(name: string, value: string, now: Date): Date {
  let date: Date | null = null;
  if (value === "now") date = now;
  else if (value.startsWith("-")) date = relativeDate(value, now);
  else date = parseIsoDate(value.replace(/^(.*[T ][0-9:.]+) ([0-9]{2}(:?[0-9]{2})?)$/, "$1+$2"));
  if (!date || !isStorableDate(date)) throw new AppError("invalid_input", `${name} must be ${TIME_HELP}.`, name);
  return date;
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

/**
 * The named parameters: one value as a string, a repeated one as a list (which the schemas
 * reject). An empty value counts as not given, as PostHog's `if request.GET.get(…)`.
 */
function paramsOf(url: URL, names: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of names) {
    const values = url.searchParams.getAll(name);
    if (values.length === 1 && values[0] === "") continue;
    if (values.length > 0) out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/** Wants CSV: `format=csv`, or no format and an Accept header naming text/csv. */
function formatOf(format: EventFormat | undefined, accept: string | null): EventFormat {
  if (format) return format;
  return accept && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept) ? "csv" : "json";
}

export function parseListQuery(url: URL, accept: string | null, now: Date): EventListQuery {
  for (const [name, detail] of Object.entries(NOT_SUPPORTED)) {
    if (url.searchParams.has(name)) throw new AppError("invalid_input", detail, name);
  }
  const orderBy = url.searchParams.get("orderBy");
  if (orderBy !== null && !/^\[\s*"-timestamp"\s*\]$/.test(orderBy)) {
    throw new AppError("invalid_input", 'orderBy supports only ["-timestamp"] (newest first) for now.', "orderBy");
  }
  return listQueryOf(paramsOf(url, Object.keys(listSchema.shape)), accept, now);
}

/** The named list parameters that are not empty, one value each, or a list when repeated (a 400). */
export type EventListParams = Record<string, string | string[]>;

/**
 * The list's parameters, by their REST names, checked and brought into one shape: the REST
 * query string and the explorer's typed filters (filters.ts) both end here.
 */
export function listQueryOf(params: EventListParams, accept: string | null, now: Date): EventListQuery {
  const parsed = listSchema.parse(params);
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
    ...parseHogqlParams(parsed.select, parsed.where),
  };
}

export interface EventValuesQuery {
  key: string;
  prefix: string | null;
  eventName: string | null;
}

const valuesSchema = z.object({
  key: text("key"),
  value: text("value").optional(),
  event_name: text("event_name").optional(),
  format: z.enum(["json"], { error: "format must be 'json'." }).optional(),
});

export function parseValuesQuery(url: URL): EventValuesQuery {
  if (!url.searchParams.get("key")) throw new AppError("invalid_input", "key is required: the property whose values to list.", "key");
  const parsed = valuesSchema.parse(paramsOf(url, Object.keys(valuesSchema.shape)));
  return { key: parsed.key, prefix: parsed.value || null, eventName: parsed.event_name ?? null };
}
