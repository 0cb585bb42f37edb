/**
 * Property filters compiled to a PostgreSQL boolean expression over jsonb columns: the
 * filter tree (tree.ts) with the events semantics of the operator table (operators.ts) in
 * PostgreSQL's dialect (sql/postgres.ts; leafInDialect serves ClickHouse's too),
 * those match.ts runs in memory. Every value the caller gave — property keys included —
 * goes in as a bind parameter; the SQL text holds only the table's constants and the column
 * expressions the caller passes in.
 */
import { AppError } from "@/server/errors";
import type { Binder } from "@/server/sql/bind";
import { SqlParams } from "@/server/sql/bind";
import type { SqlDialect } from "@/server/sql/dialect";
import { POSTGRES } from "@/server/sql/postgres";
import type { PropertyFilter, PropertyNode } from "./contract";
import { leafSql, type EventsOperator, type SqlLeaf } from "./operators";
import { compileTree, groupsUnsupported, sqlTarget, type BehavioralResolver, type CohortResolver } from "./tree";

export { SqlParams };
export { readsPersonProperties } from "./tree";

/** `text` as a LIKE / ILIKE pattern (backslash escapes, PostgreSQL's default) that matches only itself: its `%`, `_` and backslashes escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/** A LIKE / ILIKE pattern matching any text that contains `text` literally. */
export function containsPattern(text: string): string {
  return `%${likeLiteral(text)}%`;
}

export interface PropertySqlContext {
  params: SqlParams;
  /**
   * SQL for the jsonb each filter type reads, never null (e.g. `e.properties`, `COALESCE(p.properties, '{}'::jsonb)`).
   * `metadata` (event_metadata leaves): the event's own columns as a jsonb record; without it,
   * built from the events row whose properties `event` names (`<alias>.properties`).
   */
  columns: { event: string; person: string; metadata?: string };
  /** The time relative dates count back from. */
  now: Date;
  /** Cohort leaves: SQL testing the row's person's membership (without it, a cohort leaf is refused). */
  cohort?: CohortResolver<string>;
  /** Behavioral leaves: SQL testing that the row's person performed the event (without it, refused). */
  behavioral?: BehavioralResolver<string>;
}

/**
 * A leaf on the properties in `column` (JSON of the dialect) in SQL: the operator's own
 * inversion (is_not, …) and the leaf's `negation` applied. `around` may rewrite the
 * operator's expression (ClickHouse's materialised columns, properties/clickhouse.ts).
 */
export function leafInDialect(
  dialect: SqlDialect,
  params: Binder,
  column: string,
  filter: PropertyFilter,
  now: Date,
  around: (sql: (events: EventsOperator) => string) => (events: EventsOperator) => string = (sql) => sql,
): string {
  const ref = { column, key: params.add(filter.key, "text") };
  const leaf: SqlLeaf = { dialect, params, ref, property: dialect.property(ref) };
  return leafSql(filter, around((events) => events.sql(leaf, filter, now)));
}

/** The event's own columns as a jsonb record of EVENT_METADATA_KEYS, for the events row whose properties column is `eventColumn`. */
export function pgMetadataColumn(eventColumn: string): string {
  const alias = /^(\w+)\.properties$/.exec(eventColumn)?.[1];
  if (!alias) throw new AppError("invalid_input", "event_metadata filters are not supported here.", "properties");
  // posthog-js sends the chain as the `$elements_chain` property; ingestion keeps it there (the column is empty then).
  const chain = `COALESCE(NULLIF(${alias}.elements_chain, ''), ${alias}.properties ->> '$elements_chain', '')`;
  return `jsonb_build_object('event', ${alias}.event, 'distinct_id', ${alias}.distinct_id, 'elements_chain', ${chain})`;
}

function columnOf(filter: PropertyFilter, context: PropertySqlContext): string {
  if (filter.type === "person") return context.columns.person;
  if (filter.type === "event_metadata") return context.columns.metadata ?? pgMetadataColumn(context.columns.event);
  return context.columns.event;
}

function compileLeaf(filter: PropertyFilter, context: PropertySqlContext): string {
  if (filter.type === "group") return groupsUnsupported();
  return leafInDialect(POSTGRES, context.params, columnOf(filter, context), filter, context.now);
}

/** A boolean SQL expression that holds where the filter or group does; an empty group is TRUE. */
export function propertiesSql(node: PropertyNode, context: PropertySqlContext): string {
  return compileTree(node, sqlTarget("TRUE", (filter) => compileLeaf(filter, context), context.cohort, context.behavioral));
}
