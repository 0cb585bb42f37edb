/**
 * The one table of property-filter operators. A row says what value the operator takes and
 * how each target computes it: the events semantics (the events API, insights,
 * transformations) in memory and in SQL (one expression over the database's dialect,
 * sql/: PostgreSQL's and ClickHouse's) — implementations that must agree, checked by
 * db/events/filters/properties.int.test.ts — and the flags semantics
 * (PostHog's flags service, as posthog-node mirrors it), in memory. `differs` is the
 * semantics column: where flags and events read the same filter differently, and why.
 *
 * A negative operator (is_not, not_icontains, …) is the row it `negates`, inverted: it holds
 * where that fails, on a missing property too. A positive implementation answers null where
 * neither should hold (a regular expression that cannot run).
 *
 * Adding an operator: a row here (the events column, or none when only flags have it), its
 * name in contract.ts's PROPERTY_OPERATORS when the events API takes it, and rows in the test
 * table (db/events/properties.int.test.ts).
 */
import type { Binder } from "@/server/sql/bind";
import type { PropertyRef, PropertySql, SqlDialect } from "@/server/sql/dialect";
import { compareCodePoints, dateOf, filterDate, fold, numberOf, textOf } from "./coerce";
import type { PropertyFilter, ScalarValue } from "./contract";
import { compareSemver, dateFrom, flagValueText, isBooleanLike, isTruthy, looseText, parseSemver, relativeFlagDate, semverRange } from "./flag-coerce";
import { regexFinds } from "./regex";

/** A present property as the events matcher reads it (coerce.ts): its value and its text (null: objects and arrays). */
export interface MemoryValue {
  value: unknown;
  text: string | null;
}

/** One leaf in SQL: the property of `ref.column` under the bound `ref.key`, in the dialect. */
export interface SqlLeaf {
  dialect: SqlDialect;
  params: Binder;
  ref: PropertyRef;
  /** dialect.property(ref). */
  property: PropertySql;
}

export interface EventsOperator {
  /** In memory, for a present property. */
  memory(present: MemoryValue, filter: PropertyFilter, now: Date): boolean | null;
  /** A boolean SQL expression in the leaf's dialect, false (not NULL) where the operator fails. */
  sql(leaf: SqlLeaf, filter: PropertyFilter, now: Date): string;
}

/** Flags: a present property's value against the filter's value (as stored, unparsed). */
export type FlagsOperator = (actual: unknown, target: unknown, operator: string, now: Date) => boolean | null;

interface PositiveRow {
  /** exact/is_not: a list (any of); is_set/is_not_set: none; others one value. */
  takes: "list" | "one" | "none";
  /** Null for operators only flags have (the events schema refuses them). */
  events: EventsOperator | null;
  flags: FlagsOperator;
  /** Flags: a null value compares as the text "null" (true), or fails the operator (false). */
  flagsNullAsText: boolean;
  /** The semantics column: where flags and events differ. */
  differs: string;
}

interface NegativeRow {
  /** The positive operator's name (a row of the table). */
  negates: string;
}

export type OperatorRow = PositiveRow | NegativeRow;

