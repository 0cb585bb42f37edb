/**
 * PostHog's `{filters}` placeholder of a HogQLQuery (posthog/hogql/filters.py): where the
 * text says `{filters}`, the query's `filters` hold — its `properties`, the project's test
 * account filters when `filterTestAccounts` is set, a dashboard's properties — and without
 * the placeholder they change nothing, as PostHog's runner replaces only the placeholder.
 * Burrow reads it as the WHERE clause or one of its top-level AND terms, whose filters the
 * event store ANDs to the rest; `filters.dateRange` is not supported yet (a 400).
 */
import { z } from "zod";
import { propertiesField } from "@/server/analytics/nodes";
import { isObject } from "@/server/input/json-object";
import { HogqlError, type tokenize } from "@/server/hogql/parse";

/** PostHog's HogQLFilters. Its `interval` and `breakdownFilter` only feed other placeholders: kept, unread. */
export const hogqlFiltersSchema = z
  .looseObject(
    {
      properties: propertiesField,
      filterTestAccounts: z.boolean({ error: "filters.filterTestAccounts must be a boolean." }).nullish(),
      dateRange: z
        .unknown()
        .refine(
          (value) => value === undefined || value === null || (isObject(value) && Object.values(value).every((bound) => bound === undefined || bound === null || bound === false)),
          "filters.dateRange is not supported yet; write the dates into the WHERE clause (timestamp >= '2024-03-01').",
        )
        .optional(),
    },
    { error: "filters must be an object: PostHog's HogQLFilters ({properties, filterTestAccounts})." },
  )
  .nullish();

type Token = ReturnType<typeof tokenize>[number];

/** A run of tokens, [from, to). */
export interface TokenRange {
  from: number;
  to: number;
}

const isOp = (token: Token | undefined, value: string) => token?.kind === "op" && token.value === value;
const isWord = (token: Token | undefined, word: string) => token?.kind === "ident" && !token.quoted && token.value.toLowerCase() === word;

/**
 * The WHERE clause's tokens (tokenized with placeholders) as the conditions to parse, the
 * `{filters}` terms cut out: the whole clause when it has none, else its top-level AND terms.
 * A placeholder anywhere else — inside parentheses, under NOT, beside a top-level OR, another
 * name — is a HogqlError at its position.
 */
export function cutFiltersPlaceholder(tokens: readonly Token[], from: number, to: number): { terms: TokenRange[]; placeholder: boolean } {
  const braces: number[] = [];
  for (let i = from; i < to; i++) if (isOp(tokens[i], "{") || isOp(tokens[i], "}")) braces.push(i);
  if (braces.length === 0) return { terms: [{ from, to }], placeholder: false };
  for (const i of braces) {
    if (!isOp(tokens[i], "{")) continue;
    const name = tokens[i + 1];
    if (name?.kind !== "ident" || !isOp(tokens[i + 2], "}")) throw new HogqlError("a placeholder is a name in braces: {filters}", tokens[i]!.pos);
    if (name.value !== "filters") throw new HogqlError(`only the {filters} placeholder is supported, not {${name.value}}`, tokens[i]!.pos);
  }
  const terms: TokenRange[] = [];
  let depth = 0;
  let start = from;
  let or: Token | null = null;
  for (let i = from; i < to; i++) {
    const token = tokens[i]!;
    if (isOp(token, "(")) depth++;
    else if (isOp(token, ")")) depth--;
    else if (depth === 0 && isWord(token, "or")) or ??= token;
    else if (depth === 0 && isWord(token, "and")) {
      if (i === start) throw new HogqlError("expected a condition before AND", token.pos);
      terms.push({ from: start, to: i });
      start = i + 1;
    }
  }
  if (start >= to) throw new HogqlError("expected a condition after AND", tokens[to - 1]!.pos);
  terms.push({ from: start, to });
  const isPlaceholder = (term: TokenRange) => term.to - term.from === 3 && isOp(tokens[term.from], "{");
  // The braces the placeholder terms hold, as a set: a text of thousands of them stays linear.
  const held = new Set(terms.filter(isPlaceholder).flatMap((term) => [term.from, term.to - 1]));
  const stray = braces.find((i) => !held.has(i));
  if (stray !== undefined) throw new HogqlError("{filters} must be the WHERE clause or one of its top-level AND terms", tokens[stray]!.pos);
  if (or) throw new HogqlError("{filters} cannot be ANDed beside a top-level OR: put the OR in parentheses", or.pos);
  return { terms: terms.filter((term) => !isPlaceholder(term)), placeholder: true };
}
