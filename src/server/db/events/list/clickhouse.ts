/**
 * The list in ClickHouse: a page of events (read from a recent time window first: window.ts),
 * the HogQL `select`, the count of matches, one event, a property's values, and the first
 * event's time. Person-property filters are resolved in PostgreSQL first
 * (filters/clickhouse.ts), and person properties in the HogQL `select`/`where` come from
 * PostgreSQL with the query (filters/hogql-persons.ts).
 */
import { compileCondition, compileSelect } from "@/server/hogql/compile";
import { CLICKHOUSE, SMALL_ANSWER } from "@/server/sql/clickhouse";
import { chRows, type ChStore } from "../clickhouse/context";
import { ChParams } from "@/server/sql/bind";
import { COLUMNS, eventRowOf, selectValue, timeOf, type ChEventRow } from "../clickhouse/rows";
import { clickHouseCohortResolver, cohortIdsOf, cohortMembers, requireCohorts } from "../filters/cohorts";
import { chPropertiesSql, resolvePersonFilters } from "../filters/clickhouse";
import { hogqlPersons, type HogqlPersons } from "../filters/hogql-persons";
import { listConditions, selectPageOf, selectStatement, valuesStatement } from "./build";
import type { EventCursor, EventListQuery, EventRow, EventValuesQuery, ListCount, ListPage, SelectPage } from "./query";
import type { ListWindows } from "./window";

/** FROM and WHERE of a list query; `persons` from hogqlPersons for its `where`. */
async function listFrom(ch: ChStore, projectId: number, query: EventListQuery, params: ChParams, now: Date, cursor: EventCursor | null, persons: HogqlPersons): Promise<string> {
  // A person given by integer id is looked up in PostgreSQL first (none: no events).
  let byId: string | null = null;
  if (query.personId !== null && "id" in query.personId) {
    const rows = await ch.sql.query<{ uuid: string }>(`SELECT uuid::text AS uuid FROM persons WHERE project_id = $1::int AND id = $2::int`, [projectId, query.personId.id]);
    byId = rows[0]?.uuid ?? null;
  }
  const where = listConditions(CLICKHOUSE, params, projectId, query, cursor, () => (byId === null ? "false" : `e.person_id = ${params.add(byId, "uuid")}`));
  where.push(...persons.conditions);
  for (const { expr, index } of persons.where) {
    where.push(compileCondition(expr, index, { params, columns: { event: "e.properties", person: persons.column }, dialect: CLICKHOUSE }));
  }
  if (query.properties !== null) {
    const cohortIds = cohortIdsOf([query.properties]);
    await requireCohorts(ch.sql, projectId, cohortIds);
    const cohort = clickHouseCohortResolver(await cohortMembers(ch.sql, cohortIds), params);
    const personSets = await resolvePersonFilters(ch.sql, projectId, query.properties, now);
    where.push(chPropertiesSql(query.properties, { params, column: "e.properties", personColumn: "e.person_id", persons: personSets, now, cohort }));
  }
  return `FROM ${ch.tables.events} AS e WHERE ${where.join(" AND ")}`;
}

/** The filters of a list query, for its window hint: the same filters on the same project find events at the same pace. */
function listWindowKey(projectId: number, query: EventListQuery): string {
  return JSON.stringify([projectId, query.event, query.distinctId, query.personId, query.properties, query.where ?? null]);
}

export async function clickHouseList(ch: ChStore, windows: ListWindows, projectId: number, query: EventListQuery, page: ListPage): Promise<EventRow[]> {
  const params = new ChParams();
  const persons = await hogqlPersons(ch.sql, projectId, query, params);
  const from = await listFrom(ch, projectId, query, params, page.now, page.cursor, persons);
  const tail = `${CLICKHOUSE.order} LIMIT ${params.add(page.limit, "int")} OFFSET ${params.add(page.offset, "bigint")} ${SMALL_ANSWER}`;
  const newest = Math.min(page.now.getTime(), query.before?.getTime() ?? Infinity, page.cursor?.timestamp.getTime() ?? Infinity);
  const key = listWindowKey(projectId, query);
  for (const window of windows.windows(key, query.after === null ? Infinity : newest - query.after.getTime())) {
    const since = window === null ? "" : `AND e.timestamp >= ${params.add(new Date(newest - window).toISOString(), "timestamptz")} `;
    const rows = (await chRows<ChEventRow>(ch, `SELECT ${COLUMNS} ${from} ${since}${tail}`, params.values)).map(eventRowOf);
    if (rows.length >= page.limit) {
      windows.remember(key, newest - rows.at(-1)!.timestamp.getTime());
      return rows;
    }
    if (window === null) {
      windows.remember(key, Infinity);
      return rows;
    }
  }
  throw new Error("unreachable: the last list window is unbounded");
}

export async function clickHouseSelect(ch: ChStore, projectId: number, query: EventListQuery, page: ListPage): Promise<SelectPage> {
  const params = new ChParams();
  const persons = await hogqlPersons(ch.sql, projectId, query, params);
  const compiled = compileSelect(query.select!, { params, columns: { event: "e.properties", person: persons.column }, dialect: CLICKHOUSE });
  const from = await listFrom(ch, projectId, query, params, page.now, compiled.groupBy !== null ? null : page.cursor, persons);
  const rows = await chRows<Record<string, unknown>>(ch, selectStatement(CLICKHOUSE, params, compiled, from, page), params.values);
  return selectPageOf(compiled, rows, selectValue, (value) => timeOf(value as string));
}

export async function clickHouseCountList(ch: ChStore, projectId: number, query: EventListQuery, options: { cap: number; now: Date }): Promise<ListCount> {
  const params = new ChParams();
  const persons = await hogqlPersons(ch.sql, projectId, query, params);
  const from = await listFrom(ch, projectId, query, params, options.now, null, persons);
  const rows = await chRows<{ n: string | number }>(ch, `SELECT count() AS n FROM (SELECT 1 ${from} LIMIT ${params.add(options.cap + 1, "int")}) ${SMALL_ANSWER}`, params.values);
  const n = Number(rows[0]?.n ?? 0);
  return { count: Math.min(n, options.cap), capped: n > options.cap };
}

export async function clickHouseGet(ch: ChStore, projectId: number, uuid: string): Promise<EventRow | null> {
  const rows = await chRows<ChEventRow>(ch, `SELECT ${COLUMNS} FROM ${ch.tables.events} AS e WHERE e.project_id = {project:Int32} AND e.uuid = {uuid:UUID} LIMIT 1 ${SMALL_ANSWER}`, {
    project: projectId,
    uuid,
  });
  return rows[0] ? eventRowOf(rows[0]) : null;
}

export async function clickHouseValues(ch: ChStore, projectId: number, query: EventValuesQuery): Promise<unknown[]> {
  const params = new ChParams();
  const rows = await chRows<{ name: string }>(ch, valuesStatement(CLICKHOUSE, params, `${ch.tables.events} AS e`, projectId, query), params.values);
  return rows.map((row) => JSON.parse(row.name));
}

export async function clickHouseEarliestTimestamp(ch: ChStore, projectId: number): Promise<Date | null> {
  // min() of no rows is 1970 in ClickHouse, not NULL: HAVING keeps it empty.
  const rows = await chRows<{ t: string }>(ch, `SELECT min(e.timestamp) AS t FROM ${ch.tables.events} AS e WHERE e.project_id = {project:Int32} HAVING count() > 0`, {
    project: projectId,
  });
  return rows[0] ? timeOf(rows[0].t) : null;
}
