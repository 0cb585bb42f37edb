/**
 * The sessions table in PostgreSQL (sessions/session.ts): its upkeep — the deltas the insert
 * writes in the same statement as the events (insert/postgres.ts, sessions/deltas.ts), merged
 * into the table in batches (foldSessionDeltas; the store runs it, sessions/fold.ts) — and what
 * readers (trends' session maths, web analytics) read of a session row `s`.
 */
import { BOUNCE_SECONDS, VIEW_EVENTS_SQL } from "./session";

const ENTRY_FIELDS = {
  entry_url: "$current_url",
  entry_referring_domain: "$referring_domain",
  entry_utm_source: "utm_source",
  entry_utm_medium: "utm_medium",
  entry_utm_campaign: "utm_campaign",
  entry_utm_term: "utm_term",
  entry_utm_content: "utm_content",
} as const;

/** A URL's path: what lies between the host and `?`/`#` (PostHog's `path()`), null for none. */
const pathOf = (url: string) => `NULLIF(substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*([^?#]*)'), '')`;
/** The page's path: `$pathname` as the SDK sent it, else the URL's. */
const pathnameOf = (props: string) => `COALESCE(NULLIF(${props}->>'$pathname', ''), ${pathOf(`(${props}->>'$current_url')`)})`;

/** The columns of session_deltas the insert writes, as jsonb_to_recordset reads them from its document. */
export const SESSION_DELTA_RECORD = `r(project_id int, session_id text, distinct_id text, person_id uuid, start_timestamp timestamptz, end_timestamp timestamptz,
  last_view_timestamp timestamptz, pageview_count int, screen_count int, autocapture_count int, entry_timestamp timestamptz, entry jsonb,
  exit_timestamp timestamptz, exit jsonb)`;
const DELTA_COLUMNS = `project_id, session_id, distinct_id, person_id, start_timestamp, end_timestamp, last_view_timestamp, pageview_count, screen_count,
  autocapture_count, entry_timestamp, entry, exit_timestamp, exit`;

/** The insert of a document of deltas (sessions/deltas.ts) into session_deltas, as a statement's `$n` parameter. */
export const insertSessionDeltas = (param: string) => `INSERT INTO session_deltas (${DELTA_COLUMNS}) SELECT * FROM jsonb_to_recordset(${param}::jsonb) AS ${SESSION_DELTA_RECORD}`;

/**
 * Merges up to $1 deltas, oldest first, into the sessions table and deletes them, in one
 * statement: each delta once, whichever node runs it (SKIP LOCKED: two merging at once take
 * different deltas). A session's deltas are merged as the events would have been in one
 * insert — earliest start, latest end, counts added, the entry (exit) fields of the earliest
 * (latest) entry (exit) event, an earlier delta winning a tie, the first person — and the
 * result into the stored row the same way, so that events arriving late or in other inserts
 * give the row all its events would. Rows in key order, so that concurrent merges lock shared
 * sessions in the same order.
 */
