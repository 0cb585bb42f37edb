/**
 * Property filters compiled to a ClickHouse boolean expression over the events' JSON
 * String column, with the semantics of properties/match.ts and properties/sql.ts (see
 * there): ASCII-only case folding (ClickHouse's `lower` folds ASCII only), numbers and
 * booleans compared by their JSON text, numeric comparison when both sides are numbers.
 * Regular expressions are RE2's (`match`), not PostgreSQL's.
 *
 * Persons live in PostgreSQL, so a person-property filter is evaluated there first
 * (`resolvePersonFilters`, with properties/sql.ts itself) into the set of person uuids it
 * holds for, or the set it fails for when it also holds for events without a person; the
 * ClickHouse expression then tests the event's `person_id` against that set.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { AppError } from "@/server/errors";
import { filterDate, fold, ISO_DATE_TEXT, numberOf, textOf } from "@/server/properties/coerce";
import { isPropertyGroup, type PropertyFilter, type PropertyNode, type ScalarValue } from "@/server/properties/contract";
import { propertiesSql, SqlParams } from "@/server/properties/sql";
import { chNumericText } from "./hogql";
import type { ChParams } from "./params";

/** Persons one filter is resolved to: the uuids it holds for, or (`complement`) those it fails for. */
export interface PersonSet {
  uuids: string[];
  complement: boolean;
}

/** The most persons one person-property filter may resolve to (they travel as a parameter). */
export const MAX_RESOLVED_PERSONS = 20_000;

export interface ChPropertyContext {
  params: ChParams;
  /** The events' JSON properties column. */
  column: string;
  /** The events' person uuid column. */
  personColumn: string;
  persons: ReadonlyMap<PropertyFilter, PersonSet>;
  now: Date;
}

