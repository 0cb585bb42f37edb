/**
 * The events table's SQL in PostgreSQL: what sql.ts's shared statements need to know of
 * the dialect (postgres.ts and postgres-trend.ts build them).
 */
import { fold, foldSql } from "@/server/properties/coerce";
import type { EventSqlDialect } from "./sql";

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

