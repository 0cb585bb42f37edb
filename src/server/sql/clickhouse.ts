/**
 * ClickHouse's SQL dialect: events in `e`, properties a JSON String read with JSONExtract*,
 * uuids compared as text (the order PostgreSQL's uuids sort in). What the builders, the
 * HogQL compiler and the filter engine write for ClickHouse is spelled here.
 */
import type { Binder } from "./bind";
import { ISO_DATE_TEXT, MAX_NUMERIC_TEXT_LENGTH, NUMERIC_TEXT, type PropertyRef, type SqlDialect } from "./dialect";

/**
 * Reads that answer a handful of rows (a page, one event): formatting them on other
 * threads costs more than it saves (measured: about a quarter of a millisecond a query).
 */
export const SMALL_ANSWER = "SETTINGS output_format_parallel_formatting = 0";

/** Text as a Float64 when it is a decimal number as NUMERIC_TEXT says, else NULL. */
function numericText(text: string, params: Binder): string {
  return `if(length(${text}) <= ${params.constant(String(MAX_NUMERIC_TEXT_LENGTH), "int")} AND match(${text}, ${params.constant(NUMERIC_TEXT)}), toFloat64OrNull(${text}), NULL)`;
}

const type = ({ column, key }: PropertyRef) => `JSONType(${column}, ${key})`;
const string = ({ column, key }: PropertyRef) => `JSONExtractString(${column}, ${key})`;
const rawJson = ({ column, key }: PropertyRef) => `JSONExtractRaw(${column}, ${key})`;

/** A values item's text: a string as it is, anything else its JSON. */
const ITEM_TEXT = "if(JSONType(item) = 'String', JSONExtractString(item), item)";

export const CLICKHOUSE: SqlDialect = {
  name: "clickhouse",

  orFalse: (test) => `ifNull(${test}, false)`,
  ifElse: (test, then, otherwise) => `if(${test}, ${then}, ${otherwise})`,
  anyOf: (value, list) => `${value} IN ${list}`,
  // ClickHouse's lower folds ASCII only.
  fold: (text) => `lower(${text})`,
  position: (text, needle) => `position(${text}, ${needle})`,
  regexMatch: (text, pattern) => `match(${text}, ${pattern})`,
  compareText: (left, op, right) => `(${left} ${op} ${right})`,
  like: (text, insensitive, pattern) => `(${text} ${insensitive ? "ILIKE" : "LIKE"} ${pattern})`,
  // ClickHouse's LIKE escapes only %, _ and \ (PostgreSQL's any character): drop the backslash before others.
  likePattern: (pattern) => pattern.replace(/\\([\s\S])/g, (escape, char: string) => ("%_\\".includes(char) ? escape : char)),
  numericText,
  float: (sql) => `toFloat64(${sql})`,
  numberAsText: (sql) => `toString(${sql})`,
  count: "count()",
  nullText: "CAST(NULL, 'Nullable(String)')",
  nullNumber: "CAST(NULL, 'Nullable(Float64)')",
  nullBool: "CAST(NULL, 'Nullable(Bool)')",
  timestampParam: (date, params) => params.add(date.toISOString(), "timestamptz"),

  propertyText: (ref) => `multiIf(${type(ref)} = 'String', ${string(ref)}, ${type(ref)} = 'Null', NULL, ${rawJson(ref)})`,
  propertyValue: ({ column, key }) => `if(JSONHas(${column}, ${key}), JSONExtractRaw(${column}, ${key}), NULL)`,
  propertyNumber: (ref, params) =>
    `multiIf(${type(ref)} IN ('Int64', 'UInt64', 'Double'), toNullable(JSONExtractFloat(${ref.column}, ${ref.key})),` +
    ` ${type(ref)} = 'String', ${numericText(string(ref), params)}, NULL)`,
  propertyDate: (ref, params) =>
    `if(${type(ref)} = 'String' AND match(${string(ref)}, ${params.constant(ISO_DATE_TEXT)}), parseDateTime64BestEffortOrNull(${string(ref)}, 3, 'UTC'), NULL)`,
  property(ref) {
    // textOf read from the value's raw JSON ('' when missing), so that the event's JSON is
    // parsed once, not once per test of its type.
    const raw = rawJson(ref);
    const text = `multiIf(${raw} = '', NULL, startsWith(${raw}, '"'), JSONExtractString(${raw}), startsWith(${raw}, '[') OR startsWith(${raw}, '{'), NULL, ${raw})`;
    return {
      has: `JSONHas(${ref.column}, ${ref.key})`,
      text,
      // Already one parse of the event's JSON: nothing cheaper to read.
      textBesidesContainers: text,
      isScalar: `${type(ref)} IN ('String', 'Int64', 'UInt64', 'Double', 'Bool')`,
      scalarText: `if(${type(ref)} = 'String', ${string(ref)}, ${raw})`,
    };
  },

  fields: {
    event: "e.event",
    distinct_id: "e.distinct_id",
    timestamp: "e.timestamp",
    uuid: "toString(e.uuid)",
    person_id: "toString(e.person_id)",
  },
  order: "ORDER BY e.timestamp DESC, toString(e.uuid) DESC",
  // The plain bound lets the primary key and partitions skip what is newer.
  before: (at, uuid) => `e.timestamp <= ${at} AND (e.timestamp, toString(e.uuid)) < (${at}, ${uuid})`,
  uuidCast: "text",
  smallAnswer: ` ${SMALL_ANSWER}`,
  actor: (person, distinctId, anonymous) => `if(${person} IS NULL, concat(${anonymous}, ${distinctId}), toString(${person}))`,

  hasKey: (key) => `JSONHas(e.properties, ${key})`,
  jsonValue: (key) => `JSONExtractRaw(e.properties, ${key})`,
  items: `sample
       ARRAY JOIN if(JSONType(value) = 'Array', JSONExtractArrayRaw(value), [value]) AS item`,
  itemNotNull: "JSONType(item) != 'Null'",
  itemPrefix: (prefix, params) => `startsWith(lower(${ITEM_TEXT}), ${params.add(prefix, "text")})`,
  itemOrder: ITEM_TEXT,

  // A DateTime in the zone, so formatting gives the wall clock.
  localTime: (zone) => `toTimeZone(e.timestamp, ${zone})`,
  // Weeks start on Sunday (mode 0).
  bucket: {
    hour: (local) => `toStartOfHour(${local})`,
    day: (local) => `toStartOfDay(${local})`,
    week: (local) => `toStartOfWeek(${local}, 0)`,
    month: (local) => `toStartOfMonth(${local})`,
  },
  bucketText: (at) => `formatDateTime(${at}, '%Y-%m-%d %H:%i:%S')`,
  wallBucketHours(time, zone, interval) {
    const local = `toTimeZone(${time}, ${zone})`;
    switch (interval) {
      case "hour":
        return `toInt32(intDiv(toUnixTimestamp(${local}) + timeZoneOffset(${local}), 3600))`;
      case "day":
        return `toInt32(toUInt32(toDate(${local})) * 24)`;
      case "week":
        return `toInt32(toUInt32(toStartOfWeek(${local}, 0)) * 24)`;
      case "month":
        return `toInt32(toUInt32(toStartOfMonth(${local})) * 24)`;
    }
  },
  toDate: (timestamp) => `toDate(${timestamp}, 'UTC')`,
  dateText: (date) => `toString(${date})`,
  dateParam: (date, params) => `toDate(${params.add(date.toISOString(), "timestamptz")}, 'UTC')`,
};
