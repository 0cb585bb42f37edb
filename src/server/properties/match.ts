/**
 * Property filters evaluated in memory (feature flags). The semantics are those of
 * sql.ts, which compiles the same filters for stored events; a test checks that both
 * give the same answers over stored events.
 *
 * - A missing key: is_set false, is_not_set true, the negative operators (is_not,
 *   not_icontains, not_regex) true, every other operator false — a server holding the
 *   whole record knows the property is absent. With `missing: "inconclusive"` (an SDK
 *   with partial properties) a missing key throws InconclusiveMatchError instead.
 * - exact / is_not: case-insensitive (ASCII) equality of the value's text with any listed
 *   value; booleans read "true"/"false", null reads "null".
 * - icontains / not_icontains: case-insensitive (ASCII) substring. regex / not_regex: an
 *   RE2 regular expression (regex.ts) searched in the value's text (case-sensitive).
 * - gt / gte / lt / lte: numerically when both sides are numbers (or decimal strings),
 *   else by comparing the texts code point by code point; a null value is never compared.
 * - is_date_before / is_date_after: the value must be an ISO 8601 string; the filter's date
 *   is ISO 8601 or relative to `now` (`-7d`).
 * - Objects and arrays have no text: no positive comparison matches them.
 */
import { compareCodePoints, dateOf, filterDate, fold, numberOf, textOf } from "./coerce";
import { regexFinds } from "./regex";
import { isPropertyGroup, type PropertyFilter, type PropertyNode, type ScalarValue } from "./contract";

export class InconclusiveMatchError extends Error {
  override name = "InconclusiveMatchError";
}

export interface MatchOptions {
  /** The time relative dates count back from. */
  now?: Date;
  /** What a missing key means: absent from a full record (default), or unknown. */
  missing?: "absent" | "inconclusive";
}

type Properties = Readonly<Record<string, unknown>>;

function compare(operator: "gt" | "gte" | "lt" | "lte", order: number): boolean {
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

function one(value: PropertyFilter["value"]): ScalarValue {
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function evaluate(filter: PropertyFilter, properties: Properties, now: Date): boolean {
  const present = Object.prototype.hasOwnProperty.call(properties, filter.key);
  const value = present ? properties[filter.key] : undefined;
  const text = present ? textOf(value) : null;
  switch (filter.operator) {
    case "is_set":
      return present;
    case "is_not_set":
      return !present;
    case "exact":
    case "is_not": {
      const listed = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((item) => fold(textOf(item)!));
      const equal = text !== null && listed.includes(fold(text));
      return filter.operator === "exact" ? equal : !equal;
    }
    case "icontains":
    case "not_icontains": {
      const contains = text !== null && fold(text).includes(fold(textOf(one(filter.value))!));
      return filter.operator === "icontains" ? contains : !contains;
    }
    case "regex":
    case "not_regex": {
      let found = false;
      if (text !== null) {
        const result = regexFinds(String(one(filter.value)), text);
        if (result === null) return false; // an invalid pattern matches neither way (the schema rejects them)
        found = result;
      }
      return filter.operator === "regex" ? found : !found;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      if (text === null || value === null) return false;
      const target = one(filter.value);
      const left = numberOf(value);
      const right = numberOf(target);
      if (left !== null && right !== null) return compare(filter.operator, left === right ? 0 : left < right ? -1 : 1);
      return compare(filter.operator, compareCodePoints(text, textOf(target)!));
    }
    case "is_date_before":
    case "is_date_after": {
      const date = dateOf(value);
      const target = filterDate(String(one(filter.value)), now);
      if (!date || !target) return false;
      return filter.operator === "is_date_before" ? date.getTime() < target.getTime() : date.getTime() > target.getTime();
    }
  }
}

/** Whether `properties` satisfy one filter (its `type` is not looked at: the caller picked the properties). */
export function matchesPropertyFilter(filter: PropertyFilter, properties: Properties, options: MatchOptions = {}): boolean {
  if (options.missing === "inconclusive" && !Object.prototype.hasOwnProperty.call(properties, filter.key)) {
    throw new InconclusiveMatchError(`Property '${filter.key}' is not among the properties given.`);
  }
  const result = evaluate(filter, properties, options.now ?? new Date());
  return filter.negation ? !result : result;
}

/** The properties each filter type reads. A missing source (an event without a person) reads as `{}`. */
export interface PropertySources {
  event?: Properties;
  person?: Properties | null;
}

/** Whether a filter or group holds: AND needs every entry, OR any; an empty group holds. */
export function matchesProperties(node: PropertyNode, sources: PropertySources, options: MatchOptions = {}): boolean {
  const now = options.now ?? new Date();
  if (isPropertyGroup(node)) {
    if (node.values.length === 0) return true;
    return node.type === "AND"
      ? node.values.every((child) => matchesProperties(child, sources, { ...options, now }))
      : node.values.some((child) => matchesProperties(child, sources, { ...options, now }));
  }
  return matchesPropertyFilter(node, (node.type === "person" ? sources.person : sources.event) ?? {}, { ...options, now });
}
