/**
 * Property filters compiled to a PostgreSQL boolean expression over jsonb columns: the
 * filter tree (tree.ts) with the events semantics of the operator table (operators.ts) in
 * PostgreSQL's dialect (sql/postgres.ts; leafInDialect serves ClickHouse's too),
 * those match.ts runs in memory. Every value the caller gave — property keys included —
 * goes in as a bind parameter; the SQL text holds only the table's constants and the column
 * expressions the caller passes in.
 */
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
  /** SQL for the jsonb each filter type reads, never null (e.g. `e.properties`, `COALESCE(p.properties, '{}'::jsonb)`). */
  columns: { event: string; person: string };
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

function compileLeaf(filter: PropertyFilter, context: PropertySqlContext): string {
  if (filter.type === "group") return groupsUnsupported();
  const column = filter.type === "person" ? context.columns.person : context.columns.event;
  return leafInDialect(POSTGRES, context.params, column, filter, context.now);
}

/** A boolean SQL expression that holds where the filter or group does; an empty group is TRUE. */
export function propertiesSql(node: PropertyNode, context: PropertySqlContext): string {
  return compileTree(node, sqlTarget("TRUE", (filter) => compileLeaf(filter, context), context.cohort, context.behavioral));
}
