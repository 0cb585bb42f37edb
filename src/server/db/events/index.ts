/**
 * The event store, as the rest of the server sees it: its contract (contract.ts) and the two
 * stores that keep it, PostgreSQL (postgres/store.ts) and ClickHouse (clickhouse/store.ts).
 * The store's own files import contract.ts and each other, never this file.
 */
export type * from "./contract";
export { insertEvents, PGLITE_CHUNK_ROWS } from "./insert/postgres";
export { PostgresEventStore } from "./postgres/store";
export * from "./list/query";
export * from "./export/query";
export * from "./trend/query";
export * from "./person-events/query";
export * from "./actor-events/query";
export * from "./actor-buckets/query";
export * from "./experiment-tally/query";
export * from "./definitions/query";
export * from "./web/query";
export * from "./web/goal";
export * from "./sessions/session";
export { TEST_EVENT } from "./test-event";
