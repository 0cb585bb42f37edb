/**
 * The HogQL subset in ClickHouse's SQL (events in `e`, properties a JSON String read with
 * JSONExtract*): the pieces of hogql/compile.ts's dialect; the semantics stay the compiler's.
 */
import { chNumericText } from "@/server/properties/clickhouse";
import type { HogqlDialect, HogqlParams, PropertyRef } from "@/server/hogql/compile";

const NUMBER_TYPES = "('Int64', 'UInt64', 'Double')";

/** The property's text (textOf, with objects and arrays as their JSON), NULL when missing or JSON null. */
export function chPropertyText({ column, key }: PropertyRef): string {
  return `multiIf(JSONType(${column}, ${key}) = 'String', JSONExtractString(${column}, ${key}), JSONType(${column}, ${key}) = 'Null', NULL, JSONExtractRaw(${column}, ${key}))`;
}

/** A JSON number, or a string that is a decimal number, as Float64; else NULL. */
export function chPropertyNumber({ column, key }: PropertyRef, params: HogqlParams): string {
  return (
    `multiIf(JSONType(${column}, ${key}) IN ${NUMBER_TYPES}, toNullable(JSONExtractFloat(${column}, ${key})),` +
    ` JSONType(${column}, ${key}) = 'String', ${chNumericText(`JSONExtractString(${column}, ${key})`, params)}, NULL)`
  );
}

export const CLICKHOUSE_HOGQL: HogqlDialect = {
  fields: {
    event: "e.event",
    distinct_id: "e.distinct_id",
    timestamp: "e.timestamp",
    uuid: "toString(e.uuid)",
    person_id: "toString(e.person_id)",
  },
  propertyText: chPropertyText,
  propertyValue: ({ column, key }) => `if(JSONHas(${column}, ${key}), JSONExtractRaw(${column}, ${key}), NULL)`,
  propertyNumber: chPropertyNumber,
  numericText: chNumericText,
  countAll: "toFloat64(count())",
  count: (arg) => `toFloat64(count(${arg}))`,
  toDate: (timestamp) => `toDate(${timestamp}, 'UTC')`,
  dateText: (date) => `toString(${date})`,
  nullText: "CAST(NULL, 'Nullable(String)')",
  nullNumber: "CAST(NULL, 'Nullable(Float64)')",
  nullBool: "CAST(NULL, 'Nullable(Bool)')",
  numberAsText: (sql) => `toString(${sql})`,
  compareText: (left, op, right) => `(${left} ${op} ${right})`,
  like: (text, insensitive, pattern) => `(${text} ${insensitive ? "ILIKE" : "LIKE"} ${pattern})`,
  // ClickHouse's LIKE escapes only %, _ and \ (PostgreSQL's any character): drop the backslash before others.
  likePattern: (pattern) => pattern.replace(/\\([\s\S])/g, (escape, char: string) => ("%_\\".includes(char) ? escape : char)),
  timestampParam: (date, params) => params.add(date.toISOString(), "timestamptz"),
  dateParam: (date, params) => `toDate(${params.add(date.toISOString(), "timestamptz")}, 'UTC')`,
};
