/**
 * A small, safe subset of PostHog's expression language (HogQL) for the experimental
 * `select` and `where` parameters of the events list: a tokenizer and a recursive-descent
 * parser producing an AST. Nothing here touches SQL; compile.ts turns the AST into SQL with
 * every literal and property name as a bind parameter.
 *
 * Grammar (keywords case-insensitive; positions are 0-based character offsets):
 *
 *   selectItem := expr [AS identifier]
 *   expr       := and (OR and)*
 *   and        := not (AND not)*
 *   not        := NOT not | comparison
 *   comparison := primary [ (= | == | != | <> | < | <= | > | >=) primary
 *                          | [NOT] (LIKE | ILIKE) primary
 *                          | [NOT] IN '(' primary (',' primary)* ')'
 *                          | IS [NOT] NULL ]
 *   primary    := '(' expr ')' | string | ['-'] number | TRUE | FALSE | NULL
 *               | count '(' [ '*' | expr ] ')' | toDate '(' expr ')'
 *               | event | distinct_id | timestamp | uuid | id | person_id
 *               | properties '.' name | person '.' properties '.' name
 *   name       := identifier | `quoted` | "quoted"      (identifiers may hold `$`)
 */
import { AppError } from "@/server/errors";
import { storableText } from "@/server/properties/coerce";

export type Field = "event" | "distinct_id" | "timestamp" | "uuid" | "person_id";
export type CompareOp = "=" | "!=" | "<" | "<=" | ">" | ">=";

export type Expr =
  | { type: "literal"; value: string | number | boolean | null; pos: number }
  | { type: "field"; field: Field; pos: number }
  | { type: "property"; scope: "event" | "person"; name: string; pos: number }
  | { type: "call"; name: "count" | "toDate"; args: Expr[]; pos: number }
  | { type: "compare"; op: CompareOp; left: Expr; right: Expr; pos: number }
  | { type: "like"; negated: boolean; insensitive: boolean; left: Expr; right: Expr; pos: number }
  | { type: "in"; negated: boolean; left: Expr; list: Expr[]; pos: number }
  | { type: "isNull"; negated: boolean; expr: Expr; pos: number }
  | { type: "and" | "or"; args: Expr[]; pos: number }
  | { type: "not"; expr: Expr; pos: number };

export interface SelectItem {
  /** The expression as the caller wrote it: the column name in answers. */
  text: string;
  expr: Expr;
  alias: string | null;
}

export const HOGQL_LIMITS = {
  maxExpressions: 50,
  maxExpressionLength: 10_000,
  maxDepth: 50,
} as const;

/** A problem in one expression, with its position; the events contract turns it into a 400. */
export class HogqlError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

type Token =
  | { kind: "ident"; value: string; quoted: boolean; pos: number }
  | { kind: "string"; value: string; pos: number }
  | { kind: "number"; value: number; text: string; pos: number }
  | { kind: "op"; value: string; pos: number }
  | { kind: "end"; pos: number };

const FIELDS: Record<string, Field> = { event: "event", distinct_id: "distinct_id", timestamp: "timestamp", uuid: "uuid", id: "uuid", person_id: "person_id" };
const KEYWORDS = new Set(["and", "or", "not", "like", "ilike", "in", "is", "null", "true", "false", "as"]);
const ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', "`": "`", n: "\n", r: "\r", t: "\t", "0": "\0" };
const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[A-Za-z0-9_$]/;
const NUMBER_RE = /(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?/y;

/** A character as a reader sees it in a message (control characters escaped). */
function show(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** Reads a quoted run starting at `start` (the quote): doubled quote or backslash escapes. */
function quoted(source: string, start: number): { value: string; end: number } {
  const quote = source[start]!;
  let value = "";
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "\\") {
      const next = source[i + 1];
      if (next === undefined) break;
      const escaped = ESCAPES[next];
      if (escaped === undefined) throw new HogqlError(`unsupported escape sequence ${show(`\\${next}`)}`, i);
      value += escaped;
      i += 2;
    } else if (ch === quote) {
      if (source[i + 1] === quote) {
        value += quote;
        i += 2;
      } else {
        return { value: storableText(value), end: i + 1 };
      }
    } else {
      value += ch;
      i += 1;
    }
  }
  throw new HogqlError(quote === "'" ? "unterminated string" : `unterminated quoted name (${quote})`, start);
}

