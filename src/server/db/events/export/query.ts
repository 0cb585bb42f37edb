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
