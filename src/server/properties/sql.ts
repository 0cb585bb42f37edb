/**
 * Property filters compiled to a PostgreSQL boolean expression over jsonb columns: the
 * filter tree (tree.ts) with the events semantics of the operator table (operators.ts),
 * those match.ts runs in memory. Every value the caller gave — property keys included —
 * goes in as a bind parameter; the SQL text holds only the table's constants and the column
 * expressions the caller passes in.
 */
import { AppError } from "@/server/errors";
import { foldSql } from "./coerce";
import type { PropertyFilter, PropertyNode } from "./contract";
import { leafSql, type PgLeaf } from "./operators";
import { SqlParams } from "./bind";
import { compileTree, groupsUnsupported, sqlTarget, type BehavioralResolver, type CohortResolver } from "./tree";

export { SqlParams };
export { pgNumericText } from "./operators";
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
  const { params } = context;
  if (filter.type === "group") return groupsUnsupported();
  const column = columnOf(filter, context);
  const key = params.add(filter.key, "text");
  const node = `(${column} -> ${key})`;
  const raw = `(${column} ->> ${key})`;
  const kind = `jsonb_typeof(${node})`;
  const leaf: PgLeaf = {
    params,
    column,
    key,
    node,
    raw,
    kind,
    text: `(CASE ${kind} WHEN 'null' THEN 'null' WHEN 'string' THEN ${raw} WHEN 'number' THEN ${raw} WHEN 'boolean' THEN ${raw} END)`,
    folded: foldSql,
  };
  return leafSql(filter, (events) => events.postgres(leaf, filter, context.now));
}

/** A boolean SQL expression that holds where the filter or group does; an empty group is TRUE. */
export function propertiesSql(node: PropertyNode, context: PropertySqlContext): string {
  return compileTree(node, sqlTarget("TRUE", (filter) => compileLeaf(filter, context), context.cohort, context.behavioral));
}
