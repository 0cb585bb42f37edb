import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { SqlParams } from "@/server/properties/sql";
import { compileSelect, compileWhere } from "./compile";
import { HogqlError, parseExpr, parseExpressionList, parseSelectItem, tokenize, type Expr } from "./parse";

/** The error of parsing (or, with compile, of compiling) `source`: message and position. */
function failure(source: string, compile: "where" | "select" | null = null): { message: string; pos: number } {
  try {
    if (compile === "select") compileSelect([parseSelectItem(source)], context());
    else {
      const expr = parseExpr(source);
      if (compile === "where") compileWhere([expr], context());
    }
  } catch (error) {
    if (error instanceof HogqlError) return { message: error.message, pos: error.pos };
    if (error instanceof AppError) {
      const match = /^(?:select|where)\[\d+\]: (.*) at position (\d+)\.$/s.exec(error.message);
      if (match) return { message: match[1]!, pos: Number(match[2]) };
    }
    throw error;
  }
  throw new Error(`no error for ${source}`);
}

const context = () => ({ params: new SqlParams(), columns: { event: "e.properties", person: "pp.properties" } });

/** A compact text form of an AST, to compare shapes. */
function show(expr: Expr): string {
  switch (expr.type) {
    case "literal":
      return JSON.stringify(expr.value);
    case "field":
      return expr.field;
    case "property":
      return `${expr.scope}[${JSON.stringify(expr.name)}]`;
    case "call":
      return `${expr.name}(${expr.args.map(show).join(", ")})`;
    case "compare":
      return `(${show(expr.left)} ${expr.op} ${show(expr.right)})`;
    case "like":
      return `(${show(expr.left)} ${expr.negated ? "not " : ""}${expr.insensitive ? "ilike" : "like"} ${show(expr.right)})`;
    case "in":
      return `(${show(expr.left)} ${expr.negated ? "not " : ""}in [${expr.list.map(show).join(", ")}])`;
    case "isNull":
      return `(${show(expr.expr)} is ${expr.negated ? "not " : ""}null)`;
    case "and":
    case "or":
      return `(${expr.args.map(show).join(` ${expr.type} `)})`;
    case "not":
      return `(not ${show(expr.expr)})`;
  }
}

const ast = (source: string) => show(parseExpr(source));

