/**
 * PostHog's HogQLQuery (`{kind: "HogQLQuery", query: "SELECT … FROM events …"}`) over the
 * HogQL subset the events API's `select`/`where` already speak (hogql/parse.ts): the SQL
 * text is cut into its clauses here and each clause parsed by that parser, so the store
 * runs exactly what the events API runs. Supported:
 *
 *   SELECT item [, item …] FROM events [WHERE expr] [GROUP BY …] [ORDER BY …] [LIMIT n] [OFFSET m]
 *
 * GROUP BY may name (by text, alias or position) exactly the columns that are not count();
 * ORDER BY may only say the order the store gives: `timestamp DESC` (newest first), or,
 * with count(), the first count() descending (then the other columns ascending). Anything
 * else is a 400 naming what is not supported and where.
 */
import { z } from "zod";
import { QueryNodeError, parseNode } from "@/server/analytics/kind";
import { andGroups, shown, type FiltersOverride } from "@/server/analytics/nodes";
import { AppError } from "@/server/errors";
import { compileSelect, compileWhere } from "@/server/hogql/compile";
import { HogqlError, parseExpr, parseSelectItem, tokenize, type Expr, type SelectItem } from "@/server/hogql/parse";
import { INT4_MAX } from "@/server/input/record-id";
import { storableText } from "@/server/properties/coerce";
import type { PropertyGroup } from "@/server/properties/contract";
import { SqlParams } from "@/server/properties/sql";
import { cutFiltersPlaceholder, hogqlFiltersSchema } from "./filters";

/** PostHog's HogQL row limits: 100 rows unless LIMIT says otherwise, and LIMIT lowered to the most (MAX_SELECT_RETURNED_ROWS). */
/**
 * `maxSelectItems`: PostgreSQL refuses a statement of more than 1,664 columns, which a SELECT of
 * 1,665 items was (a 500, issue 32); 1,000 leaves room for the columns the compiled statement adds.
 */
export const HOGQL_QUERY_LIMITS = { defaultLimit: 100, maxLimit: 10_000, maxQueryLength: 100_000, maxSelectItems: 1_000 } as const;

const emptyOrNull = (what: string) =>
  z
    .unknown()
    .refine(
      (value) => value === undefined || value === null || (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0),
      `${what} is not supported yet; write the conditions into the query.`,
    )
    .optional();

export const hogqlQuerySchema = z.looseObject({
  kind: z.literal("HogQLQuery"),
  query: z
    .string({ error: "query must be the HogQL text: SELECT … FROM events …" })
    .min(1, "query must not be empty.")
    .max(HOGQL_QUERY_LIMITS.maxQueryLength, `query must be at most ${HOGQL_QUERY_LIMITS.maxQueryLength} characters.`),
  filters: hogqlFiltersSchema,
  values: emptyOrNull("values"),
  variables: emptyOrNull("variables"),
});

export interface HogqlQuerySpec {
  select: SelectItem[];
  where: Expr[];
  /** What `{filters}` stands for (filters.ts): the query's filters and the dashboard's (with the test accounts' when asked); null without the placeholder. */
  filters: PropertyGroup | null;
  limit: number;
  offset: number;
}

type Token = ReturnType<typeof tokenize>[number];

const CLAUSES = ["select", "from", "where", "group", "order", "limit", "offset"] as const;
type Clause = (typeof CLAUSES)[number];
/** Words that start a clause or a join Burrow does not run. */
const UNSUPPORTED_CLAUSES = new Set(["having", "prewhere", "union", "intersect", "except", "settings", "window", "qualify", "join", "left", "right", "inner", "full", "cross", "array", "sample", "final", "format", "into", "with"]);

const isWord = (token: Token | undefined, word: string) => token?.kind === "ident" && !token.quoted && token.value.toLowerCase() === word;

/** A problem at a place in the query text: a 400 on `query`. */
function refuse(message: string, pos: number): never {
  throw new QueryNodeError(`${message} (at position ${pos})`, ["query"]);
}

/** Runs a parse of a clause's text, its positions shifted to the whole query's. */
function inClause<T>(start: number, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof HogqlError) refuse(error.message, start + error.pos);
    if (error instanceof AppError) throw new QueryNodeError(error.message, ["query"]);
    throw error;
  }
}

interface Part {
  text: string;
  start: number;
}

/** The clause's tokens split at top-level commas, as text slices of the query. */
function commaList(source: string, tokens: Token[], from: number, to: number, end: number): Part[] {
  const parts: Part[] = [];
  let depth = 0;
  let start = from;
  for (let i = from; i < to; i++) {
    const token = tokens[i]!;
    if (token.kind === "op" && token.value === "(") depth++;
    else if (token.kind === "op" && token.value === ")") depth--;
    else if (depth === 0 && token.kind === "op" && token.value === ",") {
      if (i === start) refuse("expected an expression before ','", token.pos);
      parts.push({ text: source.slice(tokens[start]!.pos, token.pos), start: tokens[start]!.pos });
      start = i + 1;
    }
  }
  if (start >= to) refuse("expected an expression", to < tokens.length ? tokens[to]!.pos : end);
  const last = to < tokens.length ? tokens[to]!.pos : end;
  parts.push({ text: source.slice(tokens[start]!.pos, last), start: tokens[start]!.pos });
  return parts;
}

