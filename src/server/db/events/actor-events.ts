/**
 * The read every per-person insight starts from (funnels, paths, and the actors behind any
 * point): each actor's events of a time range, in time order, each with the set of
 * `matchers` it satisfies as a bit mask and the values the insight needs of it. The store
 * filters and projects; the insight's algorithm runs once, over these rows, whichever
 * store answered — so both stores give the same answers by construction.
 *
 * An actor is a person (its uuid), or for events stored without one, its distinct id
 * under ANONYMOUS_ACTOR (as unique users count them).
 */
import type { PropertyGroup } from "@/server/properties/contract";
import { AppError } from "@/server/errors";

/** Events satisfying one matcher get its bit: `event` (null: any) and every filter group. */
export interface EventMatcher {
  event: string | null;
  filters: PropertyGroup[];
}

/**
 * A value read of each event: an event or person property's text (as PostgreSQL's `->>`
 * gives it; missing, null and "" read as null), or `path`, the event's place in a path
 * (a `$pageview`'s `$current_url` without one trailing slash, a `$screen`'s `$screen_name`,
 * else the event's name — PostHog's paths).
 */
export type EventValue = { type: "event"; key: string } | { type: "person"; key: string } | { type: "path" };

export interface ActorEventsQuery {
  /** Events count when `from` ≤ timestamp ≤ `to`. */
  from: Date;
  to: Date;
  /** The time relative filter dates count back from. */
  now: Date;
  /** Every group must hold for an event to be read at all. */
  filters: PropertyGroup[];
  /** At most MAX_MATCHERS; bit i of an event's mask is set when it satisfies matcher i. */
  matchers: EventMatcher[];
  /** Also read events matching no matcher (mask 0): strict funnels and paths see every event. */
  everyEvent: boolean;
  values: EventValue[];
}

export interface ActorEvents {
  actor: string;
  /** Epoch milliseconds (fractional: microseconds kept), ascending; ties by mask. */
  times: number[];
  masks: number[];
  /** `values[v][i]`: value v (in the query's order) of event i. */
  values: (string | null)[][];
}

export const MAX_MATCHERS = 30;
/**
 * The most events one such read may return: they are held in memory while the insight is
 * computed. A query past it is a 400 asking for a narrower range or filters.
 */
export const MAX_ACTOR_EVENTS = 3_000_000;

export function tooManyActorEvents(): AppError {
  return new AppError(
    "invalid_input",
    `More than ${MAX_ACTOR_EVENTS.toLocaleString("en-US")} events match this query; narrow its date range or filters.`,
    "query",
  );
}

/** Actors of events without a person are keyed by their distinct id under this prefix (never a uuid's first characters). */
export const ANONYMOUS_ACTOR = "distinct_id:";

/** Rows (actor, time, mask, values…) in any order, grouped per actor and sorted in time (then mask) order. */
export function groupActorEvents(rows: Iterable<readonly [string, number, number, ...(string | null)[]]>, valueCount: number): ActorEvents[] {
  const byActor = new Map<string, { t: number; m: number; v: (string | null)[] }[]>();
  for (const [actor, t, m, ...v] of rows) {
    let events = byActor.get(actor);
    if (!events) byActor.set(actor, (events = []));
    events.push({ t, m, v });
  }
  const out: ActorEvents[] = [];
  for (const [actor, events] of byActor) {
    events.sort((a, b) => a.t - b.t || a.m - b.m);
    out.push({
      actor,
      times: events.map((e) => e.t),
      masks: events.map((e) => e.m),
      values: Array.from({ length: valueCount }, (_, i) => events.map((e) => e.v[i] ?? null)),
    });
  }
  return out;
}
