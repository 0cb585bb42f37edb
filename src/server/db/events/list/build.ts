/**
 * The list's SQL both stores write alike (postgres.ts, clickhouse.ts): its conditions and
 * order, the HogQL `select` read and its rows, and the values sample — one builder each,
 * parameterised by the dialect: how the uuid reads as text and compares, how a row is
 * "before" a cursor, JSON access. What differs in strategy, not in spelling, stays with each
 * store: property and person filters (persons live in PostgreSQL) and the ClickHouse list's
 * time windows.
 *
 * Every value from a request is a bind parameter (`params`, SqlParams or ChParams).
 */
import type { CompiledSelect } from "@/server/hogql/compile";
import { fold } from "@/server/properties/coerce";
import type { Binder } from "@/server/sql/bind";
import type { SqlDialect } from "@/server/sql/dialect";
import { EVENT_VALUES_LIMITS, type EventCursor, type EventListQuery, type EventValuesQuery, type ListPage, type SelectPage } from "./query";

/**
 * WHERE conditions of a list query that both stores write alike, in the order the indexes
 * want them: project, event, distinct id, person, then the time bounds. `personById` gives
 * the condition for a person given by integer id (the project's placeholder at hand).
 */
export function listConditions(
  dialect: SqlDialect,
  params: Binder,
  projectId: number,
  query: EventListQuery,
  cursor: EventCursor | null,
  personById: (project: string, id: number) => string,
): string[] {
  const project = params.add(projectId, "int");
  const where = [`e.project_id = ${project}`];
  if (query.event !== null) where.push(`e.event = ${params.add(query.event, "text")}`);
  if (query.distinctId !== null) where.push(`e.distinct_id = ${params.add(query.distinctId, "text")}`);
  if (query.personId !== null) {
    where.push("uuid" in query.personId ? `e.person_id = ${params.add(query.personId.uuid, "uuid")}` : personById(project, query.personId.id));
  }
  if (query.after !== null) where.push(`e.timestamp > ${params.add(query.after.toISOString(), "timestamptz")}`);
  const upTo = (time: Date, uuid: string | null) => {
    const at = params.add(time.toISOString(), "timestamptz");
    where.push(uuid === null ? `e.timestamp < ${at}` : dialect.before(at, params.add(uuid, dialect.uuidCast)));
  };
  if (query.before !== null) upTo(query.before, query.beforeUuid);
  if (cursor !== null) upTo(cursor.timestamp, cursor.uuid);
  return where;
}

/**
 * The HogQL `select` read over `from` (built with the page's cursor unless aggregated): the
 * columns as c0…, with the row's place in the list when not aggregated; aggregated rows
 * grouped, the first aggregate descending, then the other columns.
 */
export function selectStatement(dialect: SqlDialect, params: Binder, compiled: CompiledSelect, from: string, page: ListPage): string {
  const aggregated = compiled.groupBy !== null;
  const columns = compiled.columns.map((column, i) => `${column} AS c${i}`);
  let tail: string;
  if (!aggregated) {
    columns.push("e.timestamp AS cursor_timestamp", `${dialect.fields.uuid} AS cursor_uuid`);
    tail = dialect.order;
  } else {
    const group = compiled.groupBy!.length > 0 ? `GROUP BY ${compiled.groupBy!.join(", ")} ` : "";
    tail = `${group}ORDER BY ${[`${compiled.firstAggregate} DESC`, ...compiled.groupBy!.map(String)].join(", ")}`;
  }
  const limit = params.add(page.limit, "int");
  const offset = params.add(aggregated || page.cursor === null ? page.offset : 0, "bigint");
  return `SELECT ${columns.join(", ")} ${from} ${tail} LIMIT ${limit} OFFSET ${offset}${dialect.smallAnswer}`;
}

/** The rows of `selectStatement`, with each value as the store reads it by the column's type. */
export function selectPageOf(
  compiled: CompiledSelect,
  rows: Record<string, unknown>[],
  valueOf: (type: string, value: unknown) => unknown,
  timeOf: (value: unknown) => Date,
): SelectPage {
  const aggregated = compiled.groupBy !== null;
  return {
    types: compiled.types,
    aggregated,
    rows: rows.map((row) => ({
      values: compiled.types.map((type, i) => valueOf(type, row[`c${i}`])),
      cursor: aggregated ? null : { timestamp: timeOf(row.cursor_timestamp), uuid: row.cursor_uuid as string },
    })),
  };
}

/**
 * `values`: the newest `sample` events of the project having the key (of the event, when
 * given), their values spread into items (a list's elements), null left out, the prefix
 * kept, most frequent first, ties in text order.
 */
export function valuesStatement(dialect: SqlDialect, params: Binder, table: string, projectId: number, query: EventValuesQuery): string {
  const key = params.add(query.key, "text");
  const where = [`e.project_id = ${params.add(projectId, "int")}`, dialect.hasKey(key)];
  if (query.eventName !== null) where.push(`e.event = ${params.add(query.eventName, "text")}`);
  const prefix = query.prefix === null ? "" : ` AND ${dialect.itemPrefix(fold(query.prefix), params)}`;
  return `WITH sample AS (
         SELECT ${dialect.jsonValue(key)} AS value FROM ${table} WHERE ${where.join(" AND ")}
          ORDER BY e.timestamp DESC LIMIT ${params.add(EVENT_VALUES_LIMITS.sample, "int")}
       )
       SELECT item AS name FROM ${dialect.items}
        WHERE ${dialect.itemNotNull}${prefix}
        GROUP BY item
        ORDER BY ${dialect.count} DESC, ${dialect.itemOrder}
        LIMIT ${params.add(EVENT_VALUES_LIMITS.limit, "int")}`;
}
