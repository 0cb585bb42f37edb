/**
 * Web analytics in ClickHouse (query.ts), with the PostgreSQL statements' semantics
 * (postgres.ts): the overview and the entry/exit pages without filters from the sessions
 * table alone (sessions/clickhouse.ts); the rest from the view events of the range, joined
 * with their sessions where a figure needs them.
 */
import { CLICKHOUSE } from "@/server/sql/clickhouse";
import { chRows, type ChStatement, type ChStore, type ChTables } from "../clickhouse/context";
import { chEventPropertyText } from "../clickhouse/hot-properties";
import { ChParams } from "@/server/sql/bind";
import { clickHouseCohortResolver } from "../filters/cohorts";
import { chPropertiesSql, resolveFilters, type ResolvedFilters } from "../filters/clickhouse";
import { ANONYMOUS_ACTOR } from "../actor-events/query";
import { CH_SESSION_BOUNCE, CH_SESSION_DURATION, chSessionsOverlapping, chSessionsWithViews, type SessionField } from "../sessions/clickhouse";
import { VIEW_EVENTS_SQL } from "../sessions/session";
import {
  countsByStart,
  earliestSessionStart,
  entryHostSource,
  needsSessions,
  sessionsAloneColumn,
  URL_HOST_PATTERN,
  WEB_BREAKDOWNS,
  webHostSource,
  webOverviewAnswerOf,
  webStatsAnswerOf,
  webStatsOrderBy,
  webTopClicksOf,
  webTrendBase,
  webTrendRowsOf,
  type WebBreakdownSource,
  type WebHostSource,
  type WebOverviewAnswer,
  type WebOverviewStoreRow,
  type WebQueryBase,
  type WebSessionColumn,
  type WebStatsAnswer,
  type WebStatsQuery,
  type WebStatsStoreRow,
  type WebTopClick,
  type WebTopClicksQuery,
  type WebTopClicksStoreRow,
  type WebTrendActorRow,
  type WebTrendEvent,
  type WebTrendQuery,
  type WebTrendRow,
  type WebTrendStarts,
  type WebTrendStoreRow,
} from "./query";

/** The tables, cohorts and person sets a web analytics statement reads. */
export interface ChWebContext extends ChTables, ResolvedFilters {}

export async function webContext(ch: ChStore, projectId: number, query: WebQueryBase): Promise<ChWebContext> {
  const { cohorts, persons } = await resolveFilters(ch.sql, projectId, query.filters, query.now);
  return { ...ch.tables, persons, cohorts };
}

export async function clickHouseWebOverview(ch: ChStore, projectId: number, query: WebQueryBase): Promise<WebOverviewAnswer> {
  const statement = clickHouseWebOverviewStatement(await webContext(ch, projectId, query), projectId, query);
  const rows = await chRows<WebOverviewStoreRow>(ch, statement.text, statement.params);
  return webOverviewAnswerOf(query, rows[0]);
}

export async function clickHouseWebStats(ch: ChStore, projectId: number, query: WebStatsQuery): Promise<WebStatsAnswer> {
  const context = await webContext(ch, projectId, query);
  const statement = clickHouseWebStatsStatement(context, projectId, query);
  const rows = await chRows<WebStatsStoreRow>(ch, statement.text, statement.params);
  let pathBounce: Map<string, WebStatsStoreRow> | null = null;
  if (query.breakdown === "Page" && query.includeBounceRate) {
    const bounce = clickHousePathBounceStatement(context, projectId, query, rows.slice(0, query.limit).map((row) => String(row.v0)));
    pathBounce = new Map((await chRows<WebStatsStoreRow>(ch, bounce.text, bounce.params)).map((row) => [String(row.v0), row]));
  }
  return webStatsAnswerOf(query, rows, pathBounce);
}

export async function clickHouseWebTopClicks(ch: ChStore, projectId: number, query: WebTopClicksQuery): Promise<WebTopClick[]> {
  const statement = clickHouseTopClicksStatement(await webContext(ch, projectId, query), projectId, query);
  return webTopClicksOf(await chRows<WebTopClicksStoreRow>(ch, statement.text, statement.params));
}