/**
 * The text's tokens. `placeholders`: `{` and `}` are tokens too (a HogQLQuery's `{filters}`,
 * which its contract cuts out before parsing); elsewhere they are unexpected characters.
 */
export function tokenize(source: string, { placeholders = false }: { placeholders?: boolean } = {}): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i += 1;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === "--" || two === "/*" || ch === "#") throw new HogqlError("comments are not supported", i);
    if (ch === ";") throw new HogqlError("';' is not supported: one expression only", i);
    if (ch === "'") {
      const { value, end } = quoted(source, i);
      tokens.push({ kind: "string", value, pos: i });
      i = end;
      continue;
    }
    if (ch === "`" || ch === '"') {
      const { value, end } = quoted(source, i);
      tokens.push({ kind: "ident", value, quoted: true, pos: i });
      i = end;
      continue;
    }
    if (IDENT_START.test(ch)) {
      let end = i + 1;
      while (end < source.length && IDENT_PART.test(source[end]!)) end += 1;
      tokens.push({ kind: "ident", value: source.slice(i, end), quoted: false, pos: i });
      i = end;
      continue;
    }
    // After a name, '.' is member access (properties.123), not the start of a number.
    const afterName = ch === "." && tokens.length > 0 && tokens[tokens.length - 1]!.kind === "ident";
    NUMBER_RE.lastIndex = i;
    const number = afterName ? null : NUMBER_RE.exec(source);
    if (number) {
      const value = Number(number[0]);
      if (!Number.isFinite(value)) throw new HogqlError(`number out of range ${show(number[0])}`, i);
      if (i + number[0].length < source.length && IDENT_PART.test(source[i + number[0].length]!)) {
        throw new HogqlError(`unexpected ${show(source[i + number[0].length]!)} after a number`, i + number[0].length);
      }
      tokens.push({ kind: "number", value, text: number[0], pos: i });
      i += number[0].length;
      continue;
    }
    const op = ["==", "!=", "<>", "<=", ">="].includes(two) ? two : "=<>(),.-*".includes(ch) || (placeholders && (ch === "{" || ch === "}")) ? ch : null;
    if (op === null) throw new HogqlError(`unexpected character ${show(ch)}`, i);
    tokens.push({ kind: "op", value: op, pos: i });
    i += op.length;
  }
  tokens.push({ kind: "end", pos: source.length });
  return tokens;
}

