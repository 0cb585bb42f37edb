/**
 * The list in PostgreSQL: a page of events, the HogQL `select`, the count of matches, one
 * event, a property's values, and the first event's time. Filters compile to parameterised
 * SQL (SqlParams); person properties join `persons`.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { compileSelect, compileWhere, readsPerson } from "@/server/hogql/compile";
import { POSTGRES } from "@/server/sql/postgres";
import { cohortIdsOf, postgresCohortResolver, requireCohorts } from "../filters/cohorts";
import { listConditions, selectPageOf, selectStatement, valuesStatement } from "./build";
import type { EventCursor, EventListQuery, EventRow, EventValuesQuery, ListCount, ListPage, SelectPage } from "./query";

const COLUMNS = `e.uuid::text AS uuid, e.event, e.distinct_id, e.properties, e.timestamp, e.person_id::text AS person_id, e.elements_chain`;

/** FROM and WHERE of a list query; filters in the order the indexes want them. */
function listFrom(projectId: number, query: EventListQuery, params: SqlParams, now: Date, cursor: EventCursor | null): string {
  const where = listConditions(
    POSTGRES,
    params,
    projectId,
    query,
    cursor,
    (project, id) => `e.person_id = (SELECT p.uuid FROM persons p WHERE p.project_id = ${project} AND p.id = ${params.add(id, "int")})`,
  );
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
        cohort: postgresCohortResolver(params),
      }),
    );
  }
  return `FROM events e${join} WHERE ${where.join(" AND ")}`;
}

export async function postgresList(sql: SqlExecutor, projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]> {
  await requireCohorts(sql, projectId, cohortIdsOf([query.properties]));
  const params = new SqlParams();
  const from = listFrom(projectId, query, params, page.now, page.cursor);
  const limit = params.add(page.limit, "int");
  const offset = params.add(page.offset, "bigint");
  return sql.query<EventRow>(`SELECT ${COLUMNS} ${from} ${POSTGRES.order} LIMIT ${limit} OFFSET ${offset}`, params.values);
}

export async function postgresSelect(sql: SqlExecutor, projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage> {
  await requireCohorts(sql, projectId, cohortIdsOf([query.properties]));
  const params = new SqlParams();
  const compiled = compileSelect(query.select!, { params, columns: { event: "e.properties", person: "pp.properties" } });
  const from = listFrom(projectId, query, params, page.now, compiled.groupBy !== null ? null : page.cursor);
  const rows = await sql.query<Record<string, unknown>>(selectStatement(POSTGRES, params, compiled, from, page), params.values);
  return selectPageOf(
    compiled,
    rows,
    (_, value) => (value instanceof Date ? value.toISOString() : value),
    (value) => value as Date,
  );
}

export async function postgresCountList(sql: SqlExecutor, projectId: number, query: EventListQuery, options: { cap: number; now: Date }): Promise<ListCount> {
  await requireCohorts(sql, projectId, cohortIdsOf([query.properties]));
  const params = new SqlParams();
  const from = listFrom(projectId, query, params, options.now, null);
  // Counting a LIMITed subquery stops at the cap instead of reading every match.
  const rows = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 ${from} LIMIT ${params.add(options.cap + 1, "int")}) capped`, params.values);
  const n = rows[0]?.n ?? 0;
  return { count: Math.min(n, options.cap), capped: n > options.cap };
}

export async function postgresGet(sql: SqlExecutor, projectId: number, uuid: string): Promise<EventRow | null> {
  const rows = await sql.query<EventRow>(`SELECT ${COLUMNS} FROM events e WHERE e.project_id = $1::int AND e.uuid = $2::uuid`, [projectId, uuid]);
  return rows[0] ?? null;
}

export async function postgresValues(sql: SqlExecutor, projectId: number, query: EventValuesQuery): Promise<unknown[]> {
  const params = new SqlParams();
  const rows = await sql.query<{ name: unknown }>(valuesStatement(POSTGRES, params, "events e", projectId, query), params.values);
  return rows.map((row) => row.name);
}

export async function postgresEarliestTimestamp(sql: SqlExecutor, projectId: number): Promise<Date | null> {
  const rows = await sql.query<{ t: Date | null }>(`SELECT min(timestamp) AS t FROM events WHERE project_id = $1::int`, [projectId]);
  return rows[0]?.t ? new Date(rows[0].t) : null;
}