export async function clickHouseWebTrend(ch: ChStore, projectId: number, query: WebTrendQuery): Promise<WebTrendRow[]> {
  const statement = clickHouseWebTrendStatement(await webContext(ch, projectId, webTrendBase(query)), projectId, query);
  return webTrendRowsOf(await chRows<WebTrendStoreRow>(ch, statement.text, statement.params));
}

export async function clickHouseWebTrendActors(ch: ChStore, projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Promise<string[]> {
  const statement = clickHouseWebTrendActorsStatement(await webContext(ch, projectId, webTrendBase(query)), projectId, query, starts);
  return (await chRows<WebTrendActorRow>(ch, statement.text, statement.params)).map((row) => row.actor);
}

export const ACTOR = `if(e.person_id IS NULL, concat('d:', e.distinct_id), toString(e.person_id))`;
/** A grouped row's bounce rate, for ordering by it. */
const BOUNCE_RATE = `if(c_sessions = 0, NULL, c_bounced / c_sessions)`;
export const SETTINGS = `SETTINGS join_use_nulls = 1, output_format_json_quote_64bit_integers = 0`;

/** FROM … WHERE of the view events of both periods, joined with their sessions when `join` says how. */
export function viewEvents(
  context: ChWebContext,
  params: ChParams,
  projectId: number,
  query: WebQueryBase,
  join: "" | "INNER" | "LEFT",
  byStart: boolean,
  fields: readonly SessionField[],
  events = `e.event IN ${VIEW_EVENTS_SQL}`,
): string {
  const from = params.add((query.previous?.from ?? query.current.from).toISOString(), "timestamptz");
  const to = params.add(query.current.to.toISOString(), "timestamptz");
  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    events,
    `e.timestamp >= ${from}`,
    `e.timestamp <= ${to}`,
  ];
  if (byStart) where.push(`s.s_start >= ${from}`, `s.s_start <= ${to}`);
  const cohort = clickHouseCohortResolver(context.cohorts, params);
  for (const filter of query.filters) {
    where.push(chPropertiesSql(filter, { params, column: "e.properties", personColumn: "e.person_id", persons: context.persons, now: query.now, cohort }));
  }
  const sessions =
    join === "" ? "" : ` ${join} JOIN ${chSessionsOverlapping(context, params, projectId, from, to, { fields })} AS s ON s.sid = e.mat_session_id`;
  return `FROM ${context.events} AS e${sessions} WHERE ${where.join(" AND ")}`;
}

/** SQL testing that the session `s` (its `start`) starts in a period (true without one to test: then every event counts). */
function inPeriod(params: ChParams, period: { from: Date; to: Date } | null, byStart: boolean, start = "s.s_start"): string {
  if (period === null) return "false";
  if (!byStart) return "true";
  return `(${start} >= ${params.add(period.from.toISOString(), "timestamptz")} AND ${start} <= ${params.add(period.to.toISOString(), "timestamptz")})`;
}

const overviewTotals = (flag: string) =>
  `uniqExactIf(actor, ${flag}) AS ${flag}_visitors, sumIf(views, ${flag}) AS ${flag}_views, countIf(${flag}) AS ${flag}_sessions,
   avgIf(duration, ${flag}) AS ${flag}_duration, avgIf(bounce, ${flag}) AS ${flag}_bounce`;

/**
 * The sessions starting in the query's range (both periods) with a view in it — with
 * `event`, with that event (a web trend's) — one row each, as PostgreSQL's
 * sessionsWithViews: t_start, t_actor (a uuid to count; with `keys`, the actor's key as
 * actor lists give it), t_views, t_duration, t_bounce. From the sessions table alone without
 * filters, else the matching views joined with their sessions.
 */
