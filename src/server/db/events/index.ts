/**
 * The event store, as the rest of the server sees it: its contract (contract.ts) and the two
 * stores that keep it, PostgreSQL (postgres.ts) and ClickHouse (clickhouse/).
 */
export type * from "./contract";
export { insertEvents, PGLITE_CHUNK_ROWS, PostgresEventStore } from "./postgres";
export * from "./trend-query";
export * from "./list-query";
export * from "./event-count";
export * from "./actor-events";
export * from "./actor-buckets";
export * from "./definition-sources";
export * from "./web-analytics";
