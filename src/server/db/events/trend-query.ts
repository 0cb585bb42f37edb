/**
 * The aggregation insights ask of the event store: events of a time range counted — or
 * their unique users — per bucket of a time zone, optionally per value of one property with
 * the top values kept and the rest folded into "other". The store answers only the buckets
 * and values that have events; the insights service zero-fills and shapes the result, so
 * both stores share that part and cannot drift apart.
 */
import type { PropertyGroup } from "@/server/properties/contract";

/** PostHog's breakdown value of the bucket holding every value past the limit. */
export const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$";
/** PostHog's breakdown value of events without the property (or with it null or ""). */
export const BREAKDOWN_NULL = "$$_posthog_breakdown_null_$$";

export type TrendInterval = "hour" | "day" | "week" | "month";

export interface TrendQuery {
  /** One event name, or every event. */
  event: string | null;
  /** Every group must hold (the insight's and the series' filters). */
  filters: PropertyGroup[];
  /** `total`: events; `dau`: unique users — persons, and the distinct ids of events without one. */
  math: "total" | "dau";
  /**
   * Events count when `from` ≤ timestamp ≤ `to` (instants). Buckets start on the wall clock
   * of `zone`, weeks on Sunday; `interval` null puts the whole range in one bucket.
   */
  from: Date;
  to: Date;
  zone: string;
  interval: TrendInterval | null;
  /**
   * Per value of one property (its text as PostgreSQL's `->>` gives it; missing, null or ""
   * is BREAKDOWN_NULL): the `limit` values with the most events (ties to the larger value in
   * byte order) are kept, all others fold into BREAKDOWN_OTHER. Unique users are counted per
   * folded value, so a user seen under two folded values counts once in "other".
   */
  breakdown: { type: "event" | "person"; key: string; limit: number } | null;
  /** The time relative filter dates count back from. */
  now: Date;
}

export interface TrendRow {
  /** The (folded) breakdown value; null without a breakdown. */
  value: string | null;
  /** The bucket's start on the zone's wall clock, `YYYY-MM-DD HH:MM:SS`; null when `interval` is null. */
  bucket: string | null;
  n: number;
}