function sessionsWithViews(context: ChWebContext, params: ChParams, projectId: number, query: WebQueryBase, options: { event?: WebTrendEvent; keys?: boolean } = {}): string {
  const { event, keys = false } = options;
  if (query.filters.length === 0) {
    const from = query.previous?.from ?? query.current.from;
    const table = chSessionsWithViews(context, params, projectId, { earliest: from, from, to: query.current.to }, { event, actorKey: keys });
    return `SELECT s.s_start AS t_start, ${keys ? "s.actor_key" : "s.actor"} AS t_actor, s.views AS t_views, ${CH_SESSION_DURATION} AS t_duration, ${CH_SESSION_BOUNCE} AS t_bounce
      FROM ${table} AS s WHERE s.views > 0`;
  }
  // A closed set of names (WEB_TREND_EVENTS), so it may stand in the text.
  const events = event === undefined ? `e.event IN ${VIEW_EVENTS_SQL}` : `e.event = '${event}'`;
  const from = viewEvents(context, params, projectId, query, "INNER", true, [], events);
  const actor = keys ? `if(e.person_id IS NULL, concat(${params.constant(ANONYMOUS_ACTOR)}, e.distinct_id), toString(e.person_id))` : ACTOR;
  return `SELECT any(s.s_start) AS t_start, min(${actor}) AS t_actor, count() AS t_views, any(${CH_SESSION_DURATION}) AS t_duration, any(${CH_SESSION_BOUNCE}) AS t_bounce
    ${from} GROUP BY s.sid`;
}

/** The overview, as postgresWebOverviewStatement: each session of sessionsWithViews counted in the period it started in. */
function clickHouseWebOverviewStatement(context: ChWebContext, projectId: number, query: WebQueryBase): ChStatement {
  const params = new ChParams();
  const sessions = sessionsWithViews(context, params, projectId, query);
  return {
    text: `SELECT ${overviewTotals("c")}, ${overviewTotals("p")} FROM (
      SELECT t_actor AS actor, t_views AS views, ${inPeriod(params, query.current, true, "t_start")} AS c, ${inPeriod(params, query.previous, true, "t_start")} AS p,
             t_duration AS duration, t_bounce AS bounce
      FROM (${sessions}))
      ${SETTINGS}`,
    params: params.values,
  };
}

/** A path with its host in front (includeHost), as PostgreSQL's hostedSql: PostHog's nullIf(concat(host, path), ''). */
function hostedSql(host: WebHostSource | null, path: string, params: ChParams): string {
  if (host === null) return path;
  const hostText =
    host.from === "event" ? chEventPropertyText(host.key, params) : `extract(ifNull(s.f_${host.column}, ''), ${params.constant(URL_HOST_PATTERN)})`;
  return `nullIf(concat(ifNull(${hostText}, ''), ifNull(${path}, '')), '')`;
}

/** The session fields a breakdown reads: its own, and with includeHost the URL its host comes from. */
export function sessionFields(column: WebSessionColumn | null, host: WebHostSource | null): SessionField[] {
  return [...(column === null ? [] : [column]), ...(host?.from === "session" ? [host.column] : [])];
}

export function valueSql(source: WebBreakdownSource, params: ChParams, host: WebHostSource | null): string[] {
  if (source.from === "session") return [hostedSql(host, `s.f_${source.column}`, params)];
  if (source.from === "timezone") {
    return [`if(JSONType(e.properties, '$timezone_offset') IN ('Int64', 'UInt64', 'Double'), -JSONExtractFloat(e.properties, '$timezone_offset') / 60, NULL)`];
  }
  if (host !== null) return [hostedSql(host, chEventPropertyText(source.keys[0]!, params), params)];
  return source.keys.map((key) => `nullIf(${chEventPropertyText(key, params)}, '')`);
}

/** Rows (v0…, c_visitors, c_views, p_visitors, p_views, c_bounced, c_sessions, p_bounced, p_sessions, fill) ordered and paged (limit + 1 rows) from `grouped`. */
function orderedPage(grouped: string, names: string[], params: ChParams, query: WebStatsQuery, bounceRate = BOUNCE_RATE): string {
  return `SELECT *, if(sum(c_visitors) OVER () = 0, 0, c_visitors / sum(c_visitors) OVER ()) AS fill FROM (${grouped})
    ORDER BY ${webStatsOrderBy(query, names.map((name) => `${name} ASC NULLS LAST`).join(", "), bounceRate)}
    LIMIT ${params.add(query.limit + 1, "int")} OFFSET ${params.add(query.offset, "int")}
    ${SETTINGS}`;
}