class Parser {
  private at = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.at + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== "end") this.at += 1;
    return token;
  }

  /** The next token is this keyword (an unquoted identifier, any case). */
  private isKeyword(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === "ident" && !token.quoted && token.value.toLowerCase() === word;
  }

  private isOp(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === "op" && token.value === value;
  }

  private expectOp(value: string): Token {
    if (!this.isOp(value)) throw this.unexpected(`expected '${value}'`);
    return this.next();
  }

  unexpected(what = "unexpected"): HogqlError {
    const token = this.peek();
    if (token.kind === "end") return new HogqlError(`${what}: the expression ends too early`, token.pos);
    const text = token.kind === "string" ? `'${token.value}'` : token.kind === "number" ? token.text : String(token.value);
    if (token.kind === "ident" && !token.quoted && !KEYWORDS.has(token.value.toLowerCase()) && /^[a-z]+$/i.test(token.value) && what === "unexpected") {
      return new HogqlError(`${show(text)} is not supported`, token.pos);
    }
    return new HogqlError(`${what} ${show(text)}`, token.pos);
  }

  atEnd(): boolean {
    return this.peek().kind === "end";
  }

  selectItem(): { expr: Expr; alias: string | null } {
    const expr = this.expr();
    let alias: string | null = null;
    if (this.isKeyword("as")) {
      this.next();
      const token = this.next();
      if (token.kind !== "ident" || (!token.quoted && KEYWORDS.has(token.value.toLowerCase()))) {
        this.at -= token.kind === "end" ? 0 : 1;
        throw this.unexpected("expected an alias name after 'as', found");
      }
      alias = token.value;
    }
    return { expr, alias };
  }

  expr(): Expr {
    this.depth += 1;
    if (this.depth > HOGQL_LIMITS.maxDepth) throw new HogqlError(`nested more than ${HOGQL_LIMITS.maxDepth} levels deep`, this.peek().pos);
    const pos = this.peek().pos;
    const args = [this.and()];
    while (this.isKeyword("or")) {
      this.next();
      args.push(this.and());
    }
    this.depth -= 1;
    return args.length === 1 ? args[0]! : { type: "or", args, pos };
  }

  private and(): Expr {
    const pos = this.peek().pos;
    const args = [this.not()];
    while (this.isKeyword("and")) {
      this.next();
      args.push(this.not());
    }
    return args.length === 1 ? args[0]! : { type: "and", args, pos };
  }

  private not(): Expr {
    if (this.isKeyword("not")) {
      const pos = this.next().pos;
      this.depth += 1;
      if (this.depth > HOGQL_LIMITS.maxDepth) throw new HogqlError(`nested more than ${HOGQL_LIMITS.maxDepth} levels deep`, pos);
      const expr = this.not();
      this.depth -= 1;
      return { type: "not", expr, pos };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.primary();
    const token = this.peek();
    const pos = token.pos;
    if (token.kind === "op" && ["=", "==", "!=", "<>", "<", "<=", ">", ">="].includes(token.value)) {
      this.next();
      const op: CompareOp = token.value === "==" ? "=" : token.value === "<>" ? "!=" : (token.value as CompareOp);
      return { type: "compare", op, left, right: this.primary(), pos };
    }
    let negated = false;
    if (this.isKeyword("not") && (this.isKeyword("like", 1) || this.isKeyword("ilike", 1) || this.isKeyword("in", 1))) {
      this.next();
      negated = true;
    }
    if (this.isKeyword("like") || this.isKeyword("ilike")) {
      const insensitive = this.isKeyword("ilike");
      this.next();
      return { type: "like", negated, insensitive, left, right: this.primary(), pos };
    }
    if (this.isKeyword("in")) {
      this.next();
      this.expectOp("(");
      const list = [this.primary()];
      while (this.isOp(",")) {
        this.next();
        list.push(this.primary());
      }
      this.expectOp(")");
      return { type: "in", negated, left, list, pos };
    }
    if (this.isKeyword("is")) {
      this.next();
      const isNot = this.isKeyword("not");
      if (isNot) this.next();
      if (!this.isKeyword("null")) throw this.unexpected("expected NULL after IS, found");
      this.next();
      return { type: "isNull", negated: isNot, expr: left, pos };
    }
    return left;
  }

  private primary(): Expr {
    const token = this.peek();
    if (token.kind === "end") throw this.unexpected("expected a value");
    if (token.kind === "string") {
      this.next();
      return { type: "literal", value: token.value, pos: token.pos };
    }
    if (token.kind === "number") {
      this.next();
      return { type: "literal", value: token.value, pos: token.pos };
    }
    if (token.kind === "op") {
      if (token.value === "-" && this.peek(1).kind === "number") {
        this.next();
        const number = this.next() as Extract<Token, { kind: "number" }>;
        return { type: "literal", value: -number.value, pos: token.pos };
      }
      if (token.value === "(") {
        this.next();
        if (this.isKeyword("select")) throw new HogqlError("subqueries are not supported", this.peek().pos);
        const expr = this.expr();
        this.expectOp(")");
        return expr;
      }
      throw this.unexpected();
    }
    // An identifier: keyword literal, function call, or column.
    const word = token.value;
    const lower = word.toLowerCase();
    if (!token.quoted) {
      if (lower === "true" || lower === "false") {
        this.next();
        return { type: "literal", value: lower === "true", pos: token.pos };
      }
      if (lower === "null") {
        this.next();
        return { type: "literal", value: null, pos: token.pos };
      }
      if (lower === "select") throw new HogqlError("subqueries are not supported", token.pos);
      if (KEYWORDS.has(lower)) throw this.unexpected("expected a value, found");
    }
    if (this.isOp("(", 1)) return this.call();
    if (!token.quoted && word === "properties") return this.property("event", token.pos, 1);
    if (!token.quoted && word === "person" && this.isOp(".", 1) && this.peek(2).kind === "ident" && (this.peek(2) as { value: string }).value === "properties") {
      this.next();
      this.next();
      return this.property("person", token.pos, 1);
    }
    const field = Object.prototype.hasOwnProperty.call(FIELDS, word) ? FIELDS[word] : undefined;
    if (field === undefined) {
      throw new HogqlError(`unknown field ${show(word)} (supported: event, distinct_id, timestamp, uuid, id, person_id, properties.<name>, person.properties.<name>)`, token.pos);
    }
    this.next();
    if (this.isOp(".")) throw new HogqlError(`${word} has no fields`, this.peek().pos);
    return { type: "field", field, pos: token.pos };
  }

  /** `properties.<name>`: the current token is `properties`. */
  private property(scope: "event" | "person", pos: number, skip: number): Expr {
    this.at += skip;
    if (!this.isOp(".")) throw new HogqlError(`${scope === "person" ? "person.properties" : "properties"} needs a property name: properties.<name>`, this.peek().pos);
    this.next();
    const name = this.next();
    if (name.kind === "ident") {
      if (this.isOp(".")) throw new HogqlError("nested properties (a.b.c) are not supported", this.peek().pos);
      return { type: "property", scope, name: name.value, pos };
    }
    // properties.123 would have lexed as a number; read its text as the name.
    if (name.kind === "number" && /^[0-9]+$/.test(name.text)) return { type: "property", scope, name: name.text, pos };
    this.at -= name.kind === "end" ? 0 : 1;
    throw this.unexpected("expected a property name, found");
  }

  private call(): Expr {
    const token = this.next() as Extract<Token, { kind: "ident" }>;
    const name = token.value.toLowerCase() === "count" && !token.quoted ? "count" : token.value === "toDate" && !token.quoted ? "toDate" : null;
    if (name === null) throw new HogqlError(`unknown function ${show(token.value)} (supported: count, toDate)`, token.pos);
    this.expectOp("(");
    const args: Expr[] = [];
    if (name === "count" && this.isOp("*")) {
      this.next();
    } else if (!this.isOp(")")) {
      if (this.isKeyword("distinct")) throw new HogqlError("count(distinct …) is not supported", this.peek().pos);
      args.push(this.expr());
      while (this.isOp(",")) {
        this.next();
        args.push(this.expr());
      }
    }
    this.expectOp(")");
    if (name === "count" && args.length > 1) throw new HogqlError("count takes at most one argument", token.pos);
    if (name === "toDate" && args.length !== 1) throw new HogqlError("toDate takes one argument", token.pos);
    return { type: "call", name, args, pos: token.pos };
  }
}

