/**
 * Reading events by ingestion time, for batch exports (PostHog's `events_batch_export` view
 * selects `_inserted_at` ≥ start and < end): a page at a time in (ingestion time, uuid) order,
 * so that a reader resumes after the last row it took and a late event (its timestamp in an
 * earlier interval) is read with the interval it arrived in.
 */

/** Where a page starts: after this row (null: from the range's start). */
export interface ExportCursor {
  /** The ingestion time, ISO 8601 (microseconds where the store keeps them). */
  at: string;
  uuid: string;
}

export interface ExportPageQuery {
  /** Ingestion time ≥ from and < to. */
  from: Date;
  to: Date;
  after: ExportCursor | null;
  limit: number;
}

/** An event as batch exports write it (PostHog's exported columns). */
export interface ExportedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  properties: Record<string, unknown>;
  elements_chain: string;
  timestamp: string;
  /** When Burrow stored it (ISO 8601): PostHog's `_inserted_at`. */
  inserted_at: string;
}

/**
 * A session as batch exports write it: the sessions table's row (PostgreSQL store), read by
 * when the row last changed (`updated_at`: a merge of its events' deltas, a person merge), in
 * (change time, session id) order; the cursor's `uuid` holds the session id.
 */
export interface ExportedSession {
  session_id: string;
  distinct_id: string;
  person_id: string | null;
  start_timestamp: string;
  end_timestamp: string;
  /** Seconds between the first and the last event. */
  duration: number;
  pageview_count: number;
  screen_count: number;
  autocapture_count: number;
  entry_url: string | null;
  entry_pathname: string | null;
  entry_referring_domain: string | null;
  entry_utm_source: string | null;
  entry_utm_medium: string | null;
  entry_utm_campaign: string | null;
  entry_utm_term: string | null;
  entry_utm_content: string | null;
  exit_url: string | null;
  exit_pathname: string | null;
  /** When the row last changed (ISO 8601). */
  updated_at: string;
}
