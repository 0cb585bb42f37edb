/**
 * What the event store's list, `select` and values reads accept: the events API's queries
 * once checked (src/server/events/contract.ts builds them from the request and re-exports
 * these types). Defined by the store, so the store imports no domain.
 */
import type { PropertyGroup } from "@/server/properties/contract";
import type { Expr, SelectItem } from "@/server/hogql/parse";

export type EventFormat = "json" | "csv";

export interface EventListQuery {
  format: EventFormat;
  limit: number;
  offset: number;
  after: Date | null;
  before: Date | null;
  /** Tie-breaker of `before` (set by `next` links): events at `before` with a smaller uuid also count. */
  beforeUuid: string | null;
  event: string | null;
  distinctId: string | null;
  /** A person's uuid, or their integer id. */
  personId: { uuid: string } | { id: number } | null;
  properties: PropertyGroup | null;
  /** Experimental `select` (HogQL subset): the answer is rows of these columns. Absent when not given. */
  select?: SelectItem[];
  /** Experimental `where` (HogQL subset): conditions ANDed with the other filters. Absent when not given. */
  where?: Expr[];
}

export interface EventValuesQuery {
  key: string;
  prefix: string | null;
  eventName: string | null;
}

/** `values`: how many values, and how many of the newest events having the key are looked at. */
export const EVENT_VALUES_LIMITS = { limit: 50, sample: 100_000 } as const;

/** A stored event as the list and retrieve read it. */
export interface EventRow {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  person_id: string | null;
  elements_chain: string;
}

/** A position in the list (newest first): events strictly after it in that order. */
export interface EventCursor {
  timestamp: Date;
  uuid: string;
}

/** Which rows of the list: `limit` after skipping `offset`, or after `cursor` when given (then `offset` is not applied). */
export interface ListPage {
  limit: number;
  offset: number;
  cursor: EventCursor | null;
  /** The time relative filter dates count back from. */
  now: Date;
}

/** `countList`'s answer: how many events match, counted up to a cap (`capped`: at least `count`). */
export interface ListCount {
  count: number;
  capped: boolean;
}

export interface SelectRow {
  /** The selected values, in select order (timestamps as ISO text). */
  values: unknown[];
  /** Where this row is in the list, for `next`; null when the rows are aggregated. */
  cursor: EventCursor | null;
}

export interface SelectPage {
  types: string[];
  aggregated: boolean;
  rows: SelectRow[];
}
