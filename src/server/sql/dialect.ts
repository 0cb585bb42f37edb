/**
 * One SQL dialect per database (postgres.ts, clickhouse.ts), and the one interface both
 * implement: how each database spells what the event store's builders, the HogQL compiler
 * (hogql/compile.ts) and the property-filter engine (properties/operators.ts) write. The
 * semantics (which rows match, which kinds compare how) stay with those callers; a dialect
 * only spells them. Events are `e` (ClickHouse's properties a JSON String read with
 * JSONExtract*; its uuids compare as text, the order PostgreSQL's uuids sort in).
 */
import type { Binder } from "./bind";

/**
 * A decimal number written as text: optional sign, digits with an optional fraction, an
 * exponent of at most two digits, no spaces, at most MAX_NUMERIC_TEXT_LENGTH characters.
 * Narrower than `parseFloat` (which reads "12abc" as 12) so that SQL can test it with a regex
 * and cast it without ever overflowing (properties/coerce.ts reads it alike in memory).
 */
export const NUMERIC_TEXT = "^[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]{1,2})?$";
export const MAX_NUMERIC_TEXT_LENGTH = 100;

/**
 * An ISO 8601 date or date-time: `YYYY-MM-DD`, optionally `T` (or a space) `HH:MM`,
 * `:SS`, a fraction of up to 6 digits, and `Z` or an offset `±HH`, `±HHMM`, `±HH:MM`
 * (hours 0–14). No offset means UTC. Years 0001–9999. Fractions below a millisecond
 * are dropped. The same pattern guards the SQL cast (propertyDate), so SQL and memory
 * (properties/coerce.ts) accept the same strings.
 */
export const ISO_DATE_TEXT =
  "^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])" +
  "([T ]([01][0-9]|2[0-3]):([0-5][0-9])(:([0-5][0-9])(\\.([0-9]{1,6}))?)?(Z|[+-](0[0-9]|1[0-4])(:?([0-5][0-9]))?)?)?$";

/** The event's own columns HogQL reads (hogql/parse.ts `Field`). */
export type EventField = "event" | "distinct_id" | "timestamp" | "uuid" | "person_id";

/** A time bucket's width. */
export type BucketInterval = "hour" | "day" | "week" | "month";

/** A property read: the column holding the properties (JSON) and the bound key. */
export interface PropertyRef {
  column: string;
  key: string;
}

/** A property as the filter engine's operators read it. */
export interface PropertySql {
  /** The key is present (a JSON null too). */
  has: string;
  /** textOf: strings as they are, numbers and booleans as JSON writes them, null 'null'; objects, arrays and missing NULL. */
  text: string;
  /**
   * `text` for a comparison with texts none of which is 'null' or begins with `{` or `[`: a
   * null, object or array may read otherwise here (NULL, or its JSON), which equals none of
   * them. Where the dialect reads it with less work (PostgreSQL: one key look-up, not two).
   */
  textBesidesContainers: string;
  /** The value is a string, number or boolean. */
  isScalar: string;
  /** The value's text where it is a scalar (strings as they are, others their JSON). */
  scalarText: string;
}

export interface SqlDialect {
  readonly name: "postgres" | "clickhouse";

  // ---- Expressions --------------------------------------------------------------------
  /** `test`, false where it is NULL. */
  orFalse(test: string): string;
  /** `then` where `test` holds, else `otherwise`. */
  ifElse(test: string, then: string, otherwise: string): string;
  /** `value` is one of a bound list (`list` a text[] placeholder). */
  anyOf(value: string, list: string): string;
  /** ASCII-only lower-casing (properties/coerce.ts `fold`), whatever the database's locale. */
  fold(text: string): string;
  /** 1-based position of `needle` in `text`, 0 when absent. */
  position(text: string, needle: string): string;
  /** RE2 search of `pattern` in `text`. */
  regexMatch(text: string, pattern: string): string;
  /** Text comparison by code point. */
  compareText(left: string, op: string, right: string): string;
  like(text: string, insensitive: boolean, pattern: string): string;
  /** A LIKE pattern (`%`, `_`, and `\` making the next character literal) as the dialect's LIKE reads it. */
  likePattern(pattern: string): string;
  /** Text as a float when it is a decimal number (NUMERIC_TEXT), else NULL: never an error. */
  numericText(text: string, params: Binder): string;
  float(sql: string): string;
  numberAsText(sql: string): string;
  count: string;
  nullText: string;
  nullNumber: string;
  nullBool: string;
  timestampParam(date: Date, params: Binder): string;

  // ---- JSON properties ----------------------------------------------------------------
  /** The property's text (strings as they are, numbers and booleans as JSON writes them), NULL when missing or JSON null. */
  propertyText(ref: PropertyRef): string;
  /** The property's JSON value as an answer carries it. */
  propertyValue(ref: PropertyRef): string;
  /** The property as a number when it is a JSON number or a numeric string, else NULL. */
  propertyNumber(ref: PropertyRef, params: Binder): string;
  /** The property as a timestamp when it is a string in ISO_DATE_TEXT form naming a real day, else NULL. */
  propertyDate(ref: PropertyRef, params: Binder): string;
  /** The pieces of a property the filter operators read. */
  property(ref: PropertyRef): PropertySql;

  // ---- Events (`e`) ---------------------------------------------------------------------
  fields: Record<EventField, string>;
  /** The list's order: newest first, ties by uuid descending (as text where the store's uuid order differs). */
  order: string;
  /** Events after the position (`at` a timestamp placeholder, `uuid` the uuid's) in the list's order. */
  before(at: string, uuid: string): string;
  /** How a cursor's uuid is bound. */
  uuidCast: "uuid" | "text";
  /** Appended to reads that answer a handful of rows. */
  smallAnswer: string;
  /** An actor's key: the person's uuid, or `anonymous` + the distinct id when there is no person. */
  actor(person: string, distinctId: string, anonymous: string): string;

  // ---- `values` (list/build.ts) -----------------------------------------------------------
  /** The events that have the key, and the key's raw JSON value. */
  hasKey(key: string): string;
  jsonValue(key: string): string;
  /** The sample's values spread into `item`s (an array's elements, anything else itself). */
  items: string;
  /** Conditions on an item (JSON): not null, its text starting with the (folded) prefix. */
  itemNotNull: string;
  itemPrefix(prefix: string, params: Binder): string;
  /** The order of equally frequent items: by their text, byte order. */
  itemOrder: string;

  // ---- Time -----------------------------------------------------------------------------
  /** The event's local time in the zone (a bound zone name). */
  localTime(zone: string): string;
  /** A bucket's start from a local time; weeks start on Sunday. */
  bucket: Record<BucketInterval, (local: string) => string>;
  /** A bucket as `YYYY-MM-DD HH:MM:SS` text. */
  bucketText(bucket: string): string;
  /** The wall-clock bucket of a UTC time expression in the zone, as hours since 1970 (actor-buckets/query.ts). */
  wallBucketHours(time: string, zone: string, interval: BucketInterval): string;
  /** The UTC date of a timestamp expression. */
  toDate(timestamp: string): string;
  /** A date as 'YYYY-MM-DD' text. */
  dateText(date: string): string;
  /** A date parameter (the UTC day of `date`). */
  dateParam(date: Date, params: Binder): string;
}
