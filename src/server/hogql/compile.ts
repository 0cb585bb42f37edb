/**
 * The HogQL subset's AST (parse.ts) compiled to SQL: PostgreSQL over `events e` (and `pp`,
 * the event's person, when read) by default, or another database's dialect (sql/: the one
 * dialect per database the event store's builders and the filter engine use too) given in
 * the context. Identifiers map to fixed SQL from the dialect's field table; every literal
 * and every property name is a bind parameter (either database's binder, sql/bind.ts); the
 * SQL text holds only this file's and the dialect's constants. Nothing compiled here can fail at query
 * time on stored data: numbers are read from property text only when it is a decimal
 * number, dates only from the timestamp column.
 *
 * Semantics (SQL's three-valued logic, as HogQL's): a missing property (or JSON null) is
 * NULL, so a comparison with it is neither true nor false and the row is not listed.
 * Comparisons are by text (code point order, case-sensitive) unless one side is a number:
 * then both sides compare as numbers when both are numeric (a JSON number, or text that is
 * a decimal number), by text otherwise. `x = null` / `x != null` mean IS [NOT] NULL.
 * `timestamp` compares with an ISO 8601 string literal; `toDate(timestamp)` (the UTC date)
 * with a `YYYY-MM-DD` literal.
 */
import { isStorableDate, numberOf, parseIsoDate } from "@/server/properties/coerce";
import type { Binder } from "@/server/sql/bind";
import type { PropertyRef, SqlDialect } from "@/server/sql/dialect";
import { POSTGRES } from "@/server/sql/postgres";
import { HogqlError, located, type CompareOp, type Expr, type Field, type SelectItem } from "./parse";

/** Bind parameters: `add` returns the placeholder of a value, `constant` one bound once. */
export type HogqlParams = Binder;

export interface HogqlContext {
  params: HogqlParams;
  /** SQL for the properties of events and persons (the person's may be NULL). */
  columns: { event: string; person: string };
  /** The SQL dialect; PostgreSQL when not given. */
  dialect?: SqlDialect;
}

type Kind = "text" | "uuid" | "json" | "timestamp" | "date" | "number" | "bool" | "null";

interface Value {
  kind: Kind;
  /** The expression: text for text/uuid/json (json: the property's text), float8, boolean, timestamptz, date. */
  sql: string;
  /** For json: which property. */
  ref?: PropertyRef;
  /** Set for literals: the value as written. */
  literal?: { value: string | number | boolean | null };
  aggregate: boolean;
  /** Reads a column outside any aggregate. */
  bare?: boolean;
  /** The answer's type name when not the kind's (count: UInt64). */
  typeName?: string;
  pos: number;
}

const FIELD_KINDS: Record<Field, Kind> = {
  event: "text",
  distinct_id: "text",
  timestamp: "timestamp",
  uuid: "uuid",
  person_id: "uuid",
};

/** The column types of an answer with `select` (ClickHouse-style names, as HogQL's). */
const TYPE_NAMES: Record<Kind, string> = {
  text: "String",
  uuid: "UUID",
  json: "JSON",
  timestamp: "DateTime",
  date: "Date",
  number: "Float64",
  bool: "Bool",
  null: "Nullable(Nothing)",
};

const DATE_RE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

const KIND_NAMES: Record<Kind, string> = {
  text: "text",
  uuid: "a uuid",
  json: "a property",
  timestamp: "timestamp",
  date: "a date",
  number: "a number",
  bool: "a condition",
  null: "null",
};

class Compiler {
  readonly dialect: SqlDialect;

  constructor(private readonly context: HogqlContext) {
    this.dialect = context.dialect ?? POSTGRES;
  }

  private get params(): HogqlParams {
    return this.context.params;
  }