function clickHouseWebStatsStatement(context: ChWebContext, projectId: number, query: WebStatsQuery): ChStatement {
  const column = sessionsAloneColumn(query);
  if (column !== null) return sessionsStatsStatement(context, projectId, query, column);
  const params = new ChParams();
  const { source, dropNull } = WEB_BREAKDOWNS[query.breakdown];
  const host = webHostSource(query);
  const byStart = countsByStart(query);
  const join = !needsSessions(query) ? "" : byStart ? "INNER" : "LEFT";
  const from = viewEvents(context, params, projectId, query, join, byStart, sessionFields(source.from === "session" ? source.column : null, host));
  const current = inPeriod(params, query.current, byStart);
  const previous = inPeriod(params, query.previous, byStart);
  const values = valueSql(source, params, host);
  const names = values.map((_, i) => `v${i}`);
  const sessions = join === "" ? "CAST(NULL AS Nullable(String))" : "s.sid";
  const bounce = join === "" ? "CAST(NULL AS Nullable(UInt8))" : CH_SESSION_BOUNCE;
  const inner = `SELECT ${values.map((value, i) => `${value} AS v${i}`).join(", ")}, ${ACTOR} AS actor, ${sessions} AS session_key, ${bounce} AS b, ${current} AS c, ${previous} AS p ${from}`;
  const counts = (flag: string) =>
    `uniqExactIf(actor, ${flag}) AS ${flag}_visitors, countIf(${flag}) AS ${flag}_views,
     uniqExactIf(session_key, ${flag} AND b = 1) AS ${flag}_bounced, uniqExactIf(session_key, ${flag} AND b IS NOT NULL) AS ${flag}_sessions`;
  const having = [`(countIf(c) > 0 OR countIf(p) > 0)`, ...(dropNull ? [`v0 IS NOT NULL`] : [])];
  let grouped = `SELECT ${names.join(", ")}, ${counts("c")}, ${counts("p")} FROM (${inner}) GROUP BY ${names.join(", ")} HAVING ${having.join(" AND ")}`;
  if (query.breakdown === "Page" && query.orderBy?.field === "BounceRate") {
    // As PostgreSQL's: ordering Page by its entry sessions' rate reads every path's.
    grouped = `SELECT g0.*, pb.c_bounced AS o_bounced, pb.c_sessions AS o_sessions FROM (${grouped}) AS g0 LEFT JOIN (${pathBounceSql(context, params, projectId, query, null)}) AS pb ON pb.v0 = g0.v0`;
    return { text: orderedPage(grouped, names, params, query, `if(o_sessions = 0, NULL, o_bounced / o_sessions)`), params: params.values };
  }
  return { text: orderedPage(grouped, names, params, query), params: params.values };
}

/**
 * A breakdown by a session's entry or exit page without filters, from the sessions table
 * alone (as PostgreSQL's postgresSessionStatsStatement): one row per session with its
 * views in the range; without a comparison, sessions up to PostHog's buffer before the
 * range count with their views inside it.
 */
function sessionsStatsStatement(context: ChWebContext, projectId: number, query: WebStatsQuery, column: WebSessionColumn): ChStatement {
  const params = new ChParams();
  const byStart = countsByStart(query);
  const from = query.previous?.from ?? query.current.from;
  const host = webHostSource(query);
  const sessions = chSessionsWithViews(context, params, projectId, { earliest: earliestSessionStart(query), from, to: query.current.to }, { fields: sessionFields(column, host) });
  const counts = (flag: string) =>
    `uniqExactIf(actor, ${flag}) AS ${flag}_visitors, sumIf(views, ${flag}) AS ${flag}_views,
     countIf(${flag} AND b = 1) AS ${flag}_bounced, countIf(${flag} AND b IS NOT NULL) AS ${flag}_sessions`;
  const inner = `SELECT ${hostedSql(host, `s.f_${column}`, params)} AS v0, s.actor AS actor, s.views AS views, ${CH_SESSION_BOUNCE} AS b,
      ${inPeriod(params, query.current, byStart)} AS c, ${inPeriod(params, query.previous, byStart)} AS p
    FROM ${sessions} AS s WHERE s.views > 0`;
  return {
    text: orderedPage(`SELECT v0, ${counts("c")}, ${counts("p")} FROM (${inner}) GROUP BY v0 HAVING (sumIf(views, c) > 0 OR sumIf(views, p) > 0) AND v0 IS NOT NULL`, ["v0"], params, query),
    params: params.values,
  };
}

