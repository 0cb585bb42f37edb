import path from "node:path";
import { z } from "zod";
import type { PgliteOnThread } from "./pglite-thread";

/** Which database Burrow uses; decided once from the environment. */
export type DbConfig =
  | { kind: "postgres"; url: string }
  | { kind: "pglite"; dataDir: string }
  /**
   * In-memory embedded database: tests and benchmarks only; `from` is a dump (PGlite's
   * dumpDataDir) to start from, or `thread` one already running (the tests' kept databases:
   * its `close()` is the database's last step).
   */
  | { kind: "pglite-memory"; from?: Blob; thread?: () => Promise<PgliteOnThread> };

/**
 * A configuration problem the operator must fix. Its message is the one line start-up
 * prints before exiting non-zero, so it says what is wrong and what to do.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const postgresUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "";
    } catch {
      return false;
    }
  });

export function dbConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DbConfig {
  const url = env.DATABASE_URL;
  if (url !== undefined && url.trim() !== "") {
    if (!postgresUrl.safeParse(url).success) {
      throw new ConfigError(
        `DATABASE_URL is not a PostgreSQL URL (expected postgres://user@host:5432/dbname); unset it to use the embedded database.`,
      );
    }
    return { kind: "postgres", url: url.trim() };
  }
  return { kind: "pglite", dataDir: path.resolve(/* turbopackIgnore: true */ env.DATA_DIR?.trim() || "./data") };
}

/** What start-up prints about the database, without credentials. */
export function describeDb(config: DbConfig): string {
  switch (config.kind) {
    case "postgres": {
      const url = new URL(config.url);
      return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
    }
    case "pglite":
      return `embedded PostgreSQL in ${config.dataDir}`;
    case "pglite-memory":
      return "embedded PostgreSQL in memory";
  }
}