  value(expr: Expr, allowAggregate: boolean): Value {
    switch (expr.type) {
      case "literal": {
        const { value, pos } = expr;
        const literal = { value };
        if (value === null) return { kind: "null", sql: "NULL", literal, aggregate: false, pos };
        if (typeof value === "boolean") return { kind: "bool", sql: value ? "TRUE" : "FALSE", literal, aggregate: false, pos };
        // Bound only when used: a parameter the statement never reads has no type, which PostgreSQL refuses.
        let bound: string | undefined;
        const params = this.params;
        const cast = typeof value === "number" ? "float8" : "text";
        return {
          kind: typeof value === "number" ? "number" : "text",
          get sql() {
            return (bound ??= params.add(value, cast));
          },
          literal,
          aggregate: false,
          pos,
        };
      }
      case "field": {
        return { kind: FIELD_KINDS[expr.field], sql: this.dialect.fields[expr.field], aggregate: false, bare: true, pos: expr.pos };
      }
      case "property": {
        const column = expr.scope === "person" ? this.context.columns.person : this.context.columns.event;
        const ref = { column, key: this.params.add(expr.name, "text") };
        return { kind: "json", sql: this.dialect.propertyText(ref), ref, aggregate: false, bare: true, pos: expr.pos };
      }
      case "call": {
        if (expr.name === "count") {
          if (!allowAggregate) throw new HogqlError("count() is not allowed here (only in select, not inside another aggregate)", expr.pos);
          if (expr.args.length === 0) return { kind: "number", sql: this.dialect.float(this.dialect.count), aggregate: true, typeName: "UInt64", pos: expr.pos };
          const arg = this.value(expr.args[0]!, false);
          return { kind: "number", sql: this.dialect.float(`count(${this.nullable(arg)})`), aggregate: true, typeName: "UInt64", pos: expr.pos };
        }
        const arg = this.value(expr.args[0]!, allowAggregate);
        if (arg.kind !== "timestamp") throw new HogqlError(`toDate supports timestamp only, not ${KIND_NAMES[arg.kind]}`, expr.pos);
        return { kind: "date", sql: this.dialect.toDate(arg.sql), aggregate: arg.aggregate, bare: arg.bare, pos: expr.pos };
      }
      case "compare": {
        const left = this.value(expr.left, allowAggregate);
        const right = this.value(expr.right, allowAggregate);
        return this.bool(this.compare(expr.op, left, right, expr.pos), [left, right], expr.pos);
      }
      case "like": {
        const left = this.value(expr.left, allowAggregate);
        if (expr.right.type !== "literal" || typeof expr.right.value !== "string") throw new HogqlError("the pattern of LIKE/ILIKE must be a string", expr.right.pos);
        const pattern = expr.right.value;
        if (/(^|[^\\])(\\\\)*\\$/.test(pattern)) throw new HogqlError("a LIKE pattern must not end with an unescaped backslash", expr.right.pos);
        const sql = this.dialect.like(this.text(left), expr.insensitive, this.params.add(this.dialect.likePattern(pattern), "text"));
        return this.bool(expr.negated ? `(NOT ${sql})` : sql, [left], expr.pos);
      }
      case "in": {
        const left = this.value(expr.left, allowAggregate);
        const parts = expr.list.map((item) => {
          if (item.type !== "literal") throw new HogqlError("IN takes a list of literals", item.pos);
          return this.compare("=", left, this.value(item, false), item.pos);
        });
        const sql = `(${parts.join(" OR ")})`;
        return this.bool(expr.negated ? `(NOT ${sql})` : sql, [left], expr.pos);
      }
      case "isNull": {
        const inner = this.value(expr.expr, allowAggregate);
        return this.bool(`(${this.nullable(inner)} IS ${expr.negated ? "NOT " : ""}NULL)`, [inner], expr.pos);
      }
      case "and":
      case "or": {
        const args = expr.args.map((arg) => this.condition(arg, allowAggregate));
        return this.bool(`(${args.map((a) => a.sql).join(expr.type === "and" ? " AND " : " OR ")})`, args, expr.pos);
      }
      case "not": {
        const inner = this.condition(expr.expr, allowAggregate);
        return this.bool(`(NOT ${inner.sql})`, [inner], expr.pos);
      }
    }
  }

