/**
 * Person properties in the HogQL `select` and `where` of the ClickHouse event store.
 * Persons live in PostgreSQL, so they travel to ClickHouse with the query, as few of them
 * as it needs:
 * - a `where` expression that reads person properties and nothing of the event is
 *   evaluated in PostgreSQL over the project's persons (resolvePersonSet, with the
 *   PostgreSQL store's own SQL for it), and ClickHouse tests each event's person against
 *   the set that comes out;
 * - every other read (select columns, `where` expressions mixing the two) takes the
 *   person's properties from a map sent as parameters: the persons that have one of the
 *   properties read and pass those `where` expressions on persons alone, with just those
 *   properties. More than MAX_RESOLVED_PERSONS is a 400 saying how to narrow it.
 * An event without a person, or whose person is gone, reads every person property as
 * null, as the PostgreSQL store's LEFT JOIN gives it.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { AppError } from "@/server/errors";
import { SqlParams } from "@/server/properties/sql";
import { compileCondition, compileSelect, hogqlReads, type HogqlContext } from "@/server/hogql/compile";
import type { Expr } from "@/server/hogql/parse";
import type { EventListQuery } from "../list/query";
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import type { ChParams } from "@/server/sql/bind";
import { MAX_RESOLVED_PERSONS, personSetSql, resolvePersonSet } from "./clickhouse";

export interface HogqlPersons {
  /** ClickHouse conditions, one for each `where` expression on person properties alone. */
  conditions: string[];
  /** The other `where` expressions, with their positions, to compile with `column`. */
  where: { expr: Expr; index: number }[];
  /** ClickHouse SQL for the event's person's properties (JSON object text) in compiled HogQL. */
  column: string;
}

/** PostgreSQL SQL of a `where` expression over persons only, with `person` their properties (NULL: none). */
function postgresCondition(expr: Expr, index: number, params: SqlParams, person: string): string {
  return compileCondition(expr, index, { params, columns: { event: "'{}'::jsonb", person } });
}

export async function hogqlPersons(sql: SqlExecutor, projectId: number, query: EventListQuery, params: ChParams): Promise<HogqlPersons> {
  const where = (query.where ?? []).map((expr, index) => ({ expr, index }));
  const select = (query.select ?? []).map((item) => item.expr);
  const onPersons = where.filter(({ expr }) => {
    const reads = hogqlReads([expr]);
    return reads.personProperties.size > 0 && !reads.event;
  });
  const rest = where.filter((item) => !onPersons.includes(item));
  const mapped = hogqlReads([...rest.map(({ expr }) => expr), ...select]).personProperties;
  const none = { conditions: [], where: rest, column: "'{}'" };
  if (onPersons.length === 0 && mapped.size === 0) return none;

  // A mistake anywhere is a 400 before any person is read.
  const check: HogqlContext = { params: { add: () => "NULL", constant: () => "NULL" }, columns: { event: "e.properties", person: "'{}'" }, dialect: CLICKHOUSE };
  for (const { expr, index } of rest) compileCondition(expr, index, check);
  if (query.select) compileSelect(query.select, check);

  const conditions: string[] = [];
  for (const { expr, index } of onPersons) {
    const set = await resolvePersonSet(
      sql,
      projectId,
      (sqlParams, person) => postgresCondition(expr, index, sqlParams, person),
      (complement) =>
        new AppError(
          "invalid_input",
          `where[${index}] ${complement ? "excludes" : "matches"} more than ${MAX_RESOLVED_PERSONS} persons, more than the ClickHouse event store takes for a condition on person properties; narrow it.`,
          "where",
        ),
    );
    conditions.push(personSetSql(set, params, "e.person_id"));
  }
  if (mapped.size === 0) return { ...none, conditions };

  const names = [...mapped];
  const pg = new SqlParams();
  const keys = pg.add(names, "text[]");
  const tests = onPersons.map(({ expr, index }) => ` AND (${postgresCondition(expr, index, pg, "p.properties")}) IS TRUE`).join("");
  const rows = await sql.query<{ uuid: string; properties: string }>(
    `SELECT p.uuid::text AS uuid,
            (SELECT jsonb_object_agg(key, p.properties -> key) FROM unnest(${keys}) AS key WHERE p.properties ? key)::text AS properties
       FROM persons p
      WHERE p.project_id = ${pg.add(projectId, "int")} AND p.properties ?| ${keys}${tests}
      LIMIT ${pg.add(MAX_RESOLVED_PERSONS + 1, "int")}`,
    pg.values,
  );
  if (rows.length > MAX_RESOLVED_PERSONS) {
    const attr = hogqlReads(select).personProperties.size > 0 ? "select" : "where";
    const read = names.map((name) => `person.properties.${name}`).join(", ");
    throw new AppError(
      "invalid_input",
      `${attr}: more than ${MAX_RESOLVED_PERSONS} persons have ${read}, more than the ClickHouse event store takes with a query; narrow them with a where on person properties alone (such as person.properties.plan = 'pro').`,
      attr,
    );
  }
  const uuids = params.add(rows.map((row) => row.uuid), "text[]");
  const properties = params.add(rows.map((row) => row.properties), "text[]");
  return { conditions, where: rest, column: `transform(ifNull(toString(e.person_id), ''), ${uuids}, ${properties}, '{}')` };
}
