/**
 * What the definitions backfill reads from an event store once per project (an install that
 * had events before definitions existed, or events moved in from elsewhere): the names with
 * their use per day, and the property keys of the newest events with sample values.
 */

/** Events of one name on one UTC day. */
export interface EventNameDay {
  name: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  count: number;
  first: Date;
  last: Date;
}

/** A property key on an event name, with one of its values of one JSON type (null, string, number …). */
export interface EventPropertySample {
  event: string;
  key: string;
  /** The value, parsed; null when every value of that type was null. */
  sample: unknown;
  /** Events in the sample carrying the key with a value of that type. */
  count: number;
}

/** Property keys are read from this many of a project's newest events (all of them in a small project). */
export const DEFINITION_SAMPLE_EVENTS = 200_000;