/** A non-negative integer literal of LIMIT / OFFSET. */
function count(tokens: Token[], from: number, to: number, what: string, pos: number): number {
  const token = tokens[from];
  if (to - from !== 1 || token?.kind !== "number" || !/^[0-9]+$/.test(token.text)) {
    if (to - from > 1 && tokens[from + 1]?.kind === "op" && (tokens[from + 1] as { value: string }).value === ",") refuse(`LIMIT n, m is not supported; write LIMIT m OFFSET n`, pos);
    refuse(`${what} takes a whole number`, token?.pos ?? pos);
  }
  if (token.value > INT4_MAX) refuse(`${what} must be at most ${INT4_MAX}`, token.pos);
  return token.value;
}

const normalized = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** Which select column (0-based) a GROUP BY / ORDER BY item names: its position, its alias, or its text; null for none. */
function columnNamed(text: string, select: readonly SelectItem[]): number | null {
  const trimmed = text.trim();
  if (/^[0-9]+$/.test(trimmed)) {
    const position = Number(trimmed);
    return position >= 1 && position <= select.length ? position - 1 : null;
  }
  const byAlias = select.findIndex((item) => item.alias !== null && (item.alias === trimmed || `\`${item.alias}\`` === trimmed));
  if (byAlias !== -1) return byAlias;
  const byText = select.findIndex((item) => normalized(item.alias === null ? item.text : item.text.replace(/\s+as\s+\S+\s*$/i, "")) === normalized(trimmed));
  return byText === -1 ? null : byText;
}