export function foldSessionDeltas(): string {
  const entryColumns = Object.keys(ENTRY_FIELDS);
  const later = (side: "entry" | "exit") =>
    side === "entry"
      ? `(sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp)`
      : `(sessions.exit_timestamp IS NULL OR EXCLUDED.exit_timestamp >= sessions.exit_timestamp)`;
  const pick = (side: "entry" | "exit", column: string) => `${column} = CASE WHEN ${later(side)} THEN EXCLUDED.${column} ELSE sessions.${column} END`;
  return `WITH claimed AS (
      DELETE FROM session_deltas WHERE id IN (SELECT id FROM session_deltas ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING *
    ), merged AS (
      SELECT project_id, session_id, (array_agg(distinct_id ORDER BY id))[1] AS distinct_id,
        (array_agg(person_id ORDER BY id) FILTER (WHERE person_id IS NOT NULL))[1] AS person_id,
        min(start_timestamp) AS start_timestamp, max(end_timestamp) AS end_timestamp, max(last_view_timestamp) AS last_view_timestamp,
        sum(pageview_count) AS pageview_count, sum(screen_count) AS screen_count, sum(autocapture_count) AS autocapture_count,
        min(entry_timestamp) AS entry_timestamp, (array_agg(entry ORDER BY entry_timestamp, id) FILTER (WHERE entry_timestamp IS NOT NULL))[1] AS entry,
        max(exit_timestamp) AS exit_timestamp, (array_agg(exit ORDER BY exit_timestamp DESC, id DESC) FILTER (WHERE exit_timestamp IS NOT NULL))[1] AS exit
      FROM claimed GROUP BY project_id, session_id
    ), upserted AS (
      INSERT INTO sessions AS sessions (project_id, session_id, distinct_id, person_id, start_timestamp, end_timestamp, last_view_timestamp,
        pageview_count, screen_count, autocapture_count, entry_timestamp, ${entryColumns.join(", ")}, entry_pathname, exit_timestamp, exit_url, exit_pathname)
      SELECT m.project_id, m.session_id, m.distinct_id, m.person_id, m.start_timestamp, m.end_timestamp, m.last_view_timestamp,
        m.pageview_count, m.screen_count, m.autocapture_count, m.entry_timestamp,
        ${Object.values(ENTRY_FIELDS)
          .map((key) => `NULLIF(m.entry->>'${key}', '')`)
          .join(", ")},
        ${pathnameOf("m.entry")}, m.exit_timestamp, NULLIF(m.exit->>'$current_url', ''), ${pathnameOf("m.exit")}
      FROM merged m
      ORDER BY m.project_id, m.session_id
      ON CONFLICT (project_id, session_id) DO UPDATE SET
        person_id = COALESCE(sessions.person_id, EXCLUDED.person_id),
        start_timestamp = LEAST(sessions.start_timestamp, EXCLUDED.start_timestamp),
        end_timestamp = GREATEST(sessions.end_timestamp, EXCLUDED.end_timestamp),
        last_view_timestamp = GREATEST(sessions.last_view_timestamp, EXCLUDED.last_view_timestamp),
        pageview_count = sessions.pageview_count + EXCLUDED.pageview_count,
        screen_count = sessions.screen_count + EXCLUDED.screen_count,
        autocapture_count = sessions.autocapture_count + EXCLUDED.autocapture_count,
        ${[...entryColumns, "entry_pathname"].map((column) => pick("entry", column)).join(",\n        ")},
        entry_timestamp = LEAST(sessions.entry_timestamp, EXCLUDED.entry_timestamp),
        ${["exit_url", "exit_pathname"].map((column) => pick("exit", column)).join(",\n        ")},
        exit_timestamp = GREATEST(sessions.exit_timestamp, EXCLUDED.exit_timestamp),
        updated_at = now()
      RETURNING 1
    ) SELECT (SELECT count(*) FROM claimed)::int AS n`;
}

/** Session duration in whole seconds (ClickHouse's dateDiff('second', …) on the two ends), of a session row `s`. */
export const SESSION_DURATION = `(floor(extract(epoch FROM s.end_timestamp)) - floor(extract(epoch FROM s.start_timestamp)))`;
/** 1 bounced, 0 not, NULL without a `$pageview` (session.ts), of a session row `s`. */
export const SESSION_BOUNCE = `CASE WHEN s.pageview_count = 0 THEN NULL WHEN s.pageview_count > 1 OR s.autocapture_count > 0 OR ${SESSION_DURATION} >= ${BOUNCE_SECONDS} THEN 0 ELSE 1 END`;
/** ACTOR of a session row `s`: its person, else its distinct id. */
export const SESSION_ACTOR = `COALESCE(s.person_id, md5('d:' || s.distinct_id)::uuid)`;
/** The sessions row `s` of an event `e`. */
export const SESSION_JOIN = `sessions s ON s.project_id = e.project_id AND s.session_id = e.properties->>'$session_id'`;

/**
 * The view events of the session row `s` inside [from, to] (parameters already added), read
 * by the events' index over the part of the range the session spans: for the few sessions
 * straddling a range's end.
 */
export function sessionViewsBetween(project: string, from: string, to: string, events = VIEW_EVENTS_SQL): string {
  return `(SELECT count(*) FROM events e WHERE e.project_id = ${project} AND e.event IN ${events}
      AND e.timestamp >= GREATEST(s.start_timestamp, ${from}) AND e.timestamp <= LEAST(s.last_view_timestamp, ${to}) AND e.properties->>'$session_id' = s.session_id)`;
}

