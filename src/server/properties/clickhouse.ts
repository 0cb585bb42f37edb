/**
 * Property filters compiled to a ClickHouse boolean expression over the events' JSON String
 * column: the filter tree (tree.ts) with the events semantics of the operator table
 * (operators.ts), as match.ts and sql.ts compute them — ASCII-only case folding (ClickHouse's
 * `lower` folds ASCII only), numbers and booleans compared by their JSON text, numeric
 * comparison when both sides are numbers, RE2 regular expressions (`match`).
 *
 * Persons live in PostgreSQL: the caller says how a person leaf reads (`person`, the event
 * store's resolved person sets, see db/events/clickhouse/properties.ts), negation included.
 */
import type { Binder } from "./bind";
import type { PropertyFilter, PropertyNode } from "./contract";
import { leafSql, type ChLeaf } from "./operators";
import { compileTree, groupsUnsupported, sqlTarget, type CohortResolver } from "./tree";

export { chNumericText } from "./operators";

export interface ChFilterContext {
  params: Binder;
  /** The events' JSON properties column. */
  column: string;
  /** A person-property leaf, its negation included. */
  person(filter: PropertyFilter): string;
  now: Date;
  /** Cohort leaves: the test of the event's person's membership (without it, a cohort leaf is refused). */
  cohort?: CohortResolver<string>;
}

function compileLeaf(filter: PropertyFilter, context: ChFilterContext): string {
  const { params, column } = context;
  const key = params.add(filter.key, "text");
  // textOf: strings as they are, numbers and booleans as JSON writes them, null as 'null',
  // objects/arrays and missing as NULL (as in PostgreSQL and the matcher: no text). Read from the value's raw JSON ('' when
  // missing), so that the event's JSON is parsed once, not once per test of its type.
  const raw = `JSONExtractRaw(${column}, ${key})`;
  const leaf: ChLeaf = {
    params,
    column,
    key,
    type: `JSONType(${column}, ${key})`,
    has: `JSONHas(${column}, ${key})`,
    text: `multiIf(${raw} = '', NULL, startsWith(${raw}, '"'), JSONExtractString(${raw}), startsWith(${raw}, '[') OR startsWith(${raw}, '{'), NULL, ${raw})`,
  };
  return leafSql(filter, (events) => events.clickhouse(leaf, filter, context.now));
}

/** A boolean ClickHouse expression that holds where the filter or group does; an empty group is true. */
export function chFilterSql(node: PropertyNode, context: ChFilterContext): string {
  const leaf = (filter: PropertyFilter) => {
    if (filter.type === "person") return context.person(filter);
    if (filter.type === "group") return groupsUnsupported();
    return compileLeaf(filter, context);
  };
  return compileTree(node, sqlTarget("true", leaf, context.cohort));
}