/** The HogQL text cut into its clauses and parsed; every refusal names what is not supported. */
export function hogqlQuerySpec(node: unknown, override: FiltersOverride | null = null): HogqlQuerySpec {
  const input = parseNode(hogqlQuerySchema, node);
  const source = storableText(input.query);
  const tokens = inClause(0, () => tokenize(source, { placeholders: true }));
  const end = source.length;
  tokens.pop(); // the end marker
  if (tokens.length === 0) refuse("the query is empty", 0);
  if (isWord(tokens[0], "with")) refuse("WITH is not supported", tokens[0]!.pos);
  if (!isWord(tokens[0], "select")) refuse(`only SELECT … FROM events is supported, not ${shown(source.slice(tokens[0]!.pos, tokens[0]!.pos + 20))}`, tokens[0]!.pos);

  // Where each clause starts (its keyword's token), at parenthesis depth 0.
  const starts: { clause: Clause; at: number; body: number }[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === "op" && token.value === "(") depth++;
    else if (token.kind === "op" && token.value === ")") depth--;
    if (depth !== 0 || token.kind !== "ident" || token.quoted) continue;
    const previous = tokens[i - 1];
    if (previous?.kind === "op" && previous.value === ".") continue; // properties.limit is a name
    const word = token.value.toLowerCase();
    if (UNSUPPORTED_CLAUSES.has(word)) refuse(`${word.toUpperCase()} is not supported`, token.pos);
    if (word === "select" && i > 0) refuse("subqueries are not supported", token.pos);
    if (!(CLAUSES as readonly string[]).includes(word)) continue;
    if (word === "group" || word === "order") {
      if (!isWord(tokens[i + 1], "by")) refuse(`expected BY after ${word.toUpperCase()}`, token.pos);
      starts.push({ clause: word as Clause, at: i, body: i + 2 });
      i++;
    } else {
      starts.push({ clause: word as Clause, at: i, body: i + 1 });
    }
  }
  const order = starts.map((start) => start.clause);
  const expected = CLAUSES.filter((clause) => order.includes(clause));
  if (new Set(order).size !== order.length || order.some((clause, i) => clause !== expected[i])) {
    refuse(`clauses must come once each in the order SELECT, FROM, WHERE, GROUP BY, ORDER BY, LIMIT, OFFSET`, tokens[starts.find((s, i) => s.clause !== expected[i])?.at ?? 0]!.pos);
  }
  const clause = (name: Clause) => {
    const index = starts.findIndex((start) => start.clause === name);
    if (index === -1) return null;
    const { at, body } = starts[index]!;
    const to = index + 1 < starts.length ? starts[index + 1]!.at : tokens.length;
    if (body >= to) refuse(`${name.toUpperCase()} needs something after it`, tokens[at]!.pos);
    return { from: body, to, pos: tokens[at]!.pos };
  };

  const whereClause = clause("where");
  const brace = tokens.findIndex((token, i) => token.kind === "op" && token.value === "{" && !(whereClause && i >= whereClause.from && i < whereClause.to));
  if (brace !== -1) refuse("{filters} is only read in the WHERE clause", tokens[brace]!.pos);

  const selectClause = clause("select")!;
  if (isWord(tokens[selectClause.from], "distinct")) refuse("SELECT DISTINCT is not supported; use count() with the columns to group by", tokens[selectClause.from]!.pos);
  const fromClause = clause("from");
  if (!fromClause) refuse("a FROM clause is needed: FROM events", end);
  const table = tokens[fromClause.from]!;
  if (table.kind !== "ident" || table.value !== "events") refuse(`only FROM events is supported, not ${shown(source.slice(table.pos, table.pos + 40))}`, table.pos);
  if (fromClause.to - fromClause.from > 1) refuse("only FROM events is supported: no table aliases, joins or subqueries", tokens[fromClause.from + 1]!.pos);

  const selectParts = commaList(source, tokens, selectClause.from, selectClause.to, end);
  if (selectParts.length > HOGQL_QUERY_LIMITS.maxSelectItems) {
    refuse(`SELECT may name at most ${HOGQL_QUERY_LIMITS.maxSelectItems} columns, not ${selectParts.length}`, selectParts[HOGQL_QUERY_LIMITS.maxSelectItems]!.start);
  }
  const select = selectParts.map((part) => {
    if (part.text.trim() === "*") refuse("SELECT * is not supported; name the columns (event, timestamp, distinct_id, properties.<name>, …)", part.start);
    return inClause(part.start, () => parseSelectItem(part.text.trim()));
  });
  const cut = whereClause ? inClause(0, () => cutFiltersPlaceholder(tokens, whereClause.from, whereClause.to)) : { terms: [], placeholder: false };
  const where = cut.terms.map((term) => {
    const start = tokens[term.from]!.pos;
    return inClause(start, () => parseExpr(source.slice(start, term.to < tokens.length ? tokens[term.to]!.pos : end)));
  });

  // Compiled once on no data: unknown names and wrong types are a 400 now.
  const check = { params: new SqlParams(), columns: { event: "e.properties", person: "pp.properties" } };
  const compiled = inClause(0, () => compileSelect(select, check));
  inClause(0, () => compileWhere(where, check));
  const grouped = compiled.groupBy === null ? null : compiled.groupBy.map((position) => position - 1);

  const groupClause = clause("group");
  if (groupClause) {
    if (grouped === null) refuse("GROUP BY needs count() among the columns", groupClause.pos);
    const named = commaList(source, tokens, groupClause.from, groupClause.to, end).map((part) => {
      const column = columnNamed(part.text, select);
      if (column === null || !grouped.includes(column)) refuse(`GROUP BY ${shown(part.text.trim())} is not supported: group by the selected columns other than count()`, part.start);
      return column;
    });
    if (grouped.some((column) => !named.includes(column))) refuse("GROUP BY must name every selected column other than count()", groupClause.pos);
  }

  const orderClause = clause("order");
  if (orderClause) {
    const items = commaList(source, tokens, orderClause.from, orderClause.to, end).map((part) => {
      const match = /^(.*?)(?:\s+(asc|desc))?\s*$/is.exec(part.text)!;
      return { text: match[1]!.trim(), descending: (match[2] ?? "asc").toLowerCase() === "desc", start: part.start };
    });
    const storeOrder =
      grouped === null
        ? [{ column: "timestamp", descending: true }]
        : [{ column: compiled.firstAggregate! - 1, descending: true }, ...grouped.map((column) => ({ column, descending: false }))];
    items.forEach((item, i) => {
      const wanted = storeOrder[i];
      const same =
        wanted !== undefined &&
        item.descending === wanted.descending &&
        (typeof wanted.column === "string" ? normalized(item.text) === wanted.column : columnNamed(item.text, select) === wanted.column);
      if (!same) {
        refuse(
          `ORDER BY ${shown(`${item.text}${item.descending ? " DESC" : ""}`)} is not supported: rows come newest first (ORDER BY timestamp DESC), or, with count(), by the first count() descending, then the other columns ascending`,
          item.start,
        );
      }
    });
  }

  const limitClause = clause("limit");
  const offsetClause = clause("offset");
  const limit = limitClause ? count(tokens, limitClause.from, limitClause.to, "LIMIT", limitClause.pos) : HOGQL_QUERY_LIMITS.defaultLimit;
  if (limit < 1) refuse("LIMIT must be at least 1", limitClause!.pos);
  const offset = offsetClause ? count(tokens, offsetClause.from, offsetClause.to, "OFFSET", offsetClause.pos) : 0;
  const filters = cut.placeholder ? andGroups(input.filters?.properties ?? null, override?.properties ?? null) : null;
  return { select, where, filters, limit: Math.min(limit, HOGQL_QUERY_LIMITS.maxLimit), offset };
}
