/**
 * Property filters compiled to a ClickHouse boolean expression over the events' JSON String
 * column: the filter tree (tree.ts) with the events semantics of the operator table
 * (operators.ts) in ClickHouse's dialect (sql/clickhouse.ts), as match.ts and sql.ts compute them — ASCII-only case folding (ClickHouse's
 * `lower` folds ASCII only), numbers and booleans compared by their JSON text, numeric
 * comparison when both sides are numbers, RE2 regular expressions (`match`).
 *
 * Persons live in PostgreSQL: the caller says how a person leaf reads (`person`, the event
 * store's resolved person sets, see db/events/filters/clickhouse.ts), negation included.
 */
import { AppError } from "@/server/errors";
import type { Binder } from "@/server/sql/bind";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import type { PropertyFilter, PropertyNode } from "./contract";
import { fold, textOf } from "./coerce";
import { leafInDialect } from "./sql";
import { compileTree, groupsUnsupported, sqlTarget, type CohortResolver } from "./tree";

export interface ChFilterContext {
  params: Binder;
  /** The events' JSON properties column. */
  column: string;
  /** A person-property leaf, its negation included. */
  person(filter: PropertyFilter): string;
  now: Date;
  /** Cohort leaves: the test of the event's person's membership (without it, a cohort leaf is refused). */
  cohort?: CohortResolver<string>;
  /** A materialised column beside `column` holding a key's text ('' when missing or null), or null: see hotExact. */
  hotColumn?(key: string): string | null;
}

/**
 * An exact leaf (or is_not's positive half) on a key with a materialised column, read from
 * that column, or null: the JSON of every event is then left unparsed, and ClickHouse reads
 * one narrow column. The column holds a string's own text and another scalar's JSON text, as
 * the leaf reads them, but '' for a missing key or JSON null (which the leaf reads as no
 * text, and 'null') and an object's or array's JSON (no text). So the column's test is
 * the leaf's when the list holds no "", no "null" and nothing that opens an object or array;
 * without "null" it still holds wherever the leaf does, and goes first as a cheap pretest.
 */
function hotExact(filter: PropertyFilter, context: ChFilterContext): { sql: string; equivalent: boolean } | null {
  if (filter.type !== "event" || (filter.operator !== "exact" && filter.operator !== "is_not")) return null;
  const column = context.hotColumn?.(filter.key) ?? null;
  if (column === null) return null;
  const listed = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((item) => textOf(item));
  if (listed.some((text) => text === null || fold(text) === "null")) return null;
  const folded = listed.map((text) => fold(text!));
  return {
    sql: `has(${context.params.add(folded, "text[]")}, lower(${column}))`,
    equivalent: folded.every((text) => text !== "" && !text.startsWith("{") && !text.startsWith("[")),
  };
}

/** The event's own columns as JSON text of EVENT_METADATA_KEYS, for the events row whose properties column is `column`. */
export function chMetadataColumn(column: string): string {
  const alias = /^(\w+)\.properties$/.exec(column)?.[1];
  if (!alias) throw new AppError("invalid_input", "event_metadata filters are not supported here.", "properties");
  // posthog-js sends the chain as the `$elements_chain` property; ingestion keeps it there (the column is empty then).
  const chain = `if(${alias}.elements_chain != '', ${alias}.elements_chain, JSONExtractString(${alias}.properties, '$elements_chain'))`;
  return `toJSONString(map('event', ${alias}.event, 'distinct_id', ${alias}.distinct_id, 'elements_chain', ${chain}))`;
}

function compileLeaf(filter: PropertyFilter, context: ChFilterContext): string {
  if (filter.type === "event_metadata") return leafInDialect(CLICKHOUSE, context.params, chMetadataColumn(context.column), filter, context.now);
  const hot = hotExact(filter, context);
  return leafInDialect(CLICKHOUSE, context.params, context.column, filter, context.now, (sql) => (events) => {
    if (hot === null) return sql(events);
    return hot.equivalent ? hot.sql : `(${hot.sql} AND ${sql(events)})`;
  });
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
