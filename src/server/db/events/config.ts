/** Which event store Burrow uses; decided once from `CLICKHOUSE_URL`. */
import path from "node:path";
import { ConfigError } from "@/server/db/config";

export type EventStoreConfig =
  /** The events table of the PostgreSQL database (embedded or server): the default. */
  | { kind: "postgres" }
  /** A ClickHouse server over HTTP(S); `url` without the database path, `database` from it. */
  | { kind: "clickhouse"; url: string; database: string }
  /** ClickHouse embedded in this process (the chdb package): a data directory, or memory. */
  | { kind: "chdb"; path: string | ":memory:"; database: string };

/** The database Burrow's tables live in when the URL names none. */
export const DEFAULT_CLICKHOUSE_DATABASE = "burrow";

const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * `CLICKHOUSE_URL`: unset or empty → PostgreSQL. `http(s)://user:password@host:8123/db`
 * → that server (database `db`, default `burrow`, created if missing). `chdb:<dir>`
 * (`chdb:///var/lib/burrow/clickhouse`, `chdb:./data/clickhouse`) or `chdb::memory:` →
 * ClickHouse embedded in the process, through the chdb package (one process per directory).
 */
export function eventStoreConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EventStoreConfig {
  const raw = env.CLICKHOUSE_URL?.trim();
  if (!raw) return { kind: "postgres" };
  if (raw.startsWith("chdb:")) {
    const rest = raw.slice("chdb:".length);
    if (rest === ":memory:") return { kind: "chdb", path: ":memory:", database: DEFAULT_CLICKHOUSE_DATABASE };
    const dir = rest.startsWith("//") ? rest.slice(2) : rest;
    if (dir === "") throw new ConfigError("CLICKHOUSE_URL=chdb: needs a directory (chdb:///var/lib/burrow/clickhouse) or chdb::memory:.");
    return { kind: "chdb", path: path.resolve(/* turbopackIgnore: true */ dir), database: DEFAULT_CLICKHOUSE_DATABASE };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badUrl();
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") throw badUrl();
  const database = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, "")) || DEFAULT_CLICKHOUSE_DATABASE;
  if (!DATABASE_NAME.test(database)) throw new ConfigError(`CLICKHOUSE_URL names database "${database}"; use letters, digits and _ only.`);
  url.pathname = "/";
  return { kind: "clickhouse", url: url.toString(), database };
}

function badUrl(): ConfigError {
  return new ConfigError(
    "CLICKHOUSE_URL is not a ClickHouse URL (expected http://user:password@host:8123/database, chdb:/path/to/dir or chdb::memory:); unset it to keep events in PostgreSQL.",
  );
}

/** What start-up prints about the event store, without credentials. */
export function describeEventStore(config: EventStoreConfig): string {
  switch (config.kind) {
    case "postgres":
      return "events in PostgreSQL";
    case "clickhouse": {
      const url = new URL(config.url);
      return `events in ClickHouse at ${url.host}/${config.database}`;
    }
    case "chdb":
      return config.path === ":memory:" ? "events in embedded ClickHouse (chdb) in memory" : `events in embedded ClickHouse (chdb) in ${config.path}`;
  }
}
