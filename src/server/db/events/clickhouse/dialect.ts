/**
 * The events table's SQL in ClickHouse: what ../sql.ts's shared statements need to know of
 * the dialect (store.ts and trend.ts build them). Properties are a JSON String read with
 * JSONExtract*; uuids compare as text, the order PostgreSQL's uuids sort in.
 */
import { fold } from "@/server/properties/coerce";
import type { EventSqlDialect } from "../sql";

/**
 * Reads that answer a handful of rows (a page, one event): formatting them on other
 * threads costs more than it saves (measured: about a quarter of a millisecond a query).
 */
export const SMALL_ANSWER = "SETTINGS output_format_parallel_formatting = 0";

/** A values item's text: a string as it is, anything else its JSON. */
const ITEM_TEXT = "if(JSONType(item) = 'String', JSONExtractString(item), item)";

export const CLICKHOUSE_EVENTS: EventSqlDialect = {
  uuidText: "toString(e.uuid)",
  order: "ORDER BY e.timestamp DESC, toString(e.uuid) DESC",
  // The plain bound lets the primary key and partitions skip what is newer.
  before: (at, uuid) => `e.timestamp <= ${at} AND (e.timestamp, toString(e.uuid)) < (${at}, ${uuid})`,
  uuidCast: "text",
  smallAnswer: ` ${SMALL_ANSWER}`,
  hasKey: (key) => `JSONHas(e.properties, ${key})`,
  jsonValue: (key) => `JSONExtractRaw(e.properties, ${key})`,
  items: `sample
       ARRAY JOIN if(JSONType(value) = 'Array', JSONExtractArrayRaw(value), [value]) AS item`,
  itemNotNull: "JSONType(item) != 'Null'",
  itemPrefix: (prefix, params) => `startsWith(lower(${ITEM_TEXT}), ${params.add(fold(prefix), "text")})`,
  itemOrder: ITEM_TEXT,
  count: "count()",
  // A DateTime in the zone, so formatting gives the wall clock.
  localTime: (zone) => `toTimeZone(e.timestamp, ${zone})`,
  // Weeks start on Sunday (mode 0).
  bucket: {
    hour: (local) => `toStartOfHour(${local})`,
    day: (local) => `toStartOfDay(${local})`,
    week: (local) => `toStartOfWeek(${local}, 0)`,
    month: (local) => `toStartOfMonth(${local})`,
  },
  bucketText: (bucket) => `formatDateTime(${bucket}, '%Y-%m-%d %H:%i:%S')`,
  nullText: "NULL",
  float: (sql) => `toFloat64(${sql})`,
};
