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

/** Property maths: their aggregate over the property's numeric values. */
export const PROPERTY_MATHS = ["sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99"] as const;
export type PropertyMath = (typeof PROPERTY_MATHS)[number];
/** The quantile each percentile math takes (interpolated linearly, as PostgreSQL's percentile_cont). */
export const MATH_QUANTILES: Partial<Record<PropertyMath, number>> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };
export type TrendMath = "total" | "dau" | "first_seen_users" | "unique_session" | "active" | PropertyMath;

/**
 * Session properties a property math may read (PostHog's session_properties): each session's
 * value counts once per bucket it has events in, not once per event.
 * `$session_duration`: end − start in whole seconds; `$is_bounce`: 1 bounced, 0 not, null
 * without a `$pageview` (sessions/session.ts's definitions).
 */
export const SESSION_MATH_PROPERTIES = ["$session_duration", "$is_bounce"] as const;
export type SessionMathProperty = (typeof SESSION_MATH_PROPERTIES)[number];

export interface TrendQuery {
  /** One event name, or every event. */
  event: string | null;
  /** Every group must hold (the insight's and the series' filters). */
  filters: PropertyGroup[];
  /**
   * `total`: events; `dau`: unique users — persons, and the distinct ids of events without
   * one; `unique_session`: distinct `$session_id`s (missing and "" not counted); a property
   * math: that aggregate of `mathProperty`'s numeric values (text that is not a decimal
   * number is left out, as PostHog's toFloat gives null; 0 where none); `active`: the unique
   * users of the trailing `active.days` days ending with each bucket's first day;
   * `first_seen_users`: unique users, each only in the bucket of its first event of the
   * range (a cumulative chart of unique users adds these up).
   */
  math: TrendMath;
  /** The event property a property math reads. */
  mathProperty?: string | null;
  /**
   * When set, a property math reads this property of each event's session instead (joined
   * by `$session_id`; events without a stored session are left out): one value per
   * (breakdown value, bucket, session), then aggregated as above.
   */
  sessionProperty?: SessionMathProperty | null;
  /**
   * `active` math: the window's length in days and every bucket of the chart (wall text,
   * `YYYY-MM-DD HH:MM:SS`), since buckets without events in them may still have users in
   * their window. Events from `from` minus the window count toward the first buckets.
   */
  active?: { days: number; buckets: string[] } | null;
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
