/**
 * What the ClickHouse store's primitives run on: the client, the store's tables, and the
 * PostgreSQL connection that persons and cohorts are read from (they live there whichever
 * store holds the events).
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { SqlExecutor } from "@/server/db/driver";

/** The store's tables, database-qualified. */
export interface ChTables {
  events: string;
  /** sessions_v2: the sessions kept from the events (sessions/clickhouse.ts). */
  sessions: string;
  /** person_overrides: persons merged into others since their sessions were written. */
  overrides: string;
}

export interface ChStore {
  client: ClickHouseClient;
  tables: ChTables;
  /** PostgreSQL: persons, for person-property filters and `person_id` given as an integer id; cohorts. */
  sql: SqlExecutor;
}

/** A statement and its bind parameters (ChParams' values). */
export interface ChStatement {
  text: string;
  params: Record<string, unknown>;
}

export function chTables(database: string): ChTables {
  return { events: `\`${database}\`.events`, sessions: `\`${database}\`.sessions_v2`, overrides: `\`${database}\`.person_overrides` };
}

/** A read's rows as JSON objects. */
export async function chRows<Row>(ch: Pick<ChStore, "client">, query: string, params: Record<string, unknown>): Promise<Row[]> {
  const result = await ch.client.query({ query, query_params: params, format: "JSONEachRow" });
  return result.json<Row>();
}
