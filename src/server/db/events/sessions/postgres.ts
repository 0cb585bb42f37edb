/**
 * The sessions table in PostgreSQL (sessions/session.ts): its upkeep, which the insert runs
 * in the same statement as the events (insert/postgres.ts), and what readers (trends' session
 * maths, web analytics) read of a session row `s`.
 */
import { BOUNCE_SECONDS, MAX_SESSION_ID_LENGTH, VIEW_EVENTS_SQL } from "./session";

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

/**
 * The upsert of the sessions of `source` (a relation with the events' columns): one row per
 * session of the batch, merged into the stored one — earliest start, latest end, counts
 * added, and the entry (exit) fields of whichever side saw the earlier (later) event with a
 * URL — so that events arriving late or in other batches give the row all events would.
 * Rows in key order, so that concurrent batches lock shared sessions in the same order.
 */
export function sessionsUpsert(source: string): string {
  const url = `NULLIF(r.properties->>'$current_url', '')`;
  const entry = (expr: string) => `(array_agg(${expr} ORDER BY r.timestamp, r.uuid) FILTER (WHERE ${url} IS NOT NULL))[1]`;
  const exit = (expr: string) => `(array_agg(${expr} ORDER BY r.timestamp DESC, r.uuid DESC) FILTER (WHERE ${url} IS NOT NULL))[1]`;
  const entryColumns = Object.keys(ENTRY_FIELDS);
  const later = (side: "entry" | "exit") =>
    side === "entry"
      ? `(sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp)`
      : `(sessions.exit_timestamp IS NULL OR EXCLUDED.exit_timestamp >= sessions.exit_timestamp)`;
  const pick = (side: "entry" | "exit", column: string) => `${column} = CASE WHEN ${later(side)} THEN EXCLUDED.${column} ELSE sessions.${column} END`;
  return `INSERT INTO sessions AS sessions (project_id, session_id, distinct_id, person_id, start_timestamp, end_timestamp, last_view_timestamp,
      pageview_count, screen_count, autocapture_count, entry_timestamp, ${entryColumns.join(", ")}, entry_pathname, exit_timestamp, exit_url, exit_pathname)
    SELECT r.project_id, r.properties->>'$session_id', min(r.distinct_id), (array_agg(r.person_id ORDER BY r.timestamp) FILTER (WHERE r.person_id IS NOT NULL))[1],
      min(r.timestamp), max(r.timestamp), max(r.timestamp) FILTER (WHERE r.event IN ('$pageview', '$screen')),
      count(*) FILTER (WHERE r.event = '$pageview'), count(*) FILTER (WHERE r.event = '$screen'), count(*) FILTER (WHERE r.event = '$autocapture'),
      min(r.timestamp) FILTER (WHERE ${url} IS NOT NULL),
      ${Object.values(ENTRY_FIELDS)
        .map((key) => entry(`NULLIF(r.properties->>'${key}', '')`))
        .join(",\n      ")},
      ${entry(pathnameOf("r.properties"))},
      max(r.timestamp) FILTER (WHERE ${url} IS NOT NULL), ${exit(url)}, ${exit(pathnameOf("r.properties"))}
    FROM ${source} r
    WHERE jsonb_typeof(r.properties->'$session_id') = 'string' AND r.properties->>'$session_id' <> '' AND length(r.properties->>'$session_id') <= ${MAX_SESSION_ID_LENGTH}
    GROUP BY r.project_id, r.properties->>'$session_id'
    ORDER BY r.project_id, r.properties->>'$session_id'
    ON CONFLICT (project_id, session_id) DO UPDATE SET
      person_id = COALESCE(sessions.person_id, EXCLUDED.person_id),
      start_timestamp = LEAST(sessions.start_timestamp, EXCLUDED.start_timestamp),
      end_timestamp = GREATEST(sessions.end_timestamp, EXCLUDED.end_timestamp),
      last_view_timestamp = GREATEST(sessions.last_view_timestamp, EXCLUDED.last_view_timestamp),
      pageview_count = sessions.pageview_count + EXCLUDED.pageview_count,
      screen_count = sessions.screen_count + EXCLUDED.screen_count,
      autocapture_count = sessions.autocapture_count + EXCLUDED.autocapture_count,
      ${[...entryColumns, "entry_pathname"].map((column) => pick("entry", column)).join(",\n      ")},
      entry_timestamp = LEAST(sessions.entry_timestamp, EXCLUDED.entry_timestamp),
      ${["exit_url", "exit_pathname"].map((column) => pick("exit", column)).join(",\n      ")},
      exit_timestamp = GREATEST(sessions.exit_timestamp, EXCLUDED.exit_timestamp)`;
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