function parseWith<T>(source: string, read: (parser: Parser) => T): T {
  if (source.length > HOGQL_LIMITS.maxExpressionLength) throw new HogqlError(`longer than ${HOGQL_LIMITS.maxExpressionLength} characters`, 0);
  const parser = new Parser(tokenize(source));
  if (parser.atEnd()) throw new HogqlError("empty expression", 0);
  const result = read(parser);
  if (!parser.atEnd()) throw parser.unexpected();
  return result;
}

export function parseExpr(source: string): Expr {
  return parseWith(source, (parser) => parser.expr());
}

export function parseSelectItem(source: string): SelectItem {
  return { text: source, ...parseWith(source, (parser) => parser.selectItem()) };
}

/**
 * The `select` or `where` parameter: a JSON list of expression strings. Every problem is a
 * 400 naming the parameter, the list index and the position in the expression.
 */
export function parseExpressionList(name: "select" | "where", value: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new AppError("invalid_input", `${name} must be a JSON list of expression strings, e.g. ["event", "count()"].`, name);
  }
  if (!Array.isArray(json) || json.some((item) => typeof item !== "string")) {
    throw new AppError("invalid_input", `${name} must be a JSON list of expression strings, e.g. ["event", "count()"].`, name);
  }
  if (json.length > HOGQL_LIMITS.maxExpressions) throw new AppError("invalid_input", `${name} may hold at most ${HOGQL_LIMITS.maxExpressions} expressions.`, name);
  return json as string[];
}

/** Runs `work` on one expression, turning a HogqlError into a 400 naming where it is. */
export function located<T>(name: "select" | "where", index: number, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof HogqlError) throw new AppError("invalid_input", `${name}[${index}]: ${error.message} at position ${error.pos}.`, name);
    throw error;
  }
}
