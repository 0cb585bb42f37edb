/**
 * The events table's SQL in each database: what the shared statements (list/build.ts,
 * trend/build.ts) need to know of the dialect. ClickHouse's properties are a JSON String read
 * with JSONExtract*; its uuids compare as text, the order PostgreSQL's uuids sort in.
 */
import type { SqlParams } from "@/server/properties/sql";
import { fold, foldSql } from "@/server/properties/coerce";
import type { TrendInterval } from "./trend/query";

/** Bind parameters of either store: `add` returns a value's placeholder. */
export type EventParams = Pick<SqlParams, "add" | "constant">;

export interface EventSqlDialect {
  /** The uuid as text. */
  uuidText: string;
  /** The list's order: newest first, ties by uuid descending (as text where the store's uuid order differs). */
  order: string;
  /** Events after the position (`at` a timestamp placeholder, `uuid` the uuid's) in the list's order. */
  before(at: string, uuid: string): string;
  /** How a cursor's uuid is bound. */
  uuidCast: "uuid" | "text";
  /** Appended to reads that answer a handful of rows. */
  smallAnswer: string;
  /** `values`: the events that have the key, and the key's raw JSON value. */
  hasKey(key: string): string;
  jsonValue(key: string): string;
  /** `values`: the sample's values spread into `item`s (an array's elements, anything else itself). */
  items: string;
  /** `values`: conditions on an item (JSON): not null, its text starting with the folded prefix. */
  itemNotNull: string;
  itemPrefix(prefix: string, params: EventParams): string;
  /** `values`: the order of equally frequent items: by their text, byte order. */
  itemOrder: string;
  count: string;
  /** Trend: a time bucket's start from the event's local time in the zone. */
  localTime(zone: string): string;
  bucket: Record<TrendInterval, (local: string) => string>;
  /** A bucket as `YYYY-MM-DD HH:MM:SS` text. */
  bucketText(bucket: string): string;
  nullText: string;
  float(sql: string): string;
}

/** Weeks start on Sunday: date_trunc's weeks start on Monday, so the day is moved by one either side. */
const BUCKET_OF: EventSqlDialect["bucket"] = {
  hour: (local) => `date_trunc('hour', ${local})`,
  day: (local) => `date_trunc('day', ${local})`,
  week: (local) => `(date_trunc('week', ${local} + interval '1 day') - interval '1 day')`,
  month: (local) => `date_trunc('month', ${local})`,
};

/** A values item's text: a string as it is, anything else its JSON. */
const ITEM_TEXT = `(CASE jsonb_typeof(item) WHEN 'string' THEN item #>> '{}' ELSE item::text END)`;

export const POSTGRES_EVENTS: EventSqlDialect = {
  uuidText: "e.uuid::text",
  order: "ORDER BY e.timestamp DESC, e.uuid DESC",
  before: (at, uuid) => `(e.timestamp, e.uuid) < (${at}, ${uuid})`,
  uuidCast: "uuid",
  smallAnswer: "",
  hasKey: (key) => `e.properties ? ${key}`,
  jsonValue: (key) => `e.properties -> ${key}`,
  items: `sample,
           LATERAL jsonb_array_elements(CASE jsonb_typeof(sample.value) WHEN 'array' THEN sample.value ELSE jsonb_build_array(sample.value) END) AS item`,
  itemNotNull: "jsonb_typeof(item) <> 'null'",
  itemPrefix: (prefix, params) => `starts_with(${foldSql(ITEM_TEXT)}, ${params.add(fold(prefix), "text")})`,
  itemOrder: `${ITEM_TEXT} COLLATE "C"`,
  count: "count(*)",
  localTime: (zone) => `(e.timestamp AT TIME ZONE ${zone})`,
  bucket: BUCKET_OF,
  bucketText: (bucket) => `to_char(${bucket}, 'YYYY-MM-DD HH24:MI:SS')`,
  nullText: "NULL::text",
  float: (sql) => `(${sql})::float8`,
};


/**
 * Reads that answer a handful of rows (a page, one event): formatting them on other
 * threads costs more than it saves (measured: about a quarter of a millisecond a query).
 */
export const SMALL_ANSWER = "SETTINGS output_format_parallel_formatting = 0";

/** A values item's text in ClickHouse: a string as it is, anything else its JSON. */
const CH_ITEM_TEXT = "if(JSONType(item) = 'String', JSONExtractString(item), item)";

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
  itemPrefix: (prefix, params) => `startsWith(lower(${CH_ITEM_TEXT}), ${params.add(fold(prefix), "text")})`,
  itemOrder: CH_ITEM_TEXT,
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
