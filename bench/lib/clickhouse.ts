/** ClickHouse for a bench run, thrown away at the end. */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eventStoreConfigFromEnv, type EventStoreConfig } from "@/server/db/events/config";
import { dropClickHouseDatabase } from "@/server/db/events/clickhouse/open";

/** CLICKHOUSE_URL's server (a throwaway database), else chdb in a temporary directory named after the bench. */
export function benchClickHouse(bench: string): { config: Exclude<EventStoreConfig, { kind: "postgres" }>; where: string; cleanUp(): Promise<void> } {
  const configured = eventStoreConfigFromEnv();
  if (configured.kind === "clickhouse") {
    const config = { ...configured, database: `burrow_bench_${randomBytes(4).toString("hex")}` };
    return { config, where: `server ${new URL(configured.url).host}`, cleanUp: () => dropClickHouseDatabase(config) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `burrow-bench-${bench}-`));
  return { config: { kind: "chdb", path: dir, database: "burrow" }, where: `chdb on disk (${dir})`, cleanUp: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}
