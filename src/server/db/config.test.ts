import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, dbConfigFromEnv, describeDb } from "./config";

/** An environment with just these variables (NODE_ENV and the rest unset). */
const env = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

function configErrorOf(vars: Record<string, string>): ConfigError {
  try {
    dbConfigFromEnv(env(vars));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`dbConfigFromEnv accepted ${JSON.stringify(vars)}`);
}

describe("dbConfigFromEnv", () => {
  it("uses the embedded database in ./data, resolved to an absolute path, when nothing is set", () => {
    const config = dbConfigFromEnv(env({}));
    expect(config).toEqual({ kind: "pglite", dataDir: path.resolve("data") });
    expect(path.isAbsolute((config as { dataDir: string }).dataDir)).toBe(true);
  });

  it("treats an empty or blank DATABASE_URL as unset", () => {
    expect(dbConfigFromEnv(env({ DATABASE_URL: "" }))).toEqual({ kind: "pglite", dataDir: path.resolve("data") });
    expect(dbConfigFromEnv(env({ DATABASE_URL: "   " }))).toEqual({ kind: "pglite", dataDir: path.resolve("data") });
  });

  it("resolves a relative DATA_DIR against the working directory and keeps an absolute one", () => {
    expect(dbConfigFromEnv(env({ DATA_DIR: "var/burrow" }))).toEqual({ kind: "pglite", dataDir: path.resolve("var/burrow") });
    expect(dbConfigFromEnv(env({ DATA_DIR: "/srv/burrow" }))).toEqual({ kind: "pglite", dataDir: "/srv/burrow" });
  });

  it.each([
    ["a MySQL URL", "mysql://x"],
    ["text that is no URL", "not a url"],
    ["a PostgreSQL URL without a host", "postgres://"],
    ["an http URL", "http://127.0.0.1:5432/burrow"],
  ])("refuses %s with one line naming DATABASE_URL", (_label, value) => {
    const error = configErrorOf({ DATABASE_URL: value });
    expect(error.message).toContain("DATABASE_URL");
    expect(error.message).not.toContain("\n");
    expect(error.message.length).toBeGreaterThan(20);
  });

  it.each(["postgres://root@127.0.0.1:5432/burrow", "postgresql://u:secret@db.internal/app?sslmode=disable"])(
    "accepts the PostgreSQL URL %s",
    (value) => {
      expect(dbConfigFromEnv(env({ DATABASE_URL: value, DATA_DIR: "/ignored" }))).toEqual({ kind: "postgres", url: value });
    },
  );

  it("trims whitespace around DATABASE_URL", () => {
    expect(dbConfigFromEnv(env({ DATABASE_URL: "  postgres://h/db \n" }))).toEqual({ kind: "postgres", url: "postgres://h/db" });
  });
});

describe("describeDb", () => {
  it("names host, port and database of PostgreSQL but never the password or user credentials", () => {
    const text = describeDb({ kind: "postgres", url: "postgresql://alice:s3cr3t-Pa55@db.example.com:6543/analytics" });
    expect(text).toContain("db.example.com:6543");
    expect(text).toContain("analytics");
    expect(text).not.toContain("s3cr3t-Pa55");
  });

  it("defaults the PostgreSQL port to 5432 in its description", () => {
    expect(describeDb({ kind: "postgres", url: "postgres://u:pw@localhost/burrow" })).toBe("PostgreSQL at localhost:5432/burrow");
  });

  it("names the data directory of the embedded database, or says it is in memory", () => {
    expect(describeDb({ kind: "pglite", dataDir: "/srv/burrow" })).toContain("/srv/burrow");
    expect(describeDb({ kind: "pglite-memory" })).toContain("memory");
  });
});
