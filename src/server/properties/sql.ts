/**
 * Property filters compiled to a PostgreSQL boolean expression over a jsonb column, with
 * the semantics of match.ts (see there). Every value the caller gave — property keys
 * included — goes in as a bind parameter; the SQL text holds only this file's constants
 * and the column expressions the caller passes in.
 */
import { filterDate, ISO_DATE_TEXT, LOWER_ASCII, MAX_NUMERIC_TEXT_LENGTH, NUMERIC_TEXT, fold, numberOf, textOf, UPPER_ASCII } from "./coerce";
import { isPropertyGroup, type PropertyFilter, type PropertyNode, type ScalarValue } from "./contract";

type Cast = "text" | "text[]" | "float8" | "timestamptz" | "int" | "bigint" | "uuid" | "uuid[]";

/** Bind parameters of one statement: `add` returns the placeholder (`$3::text`). */
export class SqlParams {
  readonly values: unknown[] = [];
  private readonly constants = new Map<string, string>();

  add(value: unknown, cast: Cast): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }

  /** A value this code supplies, bound once however often it is used. */
  constant(value: string, cast: Cast = "text"): string {
    const id = `${cast}:${value}`;
    let placeholder = this.constants.get(id);
    if (!placeholder) {
      placeholder = this.add(value, cast);
      this.constants.set(id, placeholder);
    }
    return placeholder;
  }
}

/** `text` as a LIKE / ILIKE pattern (backslash escapes, PostgreSQL's default) that matches only itself: its `%`, `_` and backslashes escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/** A LIKE / ILIKE pattern matching any text that contains `text` literally. */
export function containsPattern(text: string): string {
  return `%${likeLiteral(text)}%`;
}

export interface PropertySqlContext {
  params: SqlParams;
  /** SQL for the jsonb each filter type reads, never null (e.g. `e.properties`, `COALESCE(p.properties, '{}'::jsonb)`). */
  columns: { event: string; person: string };
  /** The time relative dates count back from. */
  now: Date;
}

const COMPARE = { gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;

function one(value: PropertyFilter["value"]): ScalarValue {
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function filterSql(filter: PropertyFilter, context: PropertySqlContext): string {
  const { params } = context;
  const column = filter.type === "person" ? context.columns.person : context.columns.event;
  const key = params.add(filter.key, "text");
  const node = `(${column} -> ${key})`;
  const raw = `(${column} ->> ${key})`;
  const kind = `jsonb_typeof(${node})`;
  // textOf: strings, numbers and booleans as ->> writes them, null as 'null', objects/arrays none.
  const text = `(CASE ${kind} WHEN 'null' THEN 'null' WHEN 'string' THEN ${raw} WHEN 'number' THEN ${raw} WHEN 'boolean' THEN ${raw} END)`;
  const folded = (sql: string) => `translate(${sql}, ${params.constant(UPPER_ASCII)}, ${params.constant(LOWER_ASCII)})`;

  switch (filter.operator) {
    case "is_set":
      return `(${column} ? ${key})`;
    case "is_not_set":
      return `(NOT (${column} ? ${key}))`;
    case "exact":
    case "is_not": {
      const listed = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((item) => fold(textOf(item)!));
      const equal = `COALESCE(${folded(text)} = ANY(${params.add(listed, "text[]")}), false)`;
      return filter.operator === "exact" ? equal : `(NOT ${equal})`;
    }
    case "icontains":
    case "not_icontains": {
      const needle = params.add(fold(textOf(one(filter.value))!), "text");
      const contains = `COALESCE(strpos(${folded(text)}, ${needle}) > 0, false)`;
      return filter.operator === "icontains" ? contains : `(NOT ${contains})`;
    }
    case "regex":
    case "not_regex": {
      const found = `COALESCE(${text} ~ ${params.add(String(one(filter.value)), "text")}, false)`;
      return filter.operator === "regex" ? found : `(NOT ${found})`;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const op = COMPARE[filter.operator];
      const target = one(filter.value);
      const byText = `(${raw} COLLATE "C" ${op} ${params.add(textOf(target), "text")})`;
      const targetNumber = numberOf(target);
      let comparison = byText;
      if (targetNumber !== null) {
        // numberOf: a JSON number, or a string that is a short decimal number (never overflows float8).
        const number =
          `(CASE ${kind}` +
          ` WHEN 'number' THEN (CASE WHEN abs((${node})::numeric) <= 1.7976931348623157e308 THEN ((${node})::numeric)::float8 END)` +
          ` WHEN 'string' THEN (CASE WHEN length(${raw}) <= ${params.constant(String(MAX_NUMERIC_TEXT_LENGTH), "int")}` +
          ` THEN (CASE WHEN ${raw} ~ ${params.constant(NUMERIC_TEXT)} THEN (${raw})::float8 END) END) END)`;
        comparison = `(CASE WHEN ${number} IS NOT NULL THEN ${number} ${op} ${params.add(targetNumber, "float8")} ELSE ${byText} END)`;
      }
      return `COALESCE(${kind} IN ('string', 'number', 'boolean') AND ${comparison}, false)`;
    }
    case "is_date_before":
    case "is_date_after": {
      const target = filterDate(String(one(filter.value)), context.now);
      if (!target) return "false";
      // dateOf: ISO_DATE_TEXT strings only; the calendar check keeps the cast from failing.
      const year = `substr(${raw}, 1, 4)::int`;
      const month = `substr(${raw}, 6, 2)::int`;
      const day = `substr(${raw}, 9, 2)::int`;
      const lastDay = `extract(day from make_date(${year}, ${month}, 1) + interval '1 month' - interval '1 day')`;
      const withZone = `${raw} ~ ${params.constant("[T ].*(Z|[+-][0-9]{2}(:?[0-9]{2})?)$")}`;
      const cast = `date_trunc('milliseconds', CASE WHEN ${withZone} THEN (${raw})::timestamptz ELSE ((${raw})::timestamp AT TIME ZONE 'UTC') END)`;
      const date =
        `(CASE WHEN ${kind} = 'string' THEN (CASE WHEN ${raw} ~ ${params.constant(ISO_DATE_TEXT)}` +
        ` THEN (CASE WHEN ${year} >= 1 THEN (CASE WHEN ${day} <= ${lastDay} THEN ${cast} END) END) END) END)`;
      const op = filter.operator === "is_date_before" ? "<" : ">";
      return `COALESCE(${date} ${op} ${params.add(target.toISOString(), "timestamptz")}, false)`;
    }
  }
}

/** A boolean SQL expression that holds where the filter or group does; an empty group is TRUE. */
export function propertiesSql(node: PropertyNode, context: PropertySqlContext): string {
  if (isPropertyGroup(node)) {
    if (node.values.length === 0) return "TRUE";
    const parts = node.values.map((child) => propertiesSql(child, context));
    return `(${parts.join(node.type === "AND" ? " AND " : " OR ")})`;
  }
  const sql = filterSql(node, context);
  return node.negation ? `(NOT ${sql})` : sql;
}

/** Whether a group reads person properties (the caller then joins persons). */
export function readsPersonProperties(node: PropertyNode): boolean {
  return isPropertyGroup(node) ? node.values.some(readsPersonProperties) : node.type === "person";
}