describe("HogQL subset: parser", () => {
  it("reads fields, properties and person properties", () => {
    expect(ast("event")).toBe("event");
    expect(ast("distinct_id")).toBe("distinct_id");
    expect(ast("timestamp")).toBe("timestamp");
    expect(ast("id")).toBe("uuid");
    expect(ast("uuid")).toBe("uuid");
    expect(ast("person_id")).toBe("person_id");
    expect(ast("properties.$browser")).toBe('event["$browser"]');
    expect(ast("properties.`$current url`")).toBe('event["$current url"]');
    expect(ast('properties."a""b"')).toBe('event["a\\"b"]');
    expect(ast("properties.`a``b`")).toBe('event["a`b"]');
    expect(ast("properties.123")).toBe('event["123"]');
    expect(ast("person.properties.email")).toBe('person["email"]');
    expect(ast("person . properties . `e mail`")).toBe('person["e mail"]');
  });

  it("reads literals with escapes", () => {
    expect(ast("'it''s'")).toBe(JSON.stringify("it's"));
    expect(ast("'it\\'s'")).toBe(JSON.stringify("it's"));
    expect(ast("'a\\\\b\\n'")).toBe(JSON.stringify("a\\b\n"));
    expect(ast("'a\u0000b'")).toBe(JSON.stringify("a\ufffdb")); // NUL as ingestion stores it
    expect(ast("42")).toBe("42");
    expect(ast("-1.5e2")).toBe("-150");
    expect(ast(".5")).toBe("0.5");
    expect(ast("TRUE")).toBe("true");
    expect(ast("false")).toBe("false");
    expect(ast("Null")).toBe("null");
  });

  it("reads operators with precedence: comparison, NOT, AND, OR", () => {
    expect(ast("event = 'a'")).toBe('(event = "a")');
    expect(ast("event == 'a'")).toBe('(event = "a")');
    expect(ast("event <> 'a'")).toBe('(event != "a")');
    expect(ast("properties.price >= 10")).toBe('(event["price"] >= 10)');
    expect(ast("event like 'a%' and not distinct_id ilike '%b' or event not like 'x'")).toBe(
      '(((event like "a%") and (not (distinct_id ilike "%b"))) or (event not like "x"))',
    );
    expect(ast("event NOT ILIKE '%A%'")).toBe('(event not ilike "%A%")');
    expect(ast("event in ('a', 'b', 1)")).toBe('(event in ["a", "b", 1])');
    expect(ast("event not in ('a')")).toBe('(event not in ["a"])');
    expect(ast("properties.x is null")).toBe('(event["x"] is null)');
    expect(ast("properties.x IS NOT NULL")).toBe('(event["x"] is not null)');
    expect(ast("(event = 'a' or event = 'b') and distinct_id = 'c'")).toBe('(((event = "a") or (event = "b")) and (distinct_id = "c"))');
    expect(ast("not not event = 'a'")).toBe('(not (not (event = "a")))');
  });

  it("reads count() and toDate(), and select aliases", () => {
    expect(ast("count()")).toBe("count()");
    expect(ast("COUNT(*)")).toBe("count()");
    expect(ast("count(properties.x)")).toBe('count(event["x"])');
    expect(ast("toDate(timestamp) = '2024-01-01'")).toBe('(toDate(timestamp) = "2024-01-01")');
    expect(parseSelectItem("count() as total")).toMatchObject({ text: "count() as total", alias: "total" });
    expect(parseSelectItem("event AS `my name`").alias).toBe("my name");
  });

  it("names the unsupported part and its position", () => {
    expect(failure("foo")).toEqual({ message: expect.stringContaining('unknown field "foo"'), pos: 0 });
    expect(failure("event = bar")).toEqual({ message: expect.stringContaining('unknown field "bar"'), pos: 8 });
    expect(failure("pg_sleep(1)")).toEqual({ message: expect.stringContaining('unknown function "pg_sleep"'), pos: 0 });
    expect(failure("event; drop table events")).toEqual({ message: expect.stringContaining("';' is not supported"), pos: 5 });
    expect(failure("event -- x")).toEqual({ message: "comments are not supported", pos: 6 });
    expect(failure("event /* x */")).toEqual({ message: "comments are not supported", pos: 6 });
    expect(failure("event = 'abc")).toEqual({ message: "unterminated string", pos: 8 });
    expect(failure("event union select 1")).toEqual({ message: '"union" is not supported', pos: 6 });
    expect(failure("event in (select 1)")).toEqual({ message: "subqueries are not supported", pos: 10 });
    expect(failure("(select 1)")).toEqual({ message: "subqueries are not supported", pos: 1 });
    expect(failure("event = ")).toEqual({ message: "expected a value: the expression ends too early", pos: 8 });
    expect(failure("event = 'a' 'b'")).toEqual({ message: 'unexpected "\'b\'"', pos: 12 });
    expect(failure("event + 1")).toEqual({ message: 'unexpected character "+"', pos: 6 });
    expect(failure("event = $1")).toEqual({ message: expect.stringContaining('unknown field "$1"'), pos: 8 });
    expect(failure("properties")).toEqual({ message: expect.stringContaining("needs a property name"), pos: 10 });
    expect(failure("properties.a.b")).toEqual({ message: "nested properties (a.b.c) are not supported", pos: 12 });
    expect(failure("event.x")).toEqual({ message: "event has no fields", pos: 5 });
    expect(failure("'\\x'")).toEqual({ message: 'unsupported escape sequence "\\\\x"', pos: 1 });
    expect(failure("count(distinct event)")).toEqual({ message: "count(distinct …) is not supported", pos: 6 });
    expect(failure("toDate()")).toEqual({ message: "toDate takes one argument", pos: 0 });
    expect(failure("")).toEqual({ message: "empty expression", pos: 0 });
    expect(failure("((((((((((((((((((((((((((((((((((((((((((((((((((((event))))))))))))))))))))))))))))))))))))))))))))))))))))")).toMatchObject({
      message: expect.stringContaining("nested more than"),
    });
    expect(failure("event = 'a\u0000")).toEqual({ message: "unterminated string", pos: 8 });
    expect(failure("1e999")).toMatchObject({ message: expect.stringContaining("number out of range") });
  });

  it("names type errors found when compiling", () => {
    expect(failure("event", "where")).toEqual({ message: "expected a condition, found text", pos: 0 });
    expect(failure("count() > 1", "where")).toMatchObject({ message: expect.stringContaining("count() is not allowed here") });
    expect(failure("timestamp > 5", "where")).toMatchObject({ message: expect.stringContaining("timestamp can only be compared with") });
    expect(failure("timestamp > 'yesterday'", "where")).toMatchObject({ message: 'not an ISO 8601 time: "yesterday"', pos: 12 });
    expect(failure("toDate(timestamp) = '2024-02-30'", "where")).toMatchObject({ message: expect.stringContaining("not a date") });
    expect(failure("toDate(event)", "select")).toMatchObject({ message: expect.stringContaining("toDate supports timestamp only") });
    expect(failure("event like properties.x", "where")).toMatchObject({ message: "the pattern of LIKE/ILIKE must be a string", pos: 11 });
    expect(failure("event like 'a\\\\'", "where")).toMatchObject({ message: expect.stringContaining("unescaped backslash") });
    expect(failure("event in (distinct_id)", "where")).toMatchObject({ message: "IN takes a list of literals" });
    expect(failure("properties.x < null", "where")).toMatchObject({ message: expect.stringContaining("null can only be compared") });
    expect(failure("event = 'a' and count() > 1", "select")).toMatchObject({ message: expect.stringContaining("cannot mix count()") });
    expect(failure("count(count())", "select")).toMatchObject({ message: expect.stringContaining("count() is not allowed here") });
    expect(failure("(event = 'a') = true", "where")).toMatchObject({ message: expect.stringContaining("a condition cannot be compared") });
  });

  it("tokenizes without reading anything as SQL", () => {
    expect(tokenize("properties.`a;--b` = 'x/*y*/'").map((t) => t.kind)).toEqual(["ident", "op", "ident", "op", "string", "end"]);
  });

  it("reads select/where as JSON lists of strings", () => {
    expect(parseExpressionList("select", '["event", "count()"]')).toEqual(["event", "count()"]);
    for (const bad of ["event", '"event"', "[1]", "{}", "null", '["a", null]']) {
      expect(() => parseExpressionList("where", bad), bad).toThrow(/where must be a JSON list/);
    }
    expect(() => parseExpressionList("select", JSON.stringify(Array(51).fill("event")))).toThrow(/at most 50/);
  });
});

