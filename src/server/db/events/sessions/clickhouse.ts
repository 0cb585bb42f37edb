/**
 * The sessions table in ClickHouse (clickhouse/migrations/0004_sessions_v2.sql, kept from the
 * events by a materialised view) as readers use it: one row per session read with FINAL
 * (which merges a session's parts as it reads, cheaper than grouping every row by session
 * id), and its duration and bounce as session.ts defines them (postgres.ts's
 * SESSION_DURATION and SESSION_BOUNCE). Both read a session row `s`.
 */
import type { ChParams } from "@/server/sql/bind";
import type { ChTables } from "../clickhouse/context";
import { ANONYMOUS_ACTOR } from "../actor-events/query";
import { BOUNCE_SECONDS, VIEW_EVENTS_SQL, type ViewEvent } from "./session";

/** Whole seconds from the session's first event to its last. */
export const CH_SESSION_DURATION = `(toUnixTimestamp(s.s_end) - toUnixTimestamp(s.s_start))`;
/** 1 bounced, 0 not, NULL without a `$pageview`. */
export const CH_SESSION_BOUNCE = `multiIf(s.s_pageviews = 0, NULL, s.s_pageviews > 1 OR s.s_autocaptures > 0 OR ${CH_SESSION_DURATION} >= ${BOUNCE_SECONDS}, 0, 1)`;

export const SESSION_FIELDS = [
  "entry_url",
  "entry_pathname",
  "entry_referring_domain",
  "entry_utm_source",
  "entry_utm_medium",
  "entry_utm_campaign",
  "entry_utm_term",
  "entry_utm_content",
  "exit_url",
  "exit_pathname",
] as const;
export type SessionField = (typeof SESSION_FIELDS)[number];

export interface SessionRowsOptions {
  /** The entry/exit fields to read, as `f_<field>` (null for none). */
  fields?: readonly SessionField[];
  /** Adds `actor`: the session's person as merged since, else its distinct id (as a uuid, as PostgreSQL's store does). */
  actor?: boolean;
  /** With `actor`, adds `actor_key`: the same actor as actor lists key it (the person's uuid, else ANONYMOUS_ACTOR and the distinct id). */
  actorKey?: boolean;
}

/**
 * The project's sessions whose merged rows pass `where` (SQL over the table's columns), as
 * sid, s_start, s_end, s_last_view, s_pageviews, s_screens and s_autocaptures, with what
 * `options` asks for.
 */
export function chSessionRows(tables: ChTables, params: ChParams, projectId: number, where: string, options: SessionRowsOptions = {}): string {
  const project = params.add(projectId, "int");
  const fields = (options.fields ?? []).map((field) => `, nullIf(finalizeAggregation(${field}), '') AS f_${field}`).join("");
  const person = options.actor ? `, distinct_id AS s_distinct_id, finalizeAggregation(person) AS s_person` : "";
  // (Aliases apart from the column names: FINAL's merge reads the columns under their own names.)
  const rows = `SELECT session_id AS sid, start_timestamp AS s_start, end_timestamp AS s_end, last_view_timestamp AS s_last_view, pageview_count AS s_pageviews,
      screen_count AS s_screens, autocapture_count AS s_autocaptures${person}${fields}
    FROM ${tables.sessions} FINAL WHERE project_id = ${project} AND ${where}`;
  if (!options.actor) return `(${rows})`;
  // (Nested ifs, not coalesce: the distinct id's hash is computed only for sessions without a person. The override
  // is Nullable, so that a session without one reads NULL whatever join_use_nulls says.)
  const actor = `if(o.new_person_id IS NOT NULL, assumeNotNull(o.new_person_id), if(x.s_person IS NOT NULL, assumeNotNull(x.s_person), reinterpretAsUUID(MD5(concat('d:', x.s_distinct_id)))))`;
  const key = options.actorKey
    ? `, if(o.new_person_id IS NOT NULL, toString(assumeNotNull(o.new_person_id)), if(x.s_person IS NOT NULL, toString(assumeNotNull(x.s_person)), concat(${params.constant(ANONYMOUS_ACTOR)}, x.s_distinct_id))) AS actor_key`
    : "";
  return `(SELECT x.*, ${actor} AS actor${key} FROM (${rows}) AS x
    LEFT JOIN (SELECT old_person_id, CAST(new_person_id AS Nullable(UUID)) AS new_person_id FROM ${tables.overrides} FINAL WHERE project_id = ${project}) AS o
      ON o.old_person_id = x.s_person)`;
}

