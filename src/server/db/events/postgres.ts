/**
 * The PostgreSQL event store (PGlite or a server): the `events` table of the Prisma schema.
 * Reads compile filters to parameterised SQL: every value from a request is a bind
 * parameter (SqlParams); the SQL text is this file's, properties/sql.ts's and the HogQL
 * compiler's own.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { TimeSlice } from "@/server/event-loop";
import { fold, LOWER_ASCII, UPPER_ASCII } from "@/server/properties/coerce";
import { isPropertyGroup, type PropertyNode } from "@/server/properties/contract";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { compileSelect, compileWhere, readsPerson } from "@/server/hogql/compile";
import { EVENT_VALUES_LIMITS, type EventListQuery, type EventValuesQuery } from "./list-query";
import type { EventCursor, EventRow, EventStore, ListPage, SelectPage, StoredEventInput, TrendQuery, TrendRow } from ".";
import { postgresTrendStatement } from "./postgres-trend";

/** Rows and JSON text per statement: a jsonb value is at most 255 MB; events can be large. */
const CHUNK_ROWS = 5_000;
const CHUNK_TEXT = 32 * 1024 * 1024;
/**
 * PGlite runs each statement in the server's thread, where nothing else runs until it ends:
 * smaller statements let other requests in between (see insertEvents).
 */
export const PGLITE_CHUNK_ROWS = 1_000;

/** One event as a row of the JSON document insertEvents sends. */
function eventRowJson(e: StoredEventInput): string {
  return JSON.stringify({
    uuid: e.uuid,
    project_id: e.projectId,
    event: e.event,
    distinct_id: e.distinctId,
    properties: e.properties,
    timestamp: e.timestamp.toISOString(),
    person_id: e.personId ?? null,
    elements_chain: e.elementsChain ?? "",
    historical_migration: e.historicalMigration ?? false,
  });
}

const INSERT_EVENTS = `WITH inserted AS (
  INSERT INTO events (uuid, project_id, event, distinct_id, properties, timestamp, person_id, elements_chain, historical_migration)
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(uuid uuid, project_id int, event text, distinct_id text, properties jsonb,
                                                 timestamp timestamptz, person_id uuid, elements_chain text, historical_migration bool)
  ON CONFLICT (project_id, uuid) DO NOTHING
  RETURNING 1
) SELECT count(*)::int AS n FROM inserted`;

/**
 * Writes events with one `INSERT … SELECT FROM jsonb_to_recordset(…)` per chunk: one round
 * trip and one plan for thousands of rows, which is what lets ingestion keep up. The rows
 * travel as one JSON document: the driver sends it as it is, where array parameters would
 * have every properties text escaped again (measured: half the Node CPU of the insert, and
 * a little less for PostgreSQL). A uuid the project already has is skipped, so a retried
 * batch is not stored twice. Returns rows written.
 */
