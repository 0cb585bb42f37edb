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