/** The sessions that may hold events of [from, to] (parameters already added). */
export function chSessionsOverlapping(tables: ChTables, params: ChParams, projectId: number, from: string, to: string, options: SessionRowsOptions = {}): string {
  return chSessionRows(tables, params, projectId, `start_timestamp <= ${to} AND end_timestamp >= ${from}`, options);
}

/** A session row's count of each event a web trend counts, and of both (the views). */
const SESSION_EVENT_COUNTS: Record<ViewEvent, string> = { $pageview: "s.s_pageviews", $screen: "s.s_screens" };
const VIEW_COUNTS = { sql: VIEW_EVENTS_SQL, count: "s.s_pageviews + s.s_screens" };

/**
 * The sessions starting in [earliest, to] with a view in [from, to], with their visitor
 * (`actor`) and `views`: their counts, or, for the few straddling an end of the range, their
 * view events inside it, read from the events in the window those sessions span. With
 * `event`, views are that event's only (web trends of `$pageview` or `$screen`).
 */
export function chSessionsWithViews(
  tables: ChTables,
  params: ChParams,
  projectId: number,
  range: { earliest: Date; from: Date; to: Date },
  options: { fields?: readonly SessionField[]; event?: ViewEvent; actorKey?: boolean } = {},
): string {
  const { fields = [], event = null, actorKey = false } = options;
  // A closed set of names (WEB_TREND_EVENTS), so it may stand in the text.
  const views = event === null ? VIEW_COUNTS : { sql: `('${event}')`, count: SESSION_EVENT_COUNTS[event] };
  const earliest = params.add(range.earliest.toISOString(), "timestamptz");
  const from = params.add(range.from.toISOString(), "timestamptz");
  const to = params.add(range.to.toISOString(), "timestamptz");
  const inRange = `start_timestamp >= ${earliest} AND start_timestamp <= ${to} AND last_view_timestamp >= ${from}`;
  const inside = (start: string, lastView: string) => `(${start} >= ${from} AND ${lastView} <= ${to})`;
  const straddlers = chSessionRows(tables, params, projectId, `${inRange} AND NOT ${inside("start_timestamp", "last_view_timestamp")}`);
  // The window they span, read once: (earliest start, latest view), both 1970 without straddlers.
  const straddlerViews = `WITH (SELECT tuple(min(s_start), max(s_last_view)) FROM ${straddlers}) AS span
    SELECT mat_session_id AS sid, count() AS n FROM ${tables.events}
    WHERE project_id = ${params.add(projectId, "int")} AND event IN ${views.sql}
      AND timestamp >= greatest(${from}, tupleElement(span, 1)) AND timestamp <= least(${to}, tupleElement(span, 2))
      AND mat_session_id IN (SELECT sid FROM ${straddlers})
    GROUP BY sid`;
  return `(SELECT s.*, if(${inside("s.s_start", "s.s_last_view")}, ${views.count}, ifNull(v.n, 0)) AS views
    FROM ${chSessionRows(tables, params, projectId, inRange, { fields, actor: true, actorKey })} AS s LEFT JOIN (${straddlerViews}) AS v ON v.sid = s.sid)`;
}

let lastOverrideVersion = 0n;
/** Versions of person_overrides rows: microseconds, strictly increasing within the process (a later merge wins). */
function overrideVersion(): string {
  const now = BigInt(Date.now()) * 1000n;
  lastOverrideVersion = now > lastOverrideVersion ? now : lastOverrideVersion + 1n;
  return lastOverrideVersion.toString();
}

/**
 * A person merge, for the sessions (which no UPDATE can reach): an override from the source
 * to the target, and the source's own overrides, of persons merged into it before, moved on
 * to the target, so that a read follows one step.
 */
export function chPersonOverridesInsert(tables: ChTables, projectId: number, sourceUuid: string, targetUuid: string): { query: string; query_params: Record<string, unknown> } {
  return {
    query: `INSERT INTO ${tables.overrides} (project_id, old_person_id, new_person_id, version)
      SELECT {project:Int32}, {source:UUID}, {target:UUID}, {version:UInt64}
      UNION ALL SELECT project_id, old_person_id, {target:UUID}, {version:UInt64} FROM ${tables.overrides} FINAL
        WHERE project_id = {project:Int32} AND new_person_id = {source:UUID}`,
    query_params: { project: projectId, source: sourceUuid, target: targetUuid, version: overrideVersion() },
  };
}