export async function insertEvents(sql: SqlExecutor, events: readonly StoredEventInput[], chunkRows = CHUNK_ROWS): Promise<number> {
  // A large batch shares the thread (building its JSON; on PGlite, every statement too).
  const slice = new TimeSlice();
  let inserted = 0;
  let rows: string[] = [];
  let text = 0;
  const send = async () => {
    const result = await sql.query<{ n: number }>(INSERT_EVENTS, [`[${rows.join(",")}]`], { prepare: "burrow_insert_events" });
    inserted += result[0]!.n;
    rows = [];
    text = 0;
  };
  for (const event of events) {
    const row = eventRowJson(event);
    if (rows.length > 0 && (rows.length >= chunkRows || text + row.length > CHUNK_TEXT)) await send();
    rows.push(row);
    text += row.length;
    await slice.pace();
  }
  if (rows.length > 0) await send();
  return inserted;
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
 * Compiles every regular expression of the filters once, on no data: PostgreSQL compiles a
 * pattern only when a row reaches it, so without this a pattern it refuses would fail (or
 * not) depending on the data — and a CSV export could fail halfway through its stream.
 */
export async function checkRegexes(sql: SqlExecutor, node: PropertyNode | null): Promise<void> {
  const patterns = regexesOf(node);
  if (patterns.length === 0) return;
  await sql.query(`SELECT ${patterns.map((_, i) => `'' ~ $${i + 1}::text`).join(", ")}`, patterns);
}

/** The patterns of every regex / not_regex filter. */
export function regexesOf(node: PropertyNode | null): string[] {
  const patterns: string[] = [];
  const walk = (n: PropertyNode) => {
    if (isPropertyGroup(n)) n.values.forEach(walk);
    else if (n.operator === "regex" || n.operator === "not_regex") patterns.push(String(n.value));
  };
  if (node) walk(node);
  return patterns;
}

export class PostgresEventStore implements EventStore {
  readonly kind = "postgres";

  constructor(
    private readonly sql: SqlExecutor,
    /** 1 for PGlite (one connection), more for a PostgreSQL pool. */
    readonly maxConcurrentInserts: number,
    /** Rows per INSERT statement (PGLITE_CHUNK_ROWS on PGlite). */
    private readonly chunkRows?: number,
  ) {}

  insert(events: readonly StoredEventInput[]): Promise<number> {
    return insertEvents(this.sql, events, this.chunkRows);
  }

  checkFilters(properties: PropertyNode | null): Promise<void> {
    return checkRegexes(this.sql, properties);
  }

  async list(projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]> {
    const params = new SqlParams();
    const from = listFrom(projectId, query, params, page.now, page.cursor);
    const limit = params.add(page.limit, "int");
    const offset = params.add(page.offset, "bigint");
    return this.sql.query<EventRow>(`SELECT ${COLUMNS} ${from} ${ORDER} LIMIT ${limit} OFFSET ${offset}`, params.values);
  }

  async select(projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage> {
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
    const rows = await this.sql.query<Record<string, unknown>>(`SELECT ${columns.join(", ")} ${from} ${tail} LIMIT ${limit} OFFSET ${offset}`, params.values);
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

  async get(projectId: number, uuid: string): Promise<EventRow | null> {
    const rows = await this.sql.query<EventRow>(`SELECT ${COLUMNS} FROM events e WHERE e.project_id = $1::int AND e.uuid = $2::uuid`, [projectId, uuid]);
    return rows[0] ?? null;
  }

  async values(projectId: number, query: EventValuesQuery): Promise<unknown[]> {
    const params = new SqlParams();
    const project = params.add(projectId, "int");
    const key = params.add(query.key, "text");
    const where = [`e.project_id = ${project}`, `e.properties ? ${key}`];
    if (query.eventName !== null) where.push(`e.event = ${params.add(query.eventName, "text")}`);
    const itemText = `(CASE jsonb_typeof(item) WHEN 'string' THEN item #>> '{}' ELSE item::text END)`;
    const having = query.prefix === null
      ? ""
      : ` AND starts_with(translate(${itemText}, ${params.add(UPPER_ASCII, "text")}, ${params.add(LOWER_ASCII, "text")}), ${params.add(fold(query.prefix), "text")})`;
    const sample = params.add(EVENT_VALUES_LIMITS.sample, "int");
    const limit = params.add(EVENT_VALUES_LIMITS.limit, "int");
    const rows = await this.sql.query<{ name: unknown }>(
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

  async reassignPerson(projectId: number, sourceUuid: string, targetUuid: string, tx?: SqlExecutor): Promise<void> {
    await (tx ?? this.sql).query(`UPDATE events SET person_id = $1::uuid WHERE project_id = $3 AND person_id = $2::uuid`, [targetUuid, sourceUuid, projectId]);
  }

  async trend(projectId: number, query: TrendQuery): Promise<TrendRow[]> {
    const statement = postgresTrendStatement(projectId, query);
    return this.sql.query<TrendRow>(statement.text, statement.values);
  }

  async earliestTimestamp(projectId: number): Promise<Date | null> {
    const rows = await this.sql.query<{ t: Date | null }>(`SELECT min(timestamp) AS t FROM events WHERE project_id = $1::int`, [projectId]);
    return rows[0]?.t ? new Date(rows[0].t) : null;
  }

  /** The connection belongs to the database; nothing of its own to close. */
  async close(): Promise<void> {}
}
