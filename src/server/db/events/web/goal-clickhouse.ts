/**
 * Web analytics with a conversion goal in ClickHouse (goal.ts), as goal-postgres.ts: the view
 * and goal events of the range, each with its breakdown value, actor and period, grouped.
 */
import { chRows, type ChStore } from "../clickhouse/context";
import { ChParams } from "@/server/sql/bind";
import { clickHouseCohortResolver } from "../filters/cohorts";
import { chPropertiesSql } from "../filters/clickhouse";
import { VIEW_EVENTS_SQL } from "../sessions/session";
import { notTestEvent } from "../test-event";
import { ACTOR, SETTINGS, sessionFields, valueSql, viewEvents, webContext, type ChWebContext } from "./clickhouse";
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

const counts = (flag: string) =>
  `uniqExactIf(actor, ${flag}) AS ${flag}_visitors, countIf(${flag} AND g) AS ${flag}_conversions, uniqExactIf(actor, ${flag} AND g) AS ${flag}_converters`;

/** The tables, cohorts and person sets of the filters and the goal. */
const goalContext = (ch: ChStore, projectId: number, query: WebGoalQuery) => webContext(ch, projectId, { ...query, filters: [...query.filters, query.goal] });

export async function clickHouseWebGoalOverview(ch: ChStore, projectId: number, query: WebGoalQuery): Promise<WebGoalOverviewAnswer> {
  const context = await goalContext(ch, projectId, query);
  const params = new ChParams();
  const text = `SELECT ${counts("c")}, ${counts("p")} FROM (${goalEvents(context, params, projectId, query, [], null)}) ${SETTINGS}`;
  const rows = await chRows<WebGoalOverviewStoreRow>(ch, text, params.values);
  return webGoalOverviewAnswerOf(query, rows[0]);
}

export async function clickHouseWebGoalStats(ch: ChStore, projectId: number, query: WebGoalStatsQuery): Promise<WebGoalStatsAnswer> {
  const context = await goalContext(ch, projectId, query);
  const params = new ChParams();
  const { source, dropNull } = WEB_BREAKDOWNS[query.breakdown];
  const host = webHostSource(query);
  const values = valueSql(source, params, host);
  const names = values.map((_, i) => `v${i}`);
  const fields = source.from === "session" || host?.from === "session" ? sessionFields(source.from === "session" ? source.column : null, host) : null;
  const inner = goalEvents(context, params, projectId, query, values, fields);
  const having = `(countIf(c) > 0 OR countIf(p) > 0)${dropNull ? " AND v0 IS NOT NULL" : ""}`;
  const grouped = `SELECT ${names.join(", ")}, ${counts("c")}, ${counts("p")} FROM (${inner}) GROUP BY ${names.join(", ")} HAVING ${having}`;
  const text = `SELECT *, if(sum(c_converters) OVER () = 0, 0, c_converters / sum(c_converters) OVER ()) AS fill FROM (${grouped})
    ORDER BY ${webGoalOrderBy(query, names.map((name) => `${name} ASC NULLS LAST`).join(", "), "if(c_visitors = 0, NULL, c_converters / c_visitors)")}
    LIMIT ${params.add(query.limit + 1, "int")} OFFSET ${params.add(query.offset, "int")}
    ${SETTINGS}`;
  return webGoalStatsAnswerOf(query, await chRows<WebGoalStatsStoreRow>(ch, text, params.values));
}

/** As goal-postgres.ts's: v0… (`values`), actor, g, c and p per view or goal event; `fields`, the session fields the values read (null: no join). */
function goalEvents(context: ChWebContext, params: ChParams, projectId: number, query: WebGoalQuery, values: string[], fields: ReturnType<typeof sessionFields> | null): string {
  const cohort = clickHouseCohortResolver(context.cohorts, params);
  const goal = chPropertiesSql(query.goal, { params, column: "e.properties", personColumn: "e.person_id", persons: context.persons, now: query.now, cohort });
  const isGoal = `(${notTestEvent()} AND ${goal})`;
  const from = viewEvents(context, params, projectId, query, fields === null ? "" : "LEFT", false, fields ?? [], `(e.event IN ${VIEW_EVENTS_SQL} OR ${isGoal})`);
  const period = (p: WebPeriod | null) =>
    p === null ? "false" : `(e.timestamp >= ${params.add(p.from.toISOString(), "timestamptz")} AND e.timestamp <= ${params.add(p.to.toISOString(), "timestamptz")})`;
  const columns = values.map((value, i) => `${value} AS v${i}, `).join("");
  return `SELECT ${columns}${ACTOR} AS actor, ${isGoal} AS g, ${period(query.current)} AS c, ${period(query.previous)} AS p ${from}`;
}