export function one(value: PropertyFilter["value"]): ScalarValue {
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** A negated SQL test: holds where `sql` (never NULL) fails. */
export function notSql(sql: string): string {
  return `(NOT ${sql})`;
}

const COMPARE_SQL = { gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;
type Order = keyof typeof COMPARE_SQL;

function ordered(operator: Order, order: number): boolean {
  switch (operator) {
    case "gt":
      return order > 0;
    case "gte":
      return order >= 0;
    case "lt":
      return order < 0;
    case "lte":
      return order <= 0;
  }
}

function sign(left: number | string, right: number | string): number {
  return left === right ? 0 : left < right ? -1 : 1;
}

/** gt/gte/lt/lte: numerically when both sides are numbers (or decimal strings), else by text in code point order. */
function comparison(operator: Order): PositiveRow {
  const op = COMPARE_SQL[operator];
  return {
    takes: "one",
    differs:
      "Flags read numbers with parseFloat (\"10abc\" is 10) and compare other text in UTF-16 order; events read only decimal numbers (coerce.ts NUMERIC_TEXT) and compare text by code point, as PostgreSQL's C collation. Both never compare a null value.",
    flagsNullAsText: false,
    flags: (actual, target) => {
      const right = typeof target === "number" ? target : parseFloat(String(target));
      const left = typeof actual === "number" ? actual : parseFloat(String(actual));
      if (Number.isFinite(left) && Number.isFinite(right)) return ordered(operator, sign(left, right));
      return ordered(operator, sign(String(actual), String(target)));
    },
    events: {
      memory: ({ value, text }, filter) => {
        if (text === null || value === null) return false;
        const target = one(filter.value);
        const left = numberOf(value);
        const right = numberOf(target);
        if (left !== null && right !== null) return ordered(operator, sign(left, right));
        return ordered(operator, compareCodePoints(text, textOf(target)!));
      },
      sql: ({ dialect, params, ref, property }, filter) => {
        const target = one(filter.value);
        const byText = dialect.compareText(property.scalarText, op, params.add(textOf(target), "text"));
        const targetNumber = numberOf(target);
        let compared = byText;
        if (targetNumber !== null) {
          // numberOf: a JSON number, or a string that is a short decimal number (never overflows).
          const number = dialect.propertyNumber(ref, params);
          compared = dialect.ifElse(`${number} IS NOT NULL`, dialect.orFalse(`${number} ${op} ${params.add(targetNumber, "float8")}`), byText);
        }
        return dialect.orFalse(`${property.isScalar} AND ${compared}`);
      },
    },
  };
}

/** is_date_before/after: the value an ISO 8601 string (coerce.ts dateOf), the filter ISO or relative to now. */
function dateComparison(operator: "is_date_before" | "is_date_after"): PositiveRow {
  const before = operator === "is_date_before";
  const op = before ? "<" : ">";
  return {
    takes: "one",
    differs:
      "Flags read any date JavaScript parses, and epoch numbers, and count relative dates as PostHog's SDKs (months clamp at each step; no quarters); events read only ISO 8601 strings and count months as dateutil.",
    flagsNullAsText: false,
    flags: (actual, target, _operator, now) => {
      if (typeof target === "boolean") return false;
      const limit = relativeFlagDate(String(target), now) ?? dateFrom(target);
      const date = dateFrom(actual);
      if (!limit || !date) return false;
      return before ? date < limit : date > limit;
    },
    events: {
      memory: ({ value }, filter, now) => {
        const date = dateOf(value);
        const target = filterDate(String(one(filter.value)), now);
        if (!date || !target) return false;
        return before ? date.getTime() < target.getTime() : date.getTime() > target.getTime();
      },
      sql: ({ dialect, params, ref }, filter, now) => {
        const target = filterDate(String(one(filter.value)), now);
        if (!target) return "false";
        return dialect.orFalse(`${dialect.propertyDate(ref, params)} ${op} ${params.add(target.toISOString(), "timestamptz")}`);
      },
    },
  };
}

/** Flags' ASCII-folded substring tests over looseText. */
function flagsText(test: (value: string, needle: string) => boolean): FlagsOperator {
  return (actual, target) => test(fold(looseText(actual)), fold(looseText(target)));
}

function flagsOnlyText(test: (value: string, needle: string) => boolean): PositiveRow {
  return { takes: "one", events: null, differs: "Flags only: ASCII-folded, over the value's text as icontains reads it.", flagsNullAsText: true, flags: flagsText(test) };
}

function semverComparison(test: (order: number) => boolean): PositiveRow {
  return {
    takes: "one",
    events: null,
    differs: "Flags only: `major.minor.patch` (leading v, pre-release and build ignored, missing parts 0); an unreadable version fails.",
    flagsNullAsText: false,
    flags: (actual, target) => {
      const left = parseSemver(actual);
      const right = parseSemver(target);
      if (!left || !right) return false;
      return test(compareSemver(left, right));
    },
  };
}

const semverRangeRow: PositiveRow = {
  takes: "one",
  events: null,
  differs: "Flags only: tilde, caret and wildcard ranges as PostHog computes them.",
  flagsNullAsText: false,
  flags: (actual, target, operator) => {
    const version = parseSemver(actual);
    const range = semverRange(operator, target);
    if (!version || !range) return false;
    return compareSemver(version, range.lower) >= 0 && compareSemver(version, range.upper) < 0;
  },
};

/** Flags' exact: truthiness when the filter is boolean-like, else lower-cased (Unicode) text, any of a list. */
function flagsExact(target: unknown, actual: unknown): boolean {
  if (isBooleanLike(target)) return isTruthy(target) === isTruthy(actual);
  const text = flagValueText(actual).toLowerCase();
  if (Array.isArray(target)) return target.some((item) => flagValueText(item).toLowerCase() === text);
  return flagValueText(target).toLowerCase() === text;
}

export const OPERATORS = {
  exact: {
    takes: "list",
    differs:
      "Flags compare truthiness when the filter value is boolean-like (true/false/\"true\"/\"false\", or a list of only those: false matches anything not truthy) and otherwise lower-case Unicode, objects by their JSON text; events fold ASCII letters only and never match an object or array.",
    flagsNullAsText: true,
    flags: (actual, target) => flagsExact(target, actual),
    events: {
      memory: ({ text }, filter) => {
        const listed = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((item) => fold(textOf(item)!));
        return text !== null && listed.includes(fold(text));
      },
      sql: ({ dialect, params, property }, filter) => {
        const listed = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((item) => fold(textOf(item)!));
        const besidesContainers = listed.every((item) => item !== "null" && !item.startsWith("{") && !item.startsWith("["));
        return dialect.orFalse(dialect.anyOf(dialect.fold(besidesContainers ? property.textBesidesContainers : property.text), params.add(listed, "text[]")));
      },
    },
  },
  is_not: { negates: "exact" },
  icontains: {
    takes: "one",
    differs: "Flags read a list value as its items joined by commas and an object as its JSON; events never match an object or array.",
    flagsNullAsText: true,
    flags: flagsText((value, needle) => value.includes(needle)),
    events: {
      memory: ({ text }, filter) => text !== null && fold(text).includes(fold(textOf(one(filter.value))!)),
      sql: ({ dialect, params, property }, filter) =>
        dialect.orFalse(`${dialect.position(dialect.fold(property.text), params.add(fold(textOf(one(filter.value))!), "text"))} > 0`),
    },
  },
  not_icontains: { negates: "icontains" },
  regex: {
    takes: "one",
    differs:
      "Both search with RE2 (regex.ts; ClickHouse's match is RE2, PostgreSQL reads the patterns the schema accepts alike). Flags read a list value as its items joined by commas; events never match an object or array. A pattern that cannot run matches neither way.",
    flagsNullAsText: true,
    flags: (actual, target) => regexFinds(looseText(target), looseText(actual)),
    events: {
      memory: ({ text }, filter) => (text === null ? false : regexFinds(String(one(filter.value)), text)),
      sql: ({ dialect, params, property }, filter) => dialect.orFalse(dialect.regexMatch(property.text, params.add(String(one(filter.value)), "text"))),
    },
  },
  not_regex: { negates: "regex" },
  gt: comparison("gt"),
  gte: comparison("gte"),
  lt: comparison("lt"),
  lte: comparison("lte"),
  is_set: {
    takes: "none",
    differs: "Flags count a key whose value is undefined as not set (a JSON record has none); otherwise alike: a null value is set.",
    flagsNullAsText: true,
    flags: () => true,
    events: {
      memory: () => true,
      sql: ({ property }) => property.has,
    },
  },
  is_not_set: { negates: "is_set" },
  is_date_before: dateComparison("is_date_before"),
  is_date_after: dateComparison("is_date_after"),
  starts_with: flagsOnlyText((value, needle) => value.startsWith(needle)),
  not_starts_with: { negates: "starts_with" },
  ends_with: flagsOnlyText((value, needle) => value.endsWith(needle)),
  not_ends_with: { negates: "ends_with" },
  semver_eq: semverComparison((order) => order === 0),
  // Not semver_eq negated: an unreadable or missing version fails both.
  semver_neq: semverComparison((order) => order !== 0),
  semver_gt: semverComparison((order) => order > 0),
  semver_gte: semverComparison((order) => order >= 0),
  semver_lt: semverComparison((order) => order < 0),
  semver_lte: semverComparison((order) => order <= 0),
  semver_tilde: semverRangeRow,
  semver_caret: semverRangeRow,
  semver_wildcard: semverRangeRow,
} as const satisfies Record<string, OperatorRow>;

export type Operator = keyof typeof OPERATORS;

/** Every operator of the table, in its order (the flags accept them all). */
export const ALL_OPERATORS = Object.keys(OPERATORS) as Operator[];

const ROWS: Readonly<Record<string, OperatorRow>> = OPERATORS;

/** The row of an operator, or null when the table has none (flags: matches nothing). */
export function operatorRow(operator: string): OperatorRow | null {
  return Object.prototype.hasOwnProperty.call(ROWS, operator) ? ROWS[operator]! : null;
}

/** An operator's positive row and whether it is inverted. */
export function positiveOf(operator: string): { row: PositiveRow; negated: boolean } | null {
  const row = operatorRow(operator);
  if (!row) return null;
  return "negates" in row ? { row: ROWS[row.negates] as PositiveRow, negated: true } : { row, negated: false };
}

/** The events implementation of an operator the schema accepted. */
export function eventsOperator(operator: string): { events: EventsOperator; negated: boolean } {
  const positive = positiveOf(operator);
  if (!positive?.row.events) throw new Error(`The operator '${operator}' has no events implementation.`);
  return { events: positive.row.events, negated: positive.negated };
}

/** A leaf in SQL: the operator's own inversion (is_not, …) and the leaf's `negation` applied. */
export function leafSql(filter: PropertyFilter, compile: (events: EventsOperator) => string): string {
  const { events, negated } = eventsOperator(filter.operator);
  const sql = negated ? notSql(compile(events)) : compile(events);
  return filter.negation ? notSql(sql) : sql;
}

/** A positive answer inverted for a negative operator; null (cannot decide) holds neither way. */
export function decided(result: boolean | null, negated: boolean): boolean {
  if (result === null) return false;
  return negated ? !result : result;
}
