/** Opening the ClickHouse event store: connect (server or chdb), check it answers, migrate. */
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import { ConfigError } from "@/server/db/config";
import type { SqlExecutor } from "@/server/db/driver";
import type { EventStoreConfig } from "../config";
import { migrateClickHouse } from "./migrate";
import { ClickHouseEventStore } from "./store";

/** ClickHouse embedded in this process (chdb), loaded only when asked for: the package is large and optional. */
async function chdbClient(path: string): Promise<ClickHouseClient> {
  let chdb: typeof import("chdb/connection");
  try {
    chdb = await import("chdb/connection");
  } catch {
    throw new ConfigError("CLICKHOUSE_URL=chdb:… needs the chdb package (npm install chdb); or point CLICKHOUSE_URL at a ClickHouse server.");
  }
  // chdb types its connection against @clickhouse/client-common's own copy of the types;
  // the shapes agree, the declarations are two files.
  const connection = chdb.createChdbConnection({ path }) as unknown as NonNullable<Parameters<typeof createClient>[0]>["connection"];
  return createClient({ connection });
}

/** A client for the ClickHouse a configuration names (not checked, not migrated). */
export async function clickHouseClient(config: Exclude<EventStoreConfig, { kind: "postgres" }>): Promise<ClickHouseClient> {
  return config.kind === "chdb"
    ? chdbClient(config.path)
    : createClient({ url: config.url, request_timeout: 60_000, clickhouse_settings: { date_time_input_format: "best_effort" } });
}

export async function openClickHouseEventStore(config: Exclude<EventStoreConfig, { kind: "postgres" }>, sql: SqlExecutor): Promise<ClickHouseEventStore> {
  const client = await clickHouseClient(config);
  const where = config.kind === "chdb" ? `chdb ${config.path}` : new URL(config.url).host;
  try {
    await client.query({ query: "SELECT 1", format: "JSONEachRow" });
  } catch (error) {
    await client.close().catch(() => {});
    throw new ConfigError(`Cannot reach ClickHouse at ${where} (${error instanceof Error ? error.message : String(error)}); check CLICKHOUSE_URL and that the server is running.`);
  }
  try {
    await migrateClickHouse(client, config.database);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return new ClickHouseEventStore(client, config.database, sql);
}

/** Removes a database with everything in it (throwaway test databases). */
export async function dropClickHouseDatabase(config: Exclude<EventStoreConfig, { kind: "postgres" }>): Promise<void> {
  const client = await clickHouseClient(config);
  try {
    await client.command({ query: `DROP DATABASE IF EXISTS \`${config.database}\`` });
  } finally {
    await client.close();
  }
}