describe("HogQL subset: compiler", () => {
  it("binds every literal and property name; the SQL holds none of the user's text", () => {
    const hostile = "x'); DROP TABLE events; --";
    const ctx = context();
    const sql = compileWhere(
      [
        parseExpr(`properties.\`${hostile}\` = '${hostile.replace(/'/g, "''")}' and person.properties.\`${hostile}\` like '%${hostile.replace(/'/g, "''")}%'`),
        parseExpr(`event in ('${hostile.replace(/'/g, "''")}', 3) or distinct_id ilike 'a'`),
      ],
      ctx,
    );
    expect(sql).not.toContain("DROP");
    expect(sql).not.toContain(hostile);
    expect(ctx.params.values).toContain(hostile);
    expect(ctx.params.values.filter((v) => v === `%${hostile}%`)).toHaveLength(1);
    const select = compileSelect([parseSelectItem(`properties.\`${hostile}\``), parseSelectItem("count()")], ctx);
    expect(select.columns.join(" ")).not.toContain("DROP");
    expect(select).toMatchObject({ types: ["JSON", "UInt64"], groupBy: [1], firstAggregate: 2 });
  });

  it("groups by the columns that do not aggregate", () => {
    const compile = (...items: string[]) => compileSelect(items.map(parseSelectItem), context());
    expect(compile("event", "distinct_id")).toMatchObject({ groupBy: null, types: ["String", "String"] });
    expect(compile("count()")).toMatchObject({ groupBy: [], firstAggregate: 1 });
    expect(compile("event", "count()", "toDate(timestamp)", "count(properties.x) > 1")).toMatchObject({
      groupBy: [1, 3],
      firstAggregate: 2,
      types: ["String", "UInt64", "Date", "Bool"],
    });
  });
});