  private bool(sql: string, from: Value[], pos: number): Value {
    const aggregate = from.some((v) => v.aggregate);
    const bare = from.some((v) => v.bare);
    if (aggregate && bare) throw new HogqlError("an expression cannot mix count() with fields outside it; select them as separate columns", pos);
    return { kind: "bool", sql, aggregate, bare, pos };
  }

  /** A boolean expression (for where, and/or/not). */
  condition(expr: Expr, allowAggregate: boolean): Value {
    const value = this.value(expr, allowAggregate);
    if (value.kind !== "bool") throw new HogqlError(`expected a condition, found ${KIND_NAMES[value.kind]}`, value.pos);
    return value;
  }

  /** SQL that is NULL exactly when the value is (a missing property or JSON null included). */
  private nullable(value: Value): string {
    return value.kind === "null" ? this.dialect.nullText : value.sql;
  }

  /** The value as text, for text comparison and LIKE. */
  private text(value: Value): string {
    switch (value.kind) {
      case "text":
      case "uuid":
      case "json":
        return value.sql;
      case "number":
        return value.literal ? this.params.add(String(value.literal.value), "text") : this.dialect.numberAsText(value.sql);
      case "bool":
        if (value.literal) return this.params.add(String(value.literal.value), "text");
        break;
      case "null":
        return this.dialect.nullText;
    }
    throw new HogqlError(`${KIND_NAMES[value.kind]} cannot be compared as text`, value.pos);
  }

  /** The value as float8 when it is numeric, else NULL — never an error on stored data. */
  private number(value: Value): string {
    switch (value.kind) {
      case "number":
        return value.sql;
      case "json":
        return this.dialect.propertyNumber(value.ref!, this.params);
      case "text":
      case "uuid":
        if (value.literal) {
          const n = numberOf(value.literal.value);
          return n === null ? this.dialect.nullNumber : this.params.add(n, "float8");
        }
        return this.dialect.numericText(value.sql, this.params);
      default:
        return this.dialect.nullNumber;
    }
  }

  private compare(op: CompareOp, left: Value, right: Value, pos: number): string {
    const sqlOp = op === "!=" ? "<>" : op;
    if (left.kind === "null" || right.kind === "null") {
      if (left.kind === "null" && right.kind === "null") return op === "=" ? "TRUE" : op === "!=" ? "FALSE" : this.dialect.nullBool;
      if (op !== "=" && op !== "!=") throw new HogqlError(`null can only be compared with = or != (or use IS NULL)`, pos);
      const other = left.kind === "null" ? right : left;
      return `(${this.nullable(other)} IS ${op === "=" ? "" : "NOT "}NULL)`;
    }
    for (const kind of ["timestamp", "date"] as const) {
      if (left.kind === kind || right.kind === kind) {
        return `(${this.temporal(kind, left, pos)} ${sqlOp} ${this.temporal(kind, right, pos)})`;
      }
    }
    if ((left.kind === "bool" && !left.literal) || (right.kind === "bool" && !right.literal)) {
      throw new HogqlError("a condition cannot be compared; combine conditions with AND, OR, NOT", pos);
    }
    const byText = this.dialect.compareText(this.text(left), sqlOp, this.text(right));
    if (left.kind !== "number" && right.kind !== "number") return byText;
    const a = this.number(left);
    const b = this.number(right);
    return `(CASE WHEN ${a} IS NOT NULL AND ${b} IS NOT NULL THEN ${a} ${sqlOp} ${b} ELSE ${byText} END)`;
  }

