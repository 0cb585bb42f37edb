/**
 * The read the calendar insights (retention, stickiness, lifecycle) start from: for each
 * actor, the intervals of a time zone's wall clock (weeks from Sunday) in which they did
 * events matching each of `matchers`, aggregated in the database — one row per actor,
 * never one per event — so that a range of a million events comes back as one row per
 * active actor. The insight's algorithm then runs once over these rows, whichever store
 * answered.
 *
 * An actor is a person (its uuid), or for events stored without one, its distinct id
 * under ANONYMOUS_ACTOR, as actorEvents and unique users count them.
 */
import type { EventMatcher } from "../actor-events/query";
import type { PropertyGroup } from "@/server/properties/contract";
import type { TrendInterval } from "../trend/query";

export interface ActorBucketsQuery {
  /** Events count when `from` ≤ timestamp < `to` (an exclusive end: the ranges are whole intervals). */
  from: Date;
  to: Date;
  /** Buckets start on the wall clock of `zone`, weeks on Sunday. */
  zone: string;
  interval: TrendInterval;
  /** The time relative filter dates count back from. */
  now: Date;
  /** Every group must hold for an event to count at all. */
  filters: PropertyGroup[];
  /** At most MAX_MATCHERS; bit i of a bucket's mask is set when one of the actor's events there satisfies matcher i. */
  matchers: EventMatcher[];
  /** Also count, per bucket, each matcher's events (stickiness criteria). */
  counts: boolean;
  /**
   * Also find the bucket of each actor's first-ever event satisfying matcher `matcher` (and
   * `filters`), over all time before `to`, not only the range (retention's first-time
   * cohorts). With `onlyIfFirstOf`, the bucket only when that event is also the actor's
   * first event satisfying `onlyIfFirstOf` (and `filters`); else none.
   */
  firstEver: { matcher: number; onlyIfFirstOf: EventMatcher | null } | null;
}

export interface ActorBuckets {
  actor: string;
  /** The buckets the actor has matching events in: wall-clock starts as epoch milliseconds of the wall date, ascending. */
  buckets: number[];
  /** `masks[b]`: bit i set when the actor has an event satisfying matcher i in bucket b. */
  masks: number[];
  /** With `counts`: `counts[b][i]`, the actor's events satisfying matcher i in bucket b; else empty. */
  counts: number[][];
  /** With `firstEver`: the bucket (as `buckets`) of the actor's first-ever such event; null without one, or when it is before the range. */
  firstEver: number | null;
}

const HOUR_MS = 3_600_000;

/** A bucket as the stores answer it (wall-clock hours since 1970) as `ActorBuckets` gives it. */
export const bucketOfHours = (hours: number): number => Number(hours) * HOUR_MS;

/**
 * An actor's buckets from bit masks (the stores' compact form): `words[i][w]` holds matcher
 * i's buckets `w * wordBits …` as bits (wordBits ≤ 31); `starts[k]` is bucket k (as `buckets`); `first` the
 * first-ever bucket's index (out of range: none).
 */
export function bucketsFromMasks(actor: string, words: readonly (readonly number[])[], wordBits: number, starts: readonly number[], first: number | null): ActorBuckets {
  const buckets: number[] = [];
  const masks: number[] = [];
  const wordCount = words[0]?.length ?? 0;
  for (let w = 0; w < wordCount; w++) {
    let any = 0;
    for (const matcher of words) any |= matcher[w]!;
    for (let bit = 0; any !== 0; bit++, any >>>= 1) {
      if ((any & 1) === 0) continue;
      let mask = 0;
      for (let i = 0; i < words.length; i++) if ((words[i]![w]! >>> bit) & 1) mask |= 1 << i;
      buckets.push(starts[w * wordBits + bit]!);
      masks.push(mask);
    }
  }
  return { actor, buckets, masks, counts: [], firstEver: first !== null && first >= 0 && first < starts.length ? starts[first]! : null };
}