/** Page's bounce rate by entry path (with includeHost, entry host and path), as PostgreSQL's pathBounceSql: for the paths given, or every path (null). */
function pathBounceSql(context: ChWebContext, params: ChParams, projectId: number, query: WebStatsQuery, paths: string[] | null): string {
  const host = entryHostSource(query);
  const from = viewEvents(context, params, projectId, query, "INNER", true, sessionFields("entry_pathname", host));
  const periods = { c: inPeriod(params, query.current, true), p: inPeriod(params, query.previous, true) };
  const counts = Object.entries(periods).map(
    ([flag, test]) => `uniqExactIf(s.sid, ${test} AND ${CH_SESSION_BOUNCE} = 1) AS ${flag}_bounced, uniqExactIf(s.sid, ${test} AND ${CH_SESSION_BOUNCE} IS NOT NULL) AS ${flag}_sessions`,
  );
  const entry = hostedSql(host, "s.f_entry_pathname", params);
  const only = paths === null ? "" : ` AND ${entry} IN ${params.add(paths, "text[]")}`;
  return `SELECT ${entry} AS v0, ${counts.join(", ")} ${from}${only} GROUP BY ${entry}`;
}

function clickHousePathBounceStatement(context: ChWebContext, projectId: number, query: WebStatsQuery, paths: string[]): ChStatement {
  const params = new ChParams();
  return { text: `${pathBounceSql(context, params, projectId, query, paths)}\n      ${SETTINGS}`, params: params.values };
}

/** Top clicks, as postgresTopClicksStatement. */
function clickHouseTopClicksStatement(context: ChWebContext, projectId: number, query: WebTopClicksQuery): ChStatement {
  const params = new ChParams();
  const text = `nullIf(${chEventPropertyText("$el_text", params)}, '')`;
  const clicks = `e.event = '$autocapture' AND ${chEventPropertyText("$event_type", params)} = 'click' AND ${text} IS NOT NULL`;
  const from = viewEvents(context, params, projectId, { ...query, previous: null }, "", false, [], clicks);
  return {
    text: `SELECT assumeNotNull(${text}) AS el_text, count() AS clicks, uniqExact(${ACTOR}) AS visitors ${from}
      GROUP BY el_text ORDER BY clicks DESC, visitors DESC, el_text ASC LIMIT ${params.add(query.limit, "int")}
      ${SETTINGS}`,
    params: params.values,
  };
}

/** A web trend, as postgresWebTrendStatement: rows (bucket, visitors, views, sessions, duration, bounce) by session start. */
function clickHouseWebTrendStatement(context: ChWebContext, projectId: number, query: WebTrendQuery): ChStatement {
  const params = new ChParams();
  const bucket = CLICKHOUSE.bucket[query.interval](`toTimeZone(t_start, ${params.add(query.zone, "text")})`);
  return {
    text: `SELECT ${CLICKHOUSE.bucketText("t_bucket")} AS bucket, uniqExact(t_actor) AS visitors, sum(t_views) AS views, count() AS sessions, avg(t_duration) AS duration, avg(t_bounce) AS bounce
      FROM (SELECT ${bucket} AS t_bucket, * FROM (${sessionsWithViews(context, params, projectId, webTrendBase(query), { event: query.event })})) GROUP BY t_bucket
      ${SETTINGS}`,
    params: params.values,
  };
}

/** The actors of a web trend's sessions starting in [starts.from, starts.before), as postgresWebTrendActorsStatement. */
function clickHouseWebTrendActorsStatement(context: ChWebContext, projectId: number, query: WebTrendQuery, starts: WebTrendStarts): ChStatement {
  const params = new ChParams();
  const sessions = sessionsWithViews(context, params, projectId, webTrendBase(query), { event: query.event, keys: true });
  return {
    text: `SELECT t_actor AS actor, sum(t_views) AS n FROM (${sessions})
      WHERE t_start >= ${params.add(starts.from.toISOString(), "timestamptz")} AND t_start < ${params.add(starts.before.toISOString(), "timestamptz")}
      GROUP BY actor ORDER BY n DESC, actor ASC
      ${SETTINGS}`,
    params: params.values,
  };
}