const COMPARE = { gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;
const SCALAR_TYPES = "('String', 'Int64', 'UInt64', 'Double', 'Bool')";

function one(value: PropertyFilter["value"]): ScalarValue {
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function personLeaves(node: PropertyNode): PropertyFilter[] {
  if (isPropertyGroup(node)) return node.values.flatMap(personLeaves);
  return node.type === "person" ? [node] : [];
}

/**
 * A condition on a person's properties alone, evaluated in PostgreSQL over the project's
 * persons: the persons it holds for — or, when it also holds for an event without a
 * (stored) person, the persons it fails for. `condition` writes it for the person
 * properties in `person` (NULL: no person). More than MAX_RESOLVED_PERSONS is a 400,
 * `tooMany(complement)` saying why.
 */
export async function resolvePersonSet(
  sql: SqlExecutor,
  projectId: number,
  condition: (params: SqlParams, person: string) => string,
  tooMany: (complement: boolean) => AppError,
): Promise<PersonSet> {
  const without = new SqlParams();
  const [{ holds }] = (await sql.query<{ holds: boolean }>(`SELECT (${condition(without, "NULL::jsonb")}) IS TRUE AS holds`, without.values)) as [{ holds: boolean }];
  const params = new SqlParams();
  const test = `(${condition(params, "p.properties")}) IS ${holds ? "NOT TRUE" : "TRUE"}`;
  const rows = await sql.query<{ uuid: string }>(
    `SELECT p.uuid::text AS uuid FROM persons p WHERE p.project_id = ${params.add(projectId, "int")} AND ${test} LIMIT ${params.add(MAX_RESOLVED_PERSONS + 1, "int")}`,
    params.values,
  );
  if (rows.length > MAX_RESOLVED_PERSONS) throw tooMany(holds);
  return { uuids: rows.map((row) => row.uuid), complement: holds };
}

/** Each person-property filter of `node`, resolved by resolvePersonSet. */
export async function resolvePersonFilters(sql: SqlExecutor, projectId: number, node: PropertyNode | null, now: Date): Promise<Map<PropertyFilter, PersonSet>> {
  const sets = new Map<PropertyFilter, PersonSet>();
  if (!node) return sets;
  for (const leaf of personLeaves(node)) {
    const set = await resolvePersonSet(
      sql,
      projectId,
      // A person-less event reads no properties at all: '{}' as the list's own SQL has it.
      (params, person) => propertiesSql(leaf, { params, columns: { event: "'{}'::jsonb", person: `COALESCE(${person}, '{}'::jsonb)` }, now }),
      (complement) =>
        new AppError(
          "invalid_input",
          `properties: the person filter on "${leaf.key}" ${complement ? "excludes" : "matches"} more than ${MAX_RESOLVED_PERSONS} persons, more than the ClickHouse event store takes; narrow it.`,
          "properties",
        ),
    );
    sets.set(leaf, set);
  }
  return sets;
}

/** The test that an event's person is in a resolved set (an event without a person is in no set). */
export function personSetSql(set: PersonSet, params: ChParams, personColumn: string): string {
  const member = `has(${params.add(set.uuids, "uuid[]")}, ${personColumn})`;
  return set.complement ? `(NOT ${member})` : member;
}

function filterSql(filter: PropertyFilter, context: ChPropertyContext): string {
  const { params, column } = context;
  if (filter.type === "person") {
    // Negation is part of the resolved set (the leaf was evaluated whole).
    return personSetSql(context.persons.get(filter)!, params, context.personColumn);
  }
  const key = params.add(filter.key, "text");
  const type = `JSONType(${column}, ${key})`;
  const has = `JSONHas(${column}, ${key})`;
  // textOf: strings as they are, numbers and booleans as JSON writes them, null (and
  // objects/arrays) as 'null', missing as NULL. Read from the value's raw JSON ('' when
  // missing), so that the event's JSON is parsed once, not once per test of its type.
  const raw = `JSONExtractRaw(${column}, ${key})`;
  const text = `multiIf(${raw} = '', NULL, startsWith(${raw}, '"'), JSONExtractString(${raw}), startsWith(${raw}, '[') OR startsWith(${raw}, '{'), 'null', ${raw})`;
  const negated = (operator: string, sql: string) => (filter.operator === operator ? sql : `(NOT ${sql})`);

  switch (filter.operator) {
    case "is_set":
      return has;
    case "is_not_set":
      return `(NOT ${has})`;
    case "exact":
    case "is_not": {
      const listed = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((item) => fold(textOf(item)!));
      return negated("exact", `ifNull(has(${params.add(listed, "text[]")}, lower(${text})), false)`);
    }
    case "icontains":
    case "not_icontains": {
      const needle = params.add(fold(textOf(one(filter.value))!), "text");
      return negated("icontains", `ifNull(position(lower(${text}), ${needle}) > 0, false)`);
    }
    case "regex":
    case "not_regex":
      return negated("regex", `ifNull(match(${text}, ${params.add(String(one(filter.value)), "text")}), false)`);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const op = COMPARE[filter.operator];
      const target = one(filter.value);
      const raw = `if(${type} = 'String', JSONExtractString(${column}, ${key}), JSONExtractRaw(${column}, ${key}))`;
      const byText = `(${raw} ${op} ${params.add(textOf(target), "text")})`;
      const targetNumber = numberOf(target);
      let comparison = byText;
      if (targetNumber !== null) {
        const number =
          `multiIf(${type} IN ('Int64', 'UInt64', 'Double'), toNullable(JSONExtractFloat(${column}, ${key})),` +
          ` ${type} = 'String', ${chNumericText(`JSONExtractString(${column}, ${key})`, params)}, NULL)`;
        comparison = `if(${number} IS NOT NULL, ifNull(${number} ${op} ${params.add(targetNumber, "float8")}, false), ${byText})`;
      }
      return `(${type} IN ${SCALAR_TYPES} AND ${comparison})`;
    }
    case "is_date_before":
    case "is_date_after": {
      const target = filterDate(String(one(filter.value)), context.now);
      if (!target) return "false";
      const value = `JSONExtractString(${column}, ${key})`;
      const date = `if(${type} = 'String' AND match(${value}, ${params.constant(ISO_DATE_TEXT)}), parseDateTime64BestEffortOrNull(${value}, 3, 'UTC'), NULL)`;
      const op = filter.operator === "is_date_before" ? "<" : ">";
      return `ifNull(${date} ${op} ${params.add(target.toISOString(), "timestamptz")}, false)`;
    }
  }
}

/** A boolean ClickHouse expression that holds where the filter or group does; an empty group is true. */
export function chPropertiesSql(node: PropertyNode, context: ChPropertyContext): string {
  if (isPropertyGroup(node)) {
    if (node.values.length === 0) return "true";
    const parts = node.values.map((child) => chPropertiesSql(child, context));
    return `(${parts.join(node.type === "AND" ? " AND " : " OR ")})`;
  }
  const sql = filterSql(node, context);
  return node.negation && node.type !== "person" ? `(NOT ${sql})` : sql;
}
