/**
 * Reading stored events: the list (newest first, with filters compiled to parameterised
 * SQL), one event, the persons of a page, and the values of a property. Every value from a
 * request is a bind parameter (SqlParams); the SQL text is this file's and sql.ts's own.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { fold, LOWER_ASCII, UPPER_ASCII } from "@/server/properties/coerce";
import { isPropertyGroup, type PropertyNode } from "@/server/properties/contract";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { compileSelect, compileWhere, readsPerson } from "./hogql/compile";
import { EVENT_LIMITS, type EventListQuery, type EventValuesQuery } from "./params";

export interface EventRow {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  person_id: string | null;
  elements_chain: string;
}

export interface PersonSummary {
  uuid: string;
  is_identified: boolean;
  properties: Record<string, unknown>;
  distinct_ids: string[];
}

/** A position in the list (newest first): events strictly after it in that order. */
export interface EventCursor {
  timestamp: Date;
  uuid: string;
}

const COLUMNS = `e.uuid::text AS uuid, e.event, e.distinct_id, e.properties, e.timestamp, e.person_id::text AS person_id, e.elements_chain`;
const ORDER = `ORDER BY e.timestamp DESC, e.uuid DESC`;

/** FROM and WHERE of a list query; filters in the order the indexes want them. */
function listFrom(projectId: number, query: EventListQuery, params: SqlParams, now: Date, cursor: EventCursor | null): string {
  const project = params.add(projectId, "int");
  const where = [`e.project_id = ${project}`];
  if (query.event !== null) where.push(`e.event = ${params.add(query.event, "text")}`);
  if (query.distinctId !== null) where.push(`e.distinct_id = ${params.add(query.distinctId, "text")}`);
  if (query.personId !== null) {
    where.push(
      "uuid" in query.personId
        ? `e.person_id = ${params.add(query.personId.uuid, "uuid")}`
        : `e.person_id = (SELECT p.uuid FROM persons p WHERE p.project_id = ${project} AND p.id = ${params.add(query.personId.id, "int")})`,
    );
  }
  if (query.after !== null) where.push(`e.timestamp > ${params.add(query.after.toISOString(), "timestamptz")}`);
  if (query.before !== null) {
    const before = params.add(query.before.toISOString(), "timestamptz");
    where.push(query.beforeUuid === null ? `e.timestamp < ${before}` : `(e.timestamp, e.uuid) < (${before}, ${params.add(query.beforeUuid, "uuid")})`);
  }
  if (cursor !== null) {
    where.push(`(e.timestamp, e.uuid) < (${params.add(cursor.timestamp.toISOString(), "timestamptz")}, ${params.add(cursor.uuid, "uuid")})`);
  }
  const person =
    (query.properties !== null && readsPersonProperties(query.properties)) ||
    readsPerson([...(query.where ?? []), ...(query.select ?? []).map((item) => item.expr)]);
  const join = person ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : "";
  if (query.where) where.push(compileWhere(query.where, { params, columns: { event: "e.properties", person: "pp.properties" } }));
  if (query.properties !== null) {
    where.push(
      propertiesSql(query.properties, {
        params,
        columns: { event: "e.properties", person: person ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" },
        now,
      }),
    );
  }
  return `FROM events e${join} WHERE ${where.join(" AND ")}`;
}

/**
 * One page of the list, newest first (ties by uuid, so pages never overlap): `limit` rows
 * after skipping `offset`, or after `cursor` when given (then `offset` is not applied).
 */
export async function listEventRows(
  sql: SqlExecutor,
  projectId: number,
  query: EventListQuery,
  page: { limit: number; offset: number; cursor: EventCursor | null; now: Date },
): Promise<EventRow[]> {
  const params = new SqlParams();
  const from = listFrom(projectId, query, params, page.now, page.cursor);
  const limit = params.add(page.limit, "int");
  const offset = params.add(page.offset, "bigint");
  return sql.query<EventRow>(`SELECT ${COLUMNS} ${from} ${ORDER} LIMIT ${limit} OFFSET ${offset}`, params.values);
}

export interface SelectRow {
  /** The selected values, in select order (timestamps as ISO text). */
  values: unknown[];
  /** Where this row is in the list, for `next`; null when the rows are aggregated. */
  cursor: EventCursor | null;
}

/**
 * One page with the experimental `select`: the selected columns of each event, newest
 * first — or, when a column aggregates (count), one row per distinct combination of the
 * other columns, the first aggregate descending (then the other columns ascending).
 * `cursor` is applied only to rows that are not aggregated (aggregated rows page by offset).
 */
export async function listSelectRows(
  sql: SqlExecutor,
  projectId: number,
  query: EventListQuery,
  page: { limit: number; offset: number; cursor: EventCursor | null; now: Date },
): Promise<{ types: string[]; aggregated: boolean; rows: SelectRow[] }> {
  const params = new SqlParams();
  const compiled = compileSelect(query.select!, { params, columns: { event: "e.properties", person: "pp.properties" } });
  const aggregated = compiled.groupBy !== null;
  const from = listFrom(projectId, query, params, page.now, aggregated ? null : page.cursor);
  const columns = compiled.columns.map((column, i) => `${column} AS c${i}`);
  let tail: string;
  if (!aggregated) {
    columns.push("e.timestamp AS cursor_timestamp", "e.uuid::text AS cursor_uuid");
    tail = ORDER;
  } else {
    const group = compiled.groupBy!.length > 0 ? `GROUP BY ${compiled.groupBy!.join(", ")} ` : "";
    tail = `${group}ORDER BY ${[`${compiled.firstAggregate} DESC`, ...compiled.groupBy!.map(String)].join(", ")}`;
  }
  const limit = params.add(page.limit, "int");
  const offset = params.add(aggregated || page.cursor === null ? page.offset : 0, "bigint");
  const rows = await sql.query<Record<string, unknown>>(`SELECT ${columns.join(", ")} ${from} ${tail} LIMIT ${limit} OFFSET ${offset}`, params.values);
  return {
    types: compiled.types,
    aggregated,
    rows: rows.map((row) => ({
      values: compiled.columns.map((_, i) => {
        const value = row[`c${i}`];
        return value instanceof Date ? value.toISOString() : value;
      }),
      cursor: aggregated ? null : { timestamp: row.cursor_timestamp as Date, uuid: row.cursor_uuid as string },
    })),
  };
}

/**
 * Compiles every regular expression of the filters once, on no data: PostgreSQL compiles a
 * pattern only when a row reaches it, so without this a pattern it refuses would fail (or
 * not) depending on the data — and a CSV export could fail halfway through its stream.
 */
export async function checkRegexes(sql: SqlExecutor, node: PropertyNode | null): Promise<void> {
  const patterns: string[] = [];
  const walk = (n: PropertyNode) => {
    if (isPropertyGroup(n)) n.values.forEach(walk);
    else if (n.operator === "regex" || n.operator === "not_regex") patterns.push(String(n.value));
  };
  if (node) walk(node);
  if (patterns.length === 0) return;
  await sql.query(`SELECT ${patterns.map((_, i) => `'' ~ $${i + 1}::text`).join(", ")}`, patterns);
}

export async function getEventRow(sql: SqlExecutor, projectId: number, uuid: string): Promise<EventRow | null> {
  const rows = await sql.query<EventRow>(`SELECT ${COLUMNS} FROM events e WHERE e.project_id = $1::int AND e.uuid = $2::uuid`, [projectId, uuid]);
  return rows[0] ?? null;
}

/** The persons of some events, with every distinct id (oldest first), by uuid. */
export async function personsByUuid(sql: SqlExecutor, projectId: number, uuids: readonly (string | null)[]): Promise<Map<string, PersonSummary>> {
  const wanted = [...new Set(uuids.filter((uuid): uuid is string => uuid !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await sql.query<PersonSummary>(
    `SELECT p.uuid::text AS uuid, p.is_identified, p.properties,
            COALESCE((SELECT jsonb_agg(d.distinct_id ORDER BY d.id) FROM person_distinct_ids d WHERE d.person_id = p.id), '[]'::jsonb) AS distinct_ids
       FROM persons p
      WHERE p.project_id = $1::int AND p.uuid = ANY($2::uuid[])`,
    [projectId, wanted],
  );
  return new Map(rows.map((row) => [row.uuid, row]));
}

/**
 * Distinct values of one event property, most frequent first (ties in text order), read
 * from the newest `valuesSample` events that have it: a list element counts as a value,
 * null is left out. `prefix` keeps values whose text starts with it, ignoring ASCII case.
 */
export async function propertyValues(sql: SqlExecutor, projectId: number, query: EventValuesQuery): Promise<unknown[]> {
  const params = new SqlParams();
  const project = params.add(projectId, "int");
  const key = params.add(query.key, "text");
  const where = [`e.project_id = ${project}`, `e.properties ? ${key}`];
  if (query.eventName !== null) where.push(`e.event = ${params.add(query.eventName, "text")}`);
  const itemText = `(CASE jsonb_typeof(item) WHEN 'string' THEN item #>> '{}' ELSE item::text END)`;
  const having = query.prefix === null
    ? ""
    : ` AND starts_with(translate(${itemText}, ${params.add(UPPER_ASCII, "text")}, ${params.add(LOWER_ASCII, "text")}), ${params.add(fold(query.prefix), "text")})`;
  const sample = params.add(EVENT_LIMITS.valuesSample, "int");
  const limit = params.add(EVENT_LIMITS.valuesLimit, "int");
  const rows = await sql.query<{ name: unknown }>(
    `WITH sample AS (
       SELECT e.properties -> ${key} AS value FROM events e WHERE ${where.join(" AND ")}
        ORDER BY e.timestamp DESC LIMIT ${sample}
     ), items AS (
       SELECT item FROM sample,
         LATERAL jsonb_array_elements(CASE jsonb_typeof(sample.value) WHEN 'array' THEN sample.value ELSE jsonb_build_array(sample.value) END) AS item
     )
     SELECT item AS name FROM items
      WHERE jsonb_typeof(item) <> 'null'${having}
      GROUP BY item
      ORDER BY count(*) DESC, ${itemText} COLLATE "C"
      LIMIT ${limit}`,
    params.values,
  );
  return rows.map((row) => row.name);
}
