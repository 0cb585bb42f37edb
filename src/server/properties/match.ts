/**
 * Property filters evaluated in memory: the filter tree (tree.ts) compiled to a predicate,
 * with the events semantics of the operator table (operators.ts) — those sql.ts and
 * clickhouse.ts compile for stored events; db/events/properties.int.test.ts checks that all
 * three give the same answers. Feature flags use flag-filters.ts (PostHog's flag semantics).
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
import { textOf } from "./coerce";
import type { PropertyFilter, PropertyNode } from "./contract";
import { matchesFlagPropertyFilter, type FlagPropertyFilter } from "./flag-filters";
import { decided, eventsOperator } from "./operators";
import { compileTree, type CohortResolver } from "./tree";

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

/** Whether `properties` satisfy one filter (its `type` is not looked at: the caller picked the properties). */
export function matchesPropertyFilter(filter: PropertyFilter, properties: Properties, options: MatchOptions = {}): boolean {
  const present = Object.prototype.hasOwnProperty.call(properties, filter.key);
  if (options.missing === "inconclusive" && !present) {
    throw new InconclusiveMatchError(`Property '${filter.key}' is not among the properties given.`);
  }
  const { events, negated } = eventsOperator(filter.operator);
  // A missing property: the positive operator fails, so its negation holds.
  let result = negated;
  if (present) {
    const value = properties[filter.key];
    result = decided(events.memory({ value, text: textOf(value) }, filter, options.now ?? new Date()), negated);
  }
  return filter.negation ? !result : result;
}

/** The properties each filter type reads. A missing source (an event without a person) reads as `{}`. */
export interface PropertySources {
  event?: Properties;
  person?: Properties | null;
  /** By group type index. */
  groups?: Readonly<Record<number, Properties>>;
  /** event_metadata leaves: the event's own columns (`event`, `distinct_id`, `elements_chain`). */
  metadata?: Properties;
}

/** A compiled tree: whether `sources` satisfy it, relative dates counting back from `now`. */
export type PropertyMatcher = (sources: PropertySources, now?: Date) => boolean;

export interface MatcherOptions {
  /** What a missing key means: absent from a full record (default), or unknown. */
  missing?: MatchOptions["missing"];
  /** Cohort leaves: the person-set test of a cohort (without it, a cohort leaf is refused). */
  cohort?: CohortResolver<PropertyMatcher>;
  /**
   * Whose operator semantics the leaves use: the events column (default, identical to SQL)
   * or the flags column (flag-filters.ts: PostHog's flags service and SDKs), for trees
   * feature flags evaluate, such as a cohort's.
   */
  semantics?: "events" | "flags";
}

function sourceOf(filter: PropertyFilter, sources: PropertySources): Properties {
  switch (filter.type) {
    case "person":
      return sources.person ?? {};
    case "group":
      return sources.groups?.[filter.groupTypeIndex ?? -1] ?? {};
    case "event_metadata":
      return sources.metadata ?? {};
    default:
      return sources.event ?? {};
  }
}

/** The tree as a predicate over properties: build it once, run it on many events. */
export function propertyMatcher(node: PropertyNode, options: MatcherOptions = {}): PropertyMatcher {
  const { missing } = options;
  const leaf =
    options.semantics === "flags"
      ? // PostHog's flag code reads every leaf but a group's against the person, whatever its `type`.
        (filter: PropertyFilter) => (sources: PropertySources, now: Date) =>
          matchesFlagPropertyFilter(filter as FlagPropertyFilter, filter.type === "group" ? sourceOf(filter, sources) : (sources.person ?? {}), now)
      : (filter: PropertyFilter) => (sources: PropertySources, now: Date) => matchesPropertyFilter(filter, sourceOf(filter, sources), { now, missing });
  const matcher = compileTree<(sources: PropertySources, now: Date) => boolean>(node, {
    all: (parts) => (sources, now) => parts.every((part) => part(sources, now)),
    any: (parts) => (sources, now) => parts.some((part) => part(sources, now)),
    not: (part) => (sources, now) => !part(sources, now),
    leaf,
    cohort: options.cohort,
  });
  return (sources, now = new Date()) => matcher(sources, now);
}

/** Whether a filter or group holds: AND needs every entry, OR any; an empty group holds. */
export function matchesProperties(node: PropertyNode, sources: PropertySources, options: MatchOptions & MatcherOptions = {}): boolean {
  return propertyMatcher(node, options)(sources, options.now);
}
