/**
 * Web analytics with a conversion goal in PostgreSQL (goal.ts): the view and goal events of
 * the range, each with its breakdown value, actor and period, grouped.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { cohortIdsOf, postgresCohortResolver, requireCohorts } from "../filters/cohorts";
import { VIEW_EVENTS_SQL } from "../sessions/session";
import { notTestEvent } from "../test-event";
import { ACTOR, valueSql, viewEvents } from "./postgres";
import { WEB_BREAKDOWNS, webHostSource, type WebPeriod } from "./query";
import {
  webGoalOrderBy,
  webGoalOverviewAnswerOf,
  webGoalStatsAnswerOf,
  type WebGoalOverviewAnswer,
  type WebGoalOverviewStoreRow,
  type WebGoalQuery,
  type WebGoalStatsAnswer,
  type WebGoalStatsQuery,
  type WebGoalStatsStoreRow,
} from "./goal";

export async function postgresWebGoalOverview(sql: SqlExecutor, projectId: number, query: WebGoalQuery): Promise<WebGoalOverviewAnswer> {
  await requireCohorts(sql, projectId, cohortIdsOf([...query.filters, query.goal]));
  const params = new SqlParams();
  const counts = (flag: string) =>
    `count(DISTINCT actor) FILTER (WHERE ${flag})::int AS ${flag}_visitors, count(*) FILTER (WHERE ${flag} AND g)::int AS ${flag}_conversions,
     count(DISTINCT actor) FILTER (WHERE ${flag} AND g)::int AS ${flag}_converters`;
  const text = `SELECT ${counts("c")}, ${counts("p")} FROM (${goalEvents(params, projectId, query, [], false)}) x`;
  const rows = await sql.query<WebGoalOverviewStoreRow>(text, params.values);
  return webGoalOverviewAnswerOf(query, rows[0]);
}

export async function postgresWebGoalStats(sql: SqlExecutor, projectId: number, query: WebGoalStatsQuery): Promise<WebGoalStatsAnswer> {
  await requireCohorts(sql, projectId, cohortIdsOf([...query.filters, query.goal]));
  const params = new SqlParams();
  const { source, dropNull } = WEB_BREAKDOWNS[query.breakdown];
  const values = valueSql(source, webHostSource(query));
  const names = values.map((_, i) => `v${i}`);
  const inner = goalEvents(params, projectId, query, values, source.from === "session");
  const counts = (flag: string) =>
    `count(DISTINCT actor) FILTER (WHERE ${flag})::int AS ${flag}_visitors, count(*) FILTER (WHERE ${flag} AND g)::int AS ${flag}_conversions,
     count(DISTINCT actor) FILTER (WHERE ${flag} AND g)::int AS ${flag}_converters`;
  const having = `(count(*) FILTER (WHERE c) > 0 OR count(*) FILTER (WHERE p) > 0)${dropNull ? " AND v0 IS NOT NULL" : ""}`;
  const grouped = `SELECT ${names.join(", ")}, ${counts("c")}, ${counts("p")} FROM (${inner}) x GROUP BY ${names.join(", ")} HAVING ${having}`;
  const valueOrder = names.map((name) => (source.from === "timezone" ? `${name} ASC NULLS LAST` : `${name} COLLATE "C" ASC NULLS LAST`)).join(", ");
  const text = `SELECT *, COALESCE(c_converters::float8 / NULLIF(sum(c_converters) OVER (), 0), 0) AS fill FROM (${grouped}) g
    ORDER BY ${webGoalOrderBy(query, valueOrder, "(c_converters::float8 / NULLIF(c_visitors, 0))")}
    LIMIT ${params.add(query.limit + 1, "int")} OFFSET ${params.add(query.offset, "int")}`;
  return webGoalStatsAnswerOf(query, await sql.query<WebGoalStatsStoreRow>(text, params.values));
}

/** The view and goal events of the range: v0… (`values`), actor, g (a goal event), c and p (its timestamp in each period). */
function goalEvents(params: SqlParams, projectId: number, query: WebGoalQuery, values: string[], joinSessions: boolean): string {
  const person = readsPersonProperties(query.goal);
  const goal = propertiesSql(query.goal, {
    params,
    columns: { event: "e.properties", person: person || query.filters.some(readsPersonProperties) ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" },
    now: query.now,
    cohort: postgresCohortResolver(params),
  });
  const isGoal = `(${notTestEvent()} AND ${goal})`;
  const from = viewEvents(params, projectId, query, joinSessions ? "LEFT JOIN" : "", false, `(e.event IN ${VIEW_EVENTS_SQL} OR ${isGoal})`, person);
  const period = (p: WebPeriod | null) =>
    p === null ? "FALSE" : `(e.timestamp >= ${params.add(p.from.toISOString(), "timestamptz")} AND e.timestamp <= ${params.add(p.to.toISOString(), "timestamptz")})`;
  const columns = values.map((value, i) => `${value} AS v${i}, `).join("");
  return `SELECT ${columns}${ACTOR} AS actor, COALESCE(${isGoal}, FALSE) AS g, ${period(query.current)} AS c, ${period(query.previous)} AS p ${from}`;
}
