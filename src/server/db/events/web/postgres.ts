/**
 * Web analytics in PostgreSQL (query.ts): the overview, the stats table, top clicks and web
 * trends, over the view events joined with their sessions' rows (sessions/postgres.ts), or
 * over the sessions table alone where that answers the same.
 */
import type { SqlExecutor } from "@/server/db/driver";
import { propertiesSql, readsPersonProperties, SqlParams } from "@/server/properties/sql";
import { POSTGRES } from "@/server/sql/postgres";
import { cohortIdsOf, postgresCohortResolver, requireCohorts } from "../filters/cohorts";
import { ANONYMOUS_ACTOR } from "../actor-events/query";
import { SESSION_ACTOR, SESSION_BOUNCE, SESSION_DURATION, SESSION_JOIN, sessionViewsBetween } from "../sessions/postgres";
import { VIEW_EVENTS_SQL } from "../sessions/session";
import {
  countsByStart,
  earliestSessionStart,
  entryHostSource,
  sessionsAloneColumn,
  needsSessions,
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

export async function postgresWebOverview(sql: SqlExecutor, projectId: number, query: WebQueryBase): Promise<WebOverviewAnswer> {
  await requireCohorts(sql, projectId, cohortIdsOf(query.filters));
  const statement = postgresWebOverviewStatement(projectId, query);
  const rows = await sql.query<WebOverviewStoreRow>(statement.text, statement.values);
  return webOverviewAnswerOf(query, rows[0]);
}

export async function postgresWebStats(sql: SqlExecutor, projectId: number, query: WebStatsQuery): Promise<WebStatsAnswer> {
  await requireCohorts(sql, projectId, cohortIdsOf(query.filters));
  const statement = postgresWebStatsStatement(projectId, query);
  const rows = await sql.query<WebStatsStoreRow>(statement.text, statement.values);
  let pathBounce: Map<string, WebStatsStoreRow> | null = null;
  if (query.breakdown === "Page" && query.includeBounceRate) {
    const paths = rows.slice(0, query.limit).map((row) => String(row.v0));
    const bounce = postgresPathBounceStatement(projectId, query, paths);
    pathBounce = new Map((await sql.query<WebStatsStoreRow>(bounce.text, bounce.values)).map((row) => [String(row.v0), row]));
  }
  return webStatsAnswerOf(query, rows, pathBounce);
}

export async function postgresWebTopClicks(sql: SqlExecutor, projectId: number, query: WebTopClicksQuery): Promise<WebTopClick[]> {
  await requireCohorts(sql, projectId, cohortIdsOf(query.filters));
  const statement = postgresTopClicksStatement(projectId, query);
  return webTopClicksOf(await sql.query<WebTopClicksStoreRow>(statement.text, statement.values));
}

export async function postgresWebTrend(sql: SqlExecutor, projectId: number, query: WebTrendQuery): Promise<WebTrendRow[]> {
  await requireCohorts(sql, projectId, cohortIdsOf(query.filters));
  const statement = postgresWebTrendStatement(projectId, query);
  return webTrendRowsOf(await sql.query<WebTrendStoreRow>(statement.text, statement.values));
}

export async function postgresWebTrendActors(sql: SqlExecutor, projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Promise<string[]> {
  await requireCohorts(sql, projectId, cohortIdsOf(query.filters));
  const statement = postgresWebTrendActorsStatement(projectId, query, starts);
  return (await sql.query<WebTrendActorRow>(statement.text, statement.values)).map((row) => row.actor);
}

/** A visitor: the person, or for an event without one its distinct id (as a uuid too, so that grouping hashes 16 bytes). */
export const ACTOR = `COALESCE(e.person_id, md5('d:' || e.distinct_id)::uuid)`;
/** A URL's host (query.ts URL_HOST_PATTERN), null for none. */
const hostOf = (url: string) => `substring(${url} from '${URL_HOST_PATTERN}')`;
/** A grouped row's bounce rate, for ordering by it. */
const BOUNCE_RATE = `(c_bounced::float8 / NULLIF(c_sessions, 0))`;

interface Statement {
  text: string;
  values: unknown[];
}

/** FROM … WHERE of the view events of the whole read (both periods), joined with their sessions when `join` says how. */
export function viewEvents(
  params: SqlParams,
  projectId: number,
  query: WebQueryBase,
  join: "" | "JOIN" | "LEFT JOIN",
  byStart: boolean,
  events = `e.event IN ${VIEW_EVENTS_SQL}`,
  /** Join the event's person even when no filter reads it (a goal that does). */
  withPerson = false,
): string {
  const from = query.previous?.from ?? query.current.from;
  const to = query.current.to;
  const fromParam = params.add(from.toISOString(), "timestamptz");
  const toParam = params.add(to.toISOString(), "timestamptz");
  const where = [
    `e.project_id = ${params.add(projectId, "int")}`,
    events,
    `e.timestamp >= ${fromParam}`,
    `e.timestamp <= ${toParam}`,
  ];
  if (byStart) where.push(`s.start_timestamp >= ${fromParam}`, `s.start_timestamp <= ${toParam}`);
  const person = withPerson || query.filters.some(readsPersonProperties);
  for (const filter of query.filters) {
    where.push(
      propertiesSql(filter, {
        params,
        columns: { event: "e.properties", person: person ? "COALESCE(pp.properties, '{}'::jsonb)" : "'{}'::jsonb" },
        now: query.now,
        cohort: postgresCohortResolver(params),
      }),
    );
  }
  const joins = `${join === "" ? "" : ` ${join} ${SESSION_JOIN}`}${person ? ` LEFT JOIN persons pp ON pp.uuid = e.person_id AND pp.project_id = e.project_id` : ""}`;
  return `FROM events e${joins} WHERE ${where.join(" AND ")}`;
}

/** SQL testing that the session (its `start`) starts in a period (TRUE without one to test: then every event counts). */
function inPeriod(params: SqlParams, period: { from: Date; to: Date } | null, byStart: boolean, start = "s.start_timestamp"): string {
  if (period === null) return "FALSE";
  if (!byStart) return "TRUE";
  return `(${start} >= ${params.add(period.from.toISOString(), "timestamptz")} AND ${start} <= ${params.add(period.to.toISOString(), "timestamptz")})`;
}

/**
 * The overview from one row per session `x` (actor, views, c, p, duration, bounce): each
 * period's visitors as a hash aggregate over actors (a DISTINCT would sort them all).
 */
function overviewTotals(sessions: string): string {
  const totals = (flag: string) =>
    `(SELECT count(*) FROM (SELECT actor FROM x WHERE ${flag} GROUP BY actor) a)::int AS ${flag}_visitors,
     COALESCE(sum(views) FILTER (WHERE ${flag}), 0)::int AS ${flag}_views, count(*) FILTER (WHERE ${flag})::int AS ${flag}_sessions,
     avg(duration) FILTER (WHERE ${flag})::float8 AS ${flag}_duration, avg(bounce) FILTER (WHERE ${flag})::float8 AS ${flag}_bounce`;
  return `WITH x AS MATERIALIZED (${sessions}) SELECT ${totals("c")}, ${totals("p")} FROM x`;
}

/** The sessions row's count of each event a web trend counts. */
const SESSION_EVENT_COUNTS: Record<WebTrendEvent, string> = { $pageview: "s.pageview_count", $screen: "s.screen_count" };

/**
 * The sessions starting in the query's range (both periods) with a view in it — with
 * `event`, with that event (a web trend's) — one row each: start, actor (a uuid to count;
 * with `keys`, the actor's key as actor lists give it), its views (events) in the range,
 * duration, bounce. Without filters from the sessions table alone: a session's counts, except
 * for one whose last view is past the range's end (a range ending in the past, mid-session:
 * rare), whose views up to the end are read from the events; with filters, the matching
 * views joined with their sessions.
 */
function sessionsWithViews(params: SqlParams, projectId: number, query: WebQueryBase, options: { event?: WebTrendEvent; keys?: boolean } = {}): string {
  const { event, keys = false } = options;
  // A closed set of names (WEB_TREND_EVENTS), so it may stand in the text.
  const events = event === undefined ? VIEW_EVENTS_SQL : `('${event}')`;
  const keyOf = (row: "s" | "e") => `COALESCE(${row}.person_id::text, ${params.constant(ANONYMOUS_ACTOR)} || ${row}.distinct_id)`;
  if (query.filters.length === 0) {
    const project = params.add(projectId, "int");
    const from = params.add((query.previous?.from ?? query.current.from).toISOString(), "timestamptz");
    const to = params.add(query.current.to.toISOString(), "timestamptz");
    const count = event === undefined ? "s.pageview_count + s.screen_count" : SESSION_EVENT_COUNTS[event];
    return `SELECT * FROM (
        SELECT s.start_timestamp AS start, ${keys ? keyOf("s") : SESSION_ACTOR} AS actor,
               CASE WHEN s.last_view_timestamp <= ${to} THEN ${count} ELSE ${sessionViewsBetween(project, from, to, events)} END AS views,
               ${SESSION_DURATION} AS duration, ${SESSION_BOUNCE} AS bounce
        FROM sessions s WHERE s.project_id = ${project} AND s.start_timestamp >= ${from} AND s.start_timestamp <= ${to} AND ${count} > 0) v WHERE views > 0`;
  }
  const from = viewEvents(params, projectId, query, "JOIN", true, `e.event IN ${events}`);
  return `SELECT s.start_timestamp AS start, (array_agg(${keys ? keyOf("e") : ACTOR}))[1] AS actor, count(*) AS views, ${SESSION_DURATION} AS duration, ${SESSION_BOUNCE} AS bounce
    ${from} GROUP BY s.project_id, s.session_id`;
}

/** The overview: the sessions of both periods (sessionsWithViews), each counted in the period it started in. */
function postgresWebOverviewStatement(projectId: number, query: WebQueryBase): Statement {
  const params = new SqlParams();
  const sessions = sessionsWithViews(params, projectId, query);
  const current = inPeriod(params, query.current, true, "r.start");
  const previous = inPeriod(params, query.previous, true, "r.start");
  return {
    text: overviewTotals(`SELECT r.actor, r.views, ${current} AS c, ${previous} AS p, r.duration, r.bounce FROM (${sessions}) r`),
    values: params.values,
  };
}

/** A path with its host in front (includeHost), as PostHog's nullIf(concat(host, path), ''): a missing part is empty text. */
function hostedSql(host: WebHostSource | null, path: string): string {
  if (host === null) return path;
  const hostText = host.from === "event" ? `e.properties->>'${host.key}'` : hostOf(`s.${host.column}`);
  return `NULLIF(COALESCE(${hostText}, '') || COALESCE(${path}, ''), '')`;
}

/** The value columns of a breakdown (v0, v1, …), with includeHost's host before a path's (webHostSource). */
export function valueSql(source: WebBreakdownSource, host: WebHostSource | null): string[] {
  if (source.from === "session") return [hostedSql(host, `s.${source.column}`)];
  if (source.from === "timezone") {
    return [`CASE WHEN jsonb_typeof(e.properties->'$timezone_offset') = 'number' THEN -(e.properties->>'$timezone_offset')::float8 / 60 END`];
  }
  if (host !== null) return [hostedSql(host, `e.properties->>'${source.keys[0]}'`)];
  return source.keys.map((key) => `NULLIF(e.properties->>'${key}', '')`);
}

/**
 * A breakdown by a session's path (entry or exit) without filters, from the sessions table alone: each
 * session's views in the range are its counts, except for a session straddling either end
 * of the range (rare), whose views in the range are read from the events. Without a
 * comparison, sessions that started before the range count with their views inside it, as
 * PostHog's (which joins sessions up to 3 days before the range).
 */
function postgresSessionStatsStatement(projectId: number, query: WebStatsQuery, column: WebSessionColumn): Statement {
  const params = new SqlParams();
  const byStart = countsByStart(query);
  const project = params.add(projectId, "int");
  const rangeFrom = query.previous?.from ?? query.current.from;
  const from = params.add(rangeFrom.toISOString(), "timestamptz");
  const to = params.add(query.current.to.toISOString(), "timestamptz");
  const earliest = params.add(earliestSessionStart(query).toISOString(), "timestamptz");
  const current = inPeriod(params, query.current, byStart);
  const previous = inPeriod(params, query.previous, byStart);
  const viewsInRange = sessionViewsBetween(project, from, to);
  const value = hostedSql(webHostSource(query), `s.${column}`);
  const sessions = `SELECT ${value} AS v0, ${SESSION_ACTOR} AS actor, ${SESSION_BOUNCE} AS b, ${current} AS c, ${previous} AS p,
      CASE WHEN s.start_timestamp >= ${from} AND s.last_view_timestamp <= ${to} THEN (s.pageview_count + s.screen_count)::int ELSE ${viewsInRange}::int END AS views
    FROM sessions s
    WHERE s.project_id = ${project} AND s.start_timestamp >= ${earliest} AND s.start_timestamp <= ${to} AND s.last_view_timestamp >= ${from}
      AND ${value} IS NOT NULL`;
  // Per (value, actor) first, for visitors as hash aggregates; without a comparison, no previous counts at all.
  const flags = query.previous === null ? ["c"] : ["c", "p"];
  const perActor = `SELECT v0, actor, ${flags
    .map((flag) => `sum(views) FILTER (WHERE ${flag}) AS ${flag}_n, count(*) FILTER (WHERE ${flag} AND b = 1)::int AS ${flag}_b, count(*) FILTER (WHERE ${flag} AND b IS NOT NULL)::int AS ${flag}_s`)
    .join(", ")}
    FROM x WHERE views > 0 GROUP BY v0, actor`;
  const counts = (flag: string) =>
    flags.includes(flag)
      ? `count(*) FILTER (WHERE ${flag}_n > 0)::int AS ${flag}_visitors, COALESCE(sum(${flag}_n), 0)::int AS ${flag}_views,
         COALESCE(sum(${flag}_b), 0)::int AS ${flag}_bounced, COALESCE(sum(${flag}_s), 0)::int AS ${flag}_sessions`
      : `0 AS ${flag}_visitors, 0 AS ${flag}_views, 0 AS ${flag}_bounced, 0 AS ${flag}_sessions`;
  const grouped = `SELECT v0, ${counts("c")}, ${counts("p")} FROM (${perActor}) a GROUP BY v0
    HAVING ${flags.map((flag) => `COALESCE(sum(${flag}_n), 0) > 0`).join(" OR ")}`;
  return {
    // Materialised: planned apart, the per-session subquery's cost would steer the grouping to a sort.
    text: `WITH x AS MATERIALIZED (${sessions})
    SELECT *, COALESCE(c_visitors::float8 / NULLIF(sum(c_visitors) OVER (), 0), 0) AS fill FROM (${grouped}) g
    ORDER BY ${webStatsOrderBy(query, `v0 COLLATE "C" ASC NULLS LAST`, BOUNCE_RATE)}
    LIMIT ${params.add(query.limit + 1, "int")} OFFSET ${params.add(query.offset, "int")}`,
    values: params.values,
  };
}

/** Rows (v0…, c_visitors, c_views, p_visitors, p_views, c_bounced, c_sessions, p_bounced, p_sessions, fill), ordered and paged (limit + 1 rows). */
function postgresWebStatsStatement(projectId: number, query: WebStatsQuery): Statement {
  const column = sessionsAloneColumn(query);
  if (column !== null) return postgresSessionStatsStatement(projectId, query, column);
  const { source, dropNull } = WEB_BREAKDOWNS[query.breakdown];
  const params = new SqlParams();
  const byStart = countsByStart(query);
  const join = !needsSessions(query) ? "" : byStart ? "JOIN" : "LEFT JOIN";
  const from = viewEvents(params, projectId, query, join, byStart);
  const current = inPeriod(params, query.current, byStart);
  const previous = inPeriod(params, query.previous, byStart);
  const values = valueSql(source, webHostSource(query));
  const names = values.map((_, i) => `v${i}`);
  const numeric = source.from === "timezone";
  const sessions = join === "" ? "NULL::text" : "s.session_id";
  const bounce = join === "" ? "NULL::int" : SESSION_BOUNCE;
  const order = names.map((name) => (numeric ? `${name} ASC NULLS LAST` : `${name} COLLATE "C" ASC NULLS LAST`)).join(", ");
  const inner = `SELECT ${values.map((value, i) => `${value} AS v${i}`).join(", ")}, ${ACTOR} AS actor, ${sessions} AS sid, ${bounce} AS b, ${current} AS c, ${previous} AS p ${from}`;
  const having = [`(count(*) FILTER (WHERE c) > 0 OR count(*) FILTER (WHERE p) > 0)`, ...(dropNull ? [`v0 IS NOT NULL`] : [])];
  let grouped: string;
  // Page reads its bounce rate apart (pathBounceSql): its own counts are the hash aggregates below.
  if (query.includeBounceRate && query.breakdown !== "Page") {
    const counts = (flag: string) =>
      `count(DISTINCT actor) FILTER (WHERE ${flag})::int AS ${flag}_visitors, count(*) FILTER (WHERE ${flag})::int AS ${flag}_views,
       count(DISTINCT sid) FILTER (WHERE ${flag} AND b = 1)::int AS ${flag}_bounced, count(DISTINCT sid) FILTER (WHERE ${flag} AND b IS NOT NULL)::int AS ${flag}_sessions`;
    grouped = `SELECT ${names.join(", ")}, ${counts("c")}, ${counts("p")} FROM (${inner}) x GROUP BY ${names.join(", ")} HAVING ${having.join(" AND ")}`;
  } else {
    // Visitors as hash aggregates, per (value, actor) first: a DISTINCT would sort every row.
    // Counts as int, so that their sums add bigints, not numerics; without a comparison, no previous counts at all.
    const compared = query.previous !== null;
    const counts = (flag: string) =>
      `count(*) FILTER (WHERE ${flag}_n > 0)::int AS ${flag}_visitors, COALESCE(sum(${flag}_n), 0)::int AS ${flag}_views, 0 AS ${flag}_bounced, 0 AS ${flag}_sessions`;
    const previousCount = compared ? `count(*) FILTER (WHERE p)::int` : `0`;
    const perActor = `SELECT ${names.join(", ")}, count(*) FILTER (WHERE c)::int AS c_n, ${previousCount} AS p_n FROM (${inner}) x GROUP BY ${names.join(", ")}, actor`;
    grouped = `SELECT ${names.join(", ")}, ${counts("c")}, ${counts("p")} FROM (${perActor}) a GROUP BY ${names.join(", ")}
      HAVING (sum(c_n) > 0 OR sum(p_n) > 0)${dropNull ? ` AND v0 IS NOT NULL` : ""}`;
  }
  let bounceRate = BOUNCE_RATE;
  if (query.breakdown === "Page" && query.orderBy?.field === "BounceRate") {
    // Page's rate is its entry sessions' (the answer reads it apart, for the page's paths): ordering by it reads every path's.
    grouped = `SELECT g0.*, pb.c_bounced AS o_bounced, pb.c_sessions AS o_sessions FROM (${grouped}) g0 LEFT JOIN (${pathBounceSql(params, projectId, query, null)}) pb ON pb.v0 = g0.v0`;
    bounceRate = `(o_bounced::float8 / NULLIF(o_sessions, 0))`;
  }
  return {
    text: `SELECT *, COALESCE(c_visitors::float8 / NULLIF(sum(c_visitors) OVER (), 0), 0) AS fill FROM (${grouped}) g
    ORDER BY ${webStatsOrderBy(query, order, bounceRate)}
    LIMIT ${params.add(query.limit + 1, "int")} OFFSET ${params.add(query.offset, "int")}`,
    values: params.values,
  };
}

/**
 * Page's bounce rate (PostHog's PATH_BOUNCE_QUERY): the sessions starting in a period with a
 * view in the range, grouped by their entry path (with includeHost, entry host and path), for
 * the paths given (null: every path). Without filters from the sessions table alone (one row
 * per session instead of every view joined with its session and counted distinct): a session
 * starting in the range has a view in it when its last view is, else (a range ending in the
 * past, mid-session: rare) the events say.
 */
function pathBounceSql(params: SqlParams, projectId: number, query: WebStatsQuery, paths: string[] | null): string {
  const sessionsAlone = query.filters.length === 0;
  const periods = { c: inPeriod(params, query.current, true), p: inPeriod(params, query.previous, true) };
  const distinct = (expr: string) => (sessionsAlone ? `count(*) FILTER (WHERE ${expr})` : `count(DISTINCT s.session_id) FILTER (WHERE ${expr})`);
  const counts = Object.entries(periods).map(
    ([flag, test]) => `${distinct(`${test} AND ${SESSION_BOUNCE} = 1`)}::int AS ${flag}_bounced, ${distinct(`${test} AND ${SESSION_BOUNCE} IS NOT NULL`)}::int AS ${flag}_sessions`,
  );
  const entry = hostedSql(entryHostSource(query), "s.entry_pathname");
  const only = paths === null ? "" : ` AND ${entry} = ANY(${params.add(paths, "text[]")})`;
  let from: string;
  if (sessionsAlone) {
    const project = params.add(projectId, "int");
    const rangeFrom = params.add((query.previous?.from ?? query.current.from).toISOString(), "timestamptz");
    const to = params.add(query.current.to.toISOString(), "timestamptz");
    const viewInRange = `(s.last_view_timestamp <= ${to} OR ${sessionViewsBetween(project, rangeFrom, to)} > 0)`;
    from = `FROM sessions s WHERE s.project_id = ${project} AND s.start_timestamp >= ${rangeFrom} AND s.start_timestamp <= ${to} AND s.last_view_timestamp IS NOT NULL AND ${viewInRange}`;
  } else {
    from = viewEvents(params, projectId, query, "JOIN", true);
  }
  return `SELECT ${entry} AS v0, ${counts.join(", ")} ${from}${only} GROUP BY ${entry}`;
}

function postgresPathBounceStatement(projectId: number, query: WebStatsQuery, paths: string[]): Statement {
  const params = new SqlParams();
  return { text: pathBounceSql(params, projectId, query, paths), values: params.values };
}

/** Top clicks (query.ts WebTopClicksQuery): rows (el_text, clicks, visitors), ordered, at most `limit`. */
function postgresTopClicksStatement(projectId: number, query: WebTopClicksQuery): Statement {
  const params = new SqlParams();
  const text = `NULLIF(e.properties->>'$el_text', '')`;
  const from = viewEvents(params, projectId, { ...query, previous: null }, "", false, `e.event = '$autocapture' AND e.properties->>'$event_type' = 'click' AND ${text} IS NOT NULL`);
  return {
    text: `SELECT ${text} AS el_text, count(*)::int AS clicks, count(DISTINCT ${ACTOR})::int AS visitors ${from}
    GROUP BY 1 ORDER BY clicks DESC, visitors DESC, ${text} COLLATE "C" ASC LIMIT ${params.add(query.limit, "int")}`,
    values: params.values,
  };
}

/** A web trend: rows (bucket, visitors, views, sessions, duration, bounce) for the buckets with sessions, by their start on the zone's wall clock. */
function postgresWebTrendStatement(projectId: number, query: WebTrendQuery): Statement {
  const params = new SqlParams();
  const bucket = POSTGRES.bucket[query.interval](`(r.start AT TIME ZONE ${params.add(query.zone, "text")})`);
  return {
    // Visitors as a hash aggregate per (bucket, actor): a DISTINCT would sort them all.
    text: `WITH x AS MATERIALIZED (SELECT ${bucket} AS bucket, r.actor, r.views, r.duration, r.bounce FROM (${sessionsWithViews(params, projectId, webTrendBase(query), { event: query.event })}) r),
      v AS (SELECT bucket, count(*) AS visitors FROM (SELECT bucket, actor FROM x GROUP BY bucket, actor) a GROUP BY bucket)
    SELECT ${POSTGRES.bucketText("t.bucket")} AS bucket, v.visitors::int AS visitors, t.views, t.sessions, t.duration, t.bounce
    FROM (SELECT bucket, sum(views)::int AS views, count(*)::int AS sessions, avg(duration)::float8 AS duration, avg(bounce)::float8 AS bounce FROM x GROUP BY bucket) t
    JOIN v ON v.bucket = t.bucket`,
    values: params.values,
  };
}

/** The actors of a web trend's sessions starting in [starts.from, starts.before): rows (actor, n), most of the event first. */
function postgresWebTrendActorsStatement(projectId: number, query: WebTrendQuery, starts: WebTrendStarts): Statement {
  const params = new SqlParams();
  const sessions = sessionsWithViews(params, projectId, webTrendBase(query), { event: query.event, keys: true });
  return {
    text: `SELECT r.actor, sum(r.views)::int AS n FROM (${sessions}) r
      WHERE r.start >= ${params.add(starts.from.toISOString(), "timestamptz")} AND r.start < ${params.add(starts.before.toISOString(), "timestamptz")}
      GROUP BY r.actor ORDER BY n DESC, r.actor COLLATE "C"`,
    values: params.values,
  };
}
