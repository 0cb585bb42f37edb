/**
 * What one insert's events add to each of their sessions (session.ts), worked out here as
 * ingestion hands the rows over, so that the insert only appends one delta row per session
 * (sessions/postgres.ts merges them into the sessions table). The rules are the sessions
 * table's: start and end over all the session's events, views and autocaptures counted, the
 * entry (exit) event the earliest (latest) one with a `$current_url`, ties by uuid, and the
 * first person in time.
 */
import type { StoredEventInput } from "../contract";
import { MAX_SESSION_ID_LENGTH } from "./session";

/** The properties a session's entry fields are read from (sessions/postgres.ts ENTRY_FIELDS, and `$pathname`). */
const ENTRY_KEYS = ["$current_url", "$referring_domain", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "$pathname"] as const;
const EXIT_KEYS = ["$current_url", "$pathname"] as const;

/** One row of `session_deltas` (timestamps as ISO text, for the insert's JSON document). */
export interface SessionDelta {
  project_id: number;
  session_id: string;
  distinct_id: string;
  person_id: string | null;
  start_timestamp: string;
  end_timestamp: string;
  last_view_timestamp: string | null;
  pageview_count: number;
  screen_count: number;
  autocapture_count: number;
  entry_timestamp: string | null;
  entry: Record<string, unknown> | null;
  exit_timestamp: string | null;
  exit: Record<string, unknown> | null;
}

/** A session's `$session_id`, or null when the event has none the sessions table keys on. */
export function sessionIdOf(properties: Record<string, unknown>): string | null {
  const id = properties.$session_id;
  if (typeof id !== "string" || id === "") return null;
  // PostgreSQL's length() counts characters: a string of more UTF-16 units may still fit.
  if (id.length > MAX_SESSION_ID_LENGTH && [...id].length > MAX_SESSION_ID_LENGTH) return null;
  return id;
}

/** Whether `->>` of the value is a non-empty text: what makes an event an entry or exit candidate. */
const hasUrl = (properties: Record<string, unknown>) => {
  const url = properties.$current_url;
  return url !== undefined && url !== null && url !== "";
};

/** (timestamp, uuid) order: uuids compare as PostgreSQL compares them (their bytes, lower-case hex). */
function earlier(a: StoredEventInput, b: StoredEventInput): boolean {
  const at = a.timestamp.getTime();
  const bt = b.timestamp.getTime();
  return at !== bt ? at < bt : a.uuid.toLowerCase() < b.uuid.toLowerCase();
}

function pick(properties: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (properties[key] !== undefined) out[key] = properties[key];
  return out;
}

interface Gathering {
  projectId: number;
  sessionId: string;
  distinctId: string;
  person: StoredEventInput | null;
  start: number;
  end: number;
  lastView: number | null;
  pageviews: number;
  screens: number;
  autocaptures: number;
  entry: StoredEventInput | null;
  exit: StoredEventInput | null;
}

/**
 * The deltas of events handed over one at a time (`add`), so that a long insert can let other
 * requests in between its events; `deltas()` then gives one per (project, session), in key order.
 */
export class SessionDeltas {
  private readonly sessions = new Map<string, Gathering>();

  add(e: StoredEventInput): void {
    const sessionId = sessionIdOf(e.properties);
    if (sessionId === null) return;
    const key = `${e.projectId}\u0000${sessionId}`;
    const time = e.timestamp.getTime();
    let s = this.sessions.get(key);
    if (!s) {
      s = { projectId: e.projectId, sessionId, distinctId: e.distinctId, person: null, start: time, end: time, lastView: null, pageviews: 0, screens: 0, autocaptures: 0, entry: null, exit: null };
      this.sessions.set(key, s);
    }
    if (e.distinctId < s.distinctId) s.distinctId = e.distinctId;
    if (e.personId && (!s.person || e.timestamp.getTime() < s.person.timestamp.getTime())) s.person = e;
    if (time < s.start) s.start = time;
    if (time > s.end) s.end = time;
    if (e.event === "$pageview" || e.event === "$screen") s.lastView = s.lastView === null ? time : Math.max(s.lastView, time);
    if (e.event === "$pageview") s.pageviews++;
    else if (e.event === "$screen") s.screens++;
    else if (e.event === "$autocapture") s.autocaptures++;
    if (hasUrl(e.properties)) {
      if (!s.entry || earlier(e, s.entry)) s.entry = e;
      if (!s.exit || earlier(s.exit, e)) s.exit = e;
    }
  }

  deltas(): SessionDelta[] {
    const iso = (ms: number) => new Date(ms).toISOString();
    return [...this.sessions.values()]
      .sort((a, b) => a.projectId - b.projectId || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0))
      .map((s) => ({
        project_id: s.projectId,
        session_id: s.sessionId,
        distinct_id: s.distinctId,
        person_id: s.person?.personId ?? null,
        start_timestamp: iso(s.start),
        end_timestamp: iso(s.end),
        last_view_timestamp: s.lastView === null ? null : iso(s.lastView),
        pageview_count: s.pageviews,
        screen_count: s.screens,
        autocapture_count: s.autocaptures,
        entry_timestamp: s.entry ? s.entry.timestamp.toISOString() : null,
        entry: s.entry ? pick(s.entry.properties, ENTRY_KEYS) : null,
        exit_timestamp: s.exit ? s.exit.timestamp.toISOString() : null,
        exit: s.exit ? pick(s.exit.properties, EXIT_KEYS) : null,
      }));
  }
}

/** One delta per (project, session) of `events`, in key order. */
export function sessionDeltasOf(events: readonly StoredEventInput[]): SessionDelta[] {
  const deltas = new SessionDeltas();
  for (const e of events) deltas.add(e);
  return deltas.deltas();
}
