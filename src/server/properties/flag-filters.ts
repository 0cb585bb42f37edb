/**
 * Property filters as feature flags read them — the flags column of the operator table
 * (operators.ts), in memory: PostHog's flag JSON (`{key, value, operator,
 * type}` as stored in `filters.groups[].properties`), matched with the coercion of PostHog's
 * flags service — the rules posthog-node's local evaluation mirrors, so that a flag gives
 * the same answer on the server and in an SDK. They differ from the events filters
 * (match.ts, kept identical to SQL) where PostHog's flag code does:
 *
 * - exact / is_not: a filter value that is a boolean or "true"/"false" (or a list of only
 *   those) compares truthiness: "true"/true (any case) is truthy, everything else falsy —
 *   so `false` matches any value that is not truthy. Otherwise the texts are compared
 *   lower-cased (Unicode), numbers and objects by their JSON text.
 * - icontains, starts_with, ends_with (and their negations): ASCII-folded substring tests
 *   (a list reads as its items joined by commas, as in the SDKs).
 * - regex / not_regex: an RE2 regular expression (regex.ts) searched in the value's text,
 *   case-sensitive; a pattern RE2 cannot run matches neither way.
 * - gt / gte / lt / lte: `parseFloat` of both sides, numerically when both are finite,
 *   else the texts in UTF-16 order; a null value never compares.
 * - is_date_before / is_date_after: the filter is relative (`-7d`, `30d`: h, d, w, m, y,
 *   n < 10000) or a date JavaScript parses; the value a date string or epoch number.
 * - semver_*: `major.minor.patch` (leading `v`, pre-release and build ignored, missing
 *   parts 0); tilde, caret and wildcard ranges as PostHog computes them.
 * - A key the properties lack (the server holds the whole person): is_not_set and the
 *   negative operators (is_not, not_icontains, not_regex, not_starts_with, not_ends_with)
 *   hold, every other operator fails — PostHog's flags service answers so.
 * - A null value matches the text operators as the string "null" and fails the others.
 */
import { ALL_OPERATORS, decided, positiveOf, type Operator } from "./operators";

export { flagValueText, relativeFlagDate } from "./flag-coerce";

/** One filter as PostHog stores it in a flag's conditions. */
export interface FlagPropertyFilter {
  key: string;
  value?: unknown;
  operator?: string | null;
  /** person | group | cohort | flag (others are read as person). */
  type?: string | null;
  negation?: boolean | null;
  group_type_index?: number | null;
  /** `flag` filters: the keys to evaluate first, ending with `key`. */
  dependency_chain?: string[];
}

/** The events filters' operators, and those only flags have: every operator of the table. */
export const FLAG_PROPERTY_OPERATORS: readonly Operator[] = ALL_OPERATORS;
export type FlagPropertyOperator = Operator;

function evaluate(filter: FlagPropertyFilter, properties: Readonly<Record<string, unknown>>, now: Date): boolean {
  const operator = filter.operator || "exact";
  const positive = positiveOf(operator);
  if (!positive) return false; // an operator PostHog does not have matches nothing
  const present = Object.prototype.hasOwnProperty.call(properties, filter.key) && properties[filter.key] !== undefined;
  // A missing property: the positive operator fails, so its negation holds.
  if (!present) return positive.negated;
  const actual = properties[filter.key];
  if (actual === null && !positive.row.flagsNullAsText) return false;
  return decided(positive.row.flags(actual, filter.value, operator, now), positive.negated);
}

/** Whether `properties` (a person's or a group's, complete) satisfy one flag filter. */
export function matchesFlagPropertyFilter(
  filter: FlagPropertyFilter,
  properties: Readonly<Record<string, unknown>>,
  now: Date = new Date(),
): boolean {
  const result = evaluate(filter, properties, now);
  return filter.negation ? !result : result;
}
