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

/** Rows as the stores read them: one row per event, in any order. */
export type ActorEventRow = readonly [actor: string, time: number, mask: number, ...values: (string | null)[]];

/**
 * Rows grouped per actor and sorted in time (then mask) order. Built without an object per
 * event: the rows are indexed by actor with a counting sort, then each actor's few events
 * sorted in place (grouping 500,000 rows with an object each took 1–1.8 s).
 */
export function groupActorEvents(rows: readonly ActorEventRow[], valueCount: number): ActorEvents[] {
  const n = rows.length;
  const actorOf = new Int32Array(n);
  const index = new Map<string, number>();
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = rows[i]![0];
    let id = index.get(name);
    if (id === undefined) {
      id = names.length;
      index.set(name, id);
      names.push(name);
    }
    actorOf[i] = id;
  }
  const start = new Int32Array(names.length + 1);
  for (let i = 0; i < n; i++) start[actorOf[i]! + 1]!++;
  for (let a = 0; a < names.length; a++) start[a + 1]! += start[a]!;
  const order = new Int32Array(n);
  const fill = start.slice(0, names.length);
  for (let i = 0; i < n; i++) order[fill[actorOf[i]!]!++] = i;

  const before = (x: number, y: number) => {
    const a = rows[x]!;
    const b = rows[y]!;
    return a[1] < b[1] || (a[1] === b[1] && a[2] < b[2]);
  };
  const out: ActorEvents[] = new Array(names.length);
  for (let a = 0; a < names.length; a++) {
    const from = start[a]!;
    const to = start[a + 1]!;
    // Insertion sort: an actor's events mostly arrive in time order already, and are few.
    for (let i = from + 1; i < to; i++) {
      const row = order[i]!;
      let j = i - 1;
      while (j >= from && before(row, order[j]!)) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = row;
    }
    const length = to - from;
    const times = new Array<number>(length);
    const masks = new Array<number>(length);
    const values = Array.from({ length: valueCount }, () => new Array<string | null>(length));
    for (let k = 0; k < length; k++) {
      const row = rows[order[from + k]!]!;
      times[k] = row[1];
      masks[k] = row[2];
      for (let v = 0; v < valueCount; v++) values[v]![k] = (row[3 + v] as string | null | undefined) ?? null;
    }
    out[a] = { actor: names[a]!, times, masks, values };
  }
  return out;
}

/** A value column sent once per distinct value: event j's value is `dictionary[ids[j] - 1]`. */
export interface DictionaryColumn {
  ids: readonly number[];
  dictionary: readonly (string | null)[];
}

/**
 * Events as flat columns (ClickHouse's reply: each actor's events are the next `lengths[a]`
 * entries, in any order within the actor), each actor's sorted in time (then mask) order.
 * Values come from the dictionaries, so equal values are one string.
 */
export function actorEventsFromColumns(
  actors: readonly string[],
  lengths: readonly number[],
  times: readonly number[],
  masks: readonly number[],
  columns: readonly DictionaryColumn[],
): ActorEvents[] {
  const out: ActorEvents[] = new Array(actors.length);
  let offset = 0;
  for (let a = 0; a < actors.length; a++) {
    const from = offset;
    const to = (offset += lengths[a]!);
    let sorted = true;
    for (let i = from + 1; i < to && sorted; i++) sorted = times[i - 1]! < times[i]! || (times[i - 1] === times[i] && masks[i - 1]! <= masks[i]!);
    let order: number[];
    if (sorted) {
      order = new Array<number>(to - from);
      for (let k = 0; k < order.length; k++) order[k] = from + k;
    } else {
      order = Array.from({ length: to - from }, (_, k) => from + k).sort((x, y) => times[x]! - times[y]! || masks[x]! - masks[y]!);
    }
    out[a] = {
      actor: actors[a]!,
      times: order.map((j) => times[j]!),
      masks: order.map((j) => masks[j]!),
      values: columns.map(({ ids, dictionary }) => order.map((j) => dictionary[ids[j]! - 1]!)),
    };
  }
  return out;
}