  /** One side of a timestamp or date comparison: that kind, or a string literal read as one. */
  private temporal(kind: "timestamp" | "date", value: Value, pos: number): string {
    if (value.kind === kind) return value.sql;
    const text = value.literal && typeof value.literal.value === "string" ? value.literal.value : null;
    if (text === null) throw new HogqlError(`${KIND_NAMES[kind]} can only be compared with ${kind === "date" ? "a date or a 'YYYY-MM-DD' string" : "a timestamp or an ISO 8601 string"}, not ${KIND_NAMES[value.kind]}`, pos);
    if (kind === "timestamp") {
      const date = parseIsoDate(text);
      if (!date || !isStorableDate(date)) throw new HogqlError(`not an ISO 8601 time: ${JSON.stringify(text)}`, value.pos);
      return this.dialect.timestampParam(date, this.params);
    }
    const match = DATE_RE.exec(text);
    const date = match ? parseIsoDate(text) : null;
    if (!date || !isStorableDate(date)) throw new HogqlError(`not a date (YYYY-MM-DD): ${JSON.stringify(text)}`, value.pos);
    return this.dialect.dateParam(date, this.params);
  }
}

export interface CompiledSelect {
  /** SQL of each column, in order: values as JSON wants them (timestamps as timestamptz). */
  columns: string[];
  types: string[];
  /** 1-based positions of the columns to group by; null when no column aggregates. */
  groupBy: number[] | null;
  /** 1-based position of the first aggregate (ordered by, descending). */
  firstAggregate: number | null;
}

export function compileSelect(items: readonly SelectItem[], context: HogqlContext): CompiledSelect {
  const compiler = new Compiler(context);
  const { dialect } = compiler;
  const values = items.map((item, i) => located("select", i, () => compiler.value(item.expr, true)));
  const columns = values.map((value) => {
    switch (value.kind) {
      case "json":
        return dialect.propertyValue(value.ref!);
      case "date":
        return dialect.dateText(value.sql);
      case "null":
        return dialect.nullText;
      default:
        return value.sql;
    }
  });
  const aggregates = values.map((value) => value.aggregate);
  const first = aggregates.indexOf(true);
  return {
    columns,
    types: values.map((value) => value.typeName ?? TYPE_NAMES[value.kind]),
    groupBy: first === -1 ? null : aggregates.flatMap((aggregate, i) => (aggregate ? [] : [i + 1])),
    firstAggregate: first === -1 ? null : first + 1,
  };
}

/** One `where` expression, the `index`-th (for messages), as a boolean SQL expression. */
export function compileCondition(expr: Expr, index: number, context: HogqlContext): string {
  return located("where", index, () => new Compiler(context).condition(expr, false).sql);
}

/** The `where` expressions ANDed, as one boolean SQL expression. */
export function compileWhere(exprs: readonly Expr[], context: HogqlContext): string {
  const parts = exprs.map((expr, i) => compileCondition(expr, i, context));
  return parts.length === 0 ? "TRUE" : `(${parts.join(" AND ")})`;
}

/** What expressions read: the person properties, by name, and whether anything of the event itself (a field, a property). */
export function hogqlReads(exprs: readonly Expr[]): { personProperties: Set<string>; event: boolean } {
  const reads = { personProperties: new Set<string>(), event: false };
  const walk = (expr: Expr): void => {
    switch (expr.type) {
      case "property":
        if (expr.scope === "person") reads.personProperties.add(expr.name);
        else reads.event = true;
        return;
      case "field":
        reads.event = true;
        return;
      case "literal":
        return;
      case "call":
      case "and":
      case "or":
        expr.args.forEach(walk);
        return;
      case "compare":
      case "like":
        walk(expr.left);
        walk(expr.right);
        return;
      case "in":
        walk(expr.left);
        expr.list.forEach(walk);
        return;
      case "isNull":
      case "not":
        walk(expr.expr);
    }
  };
  exprs.forEach(walk);
  return reads;
}

/** Whether any expression reads person properties (the query then joins persons). */
export function readsPerson(exprs: readonly Expr[]): boolean {
  return hogqlReads(exprs).personProperties.size > 0;
}
