/**
 * What a session is, in both stores (PostHog's sessions: products/web_analytics and the
 * sessions table): the events sharing a `$session_id` (a string of at most
 * MAX_SESSION_ID_LENGTH characters), kept as one row per session by the store's insert
 * (postgres.ts: the sessions table; clickhouse.ts: sessions_v2, merged as it is read).
 *
 * - its start and end are its earliest and latest event, whatever their names;
 * - duration is end − start in whole seconds, over all the session's events;
 * - bounce: null without a `$pageview`, else not (more than one `$pageview`, any
 *   `$autocapture`, or a duration of BOUNCE_SECONDS or more);
 * - its views are its VIEW_EVENTS; its entry (exit) fields those of its first (last) event
 *   with a `$current_url`.
 */

/** The events a session counts as views (web analytics', and web trends' series). */
export const VIEW_EVENTS = ["$pageview", "$screen"] as const;
export type ViewEvent = (typeof VIEW_EVENTS)[number];
/** VIEW_EVENTS as an SQL list, the same text in both stores' dialects. */
export const VIEW_EVENTS_SQL = `(${VIEW_EVENTS.map((event) => `'${event}'`).join(", ")})`;
/** PostHog's DEFAULT_BOUNCE_RATE_DURATION_SECONDS. */
export const BOUNCE_SECONDS = 10;
/** Longer `$session_id`s are not sessions (the sessions table keys on the text). */
export const MAX_SESSION_ID_LENGTH = 200;
