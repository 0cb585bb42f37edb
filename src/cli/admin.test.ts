import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lockDataDir } from "@/server/db/lock";
import { admin, type CliResult } from "./run-admin";

/** What every configuration problem looks like: non-zero exit, one "admin: " line on stderr, empty stdout. */
function expectOneLineRefusal(result: CliResult): string {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  expect(result.stdout).toBe("");
  expect(result.stderr.endsWith("\n")).toBe(true);
  const lines = result.stderr.slice(0, -1).split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]!.startsWith("admin: ")).toBe(true);
  return lines[0]!;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-admin-config-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const bootstrapArgs = ["bootstrap", "--email", "a@example.com", "--password", "pw12345678", "--json"];

describe("admin CLI refuses bad configuration with one clear line", () => {
  it("a DATABASE_URL that is not a PostgreSQL URL", async () => {
    const line = expectOneLineRefusal(await admin({ DATABASE_URL: "mysql://root@127.0.0.1/x" }, ...bootstrapArgs));
    expect(line).toContain("DATABASE_URL");
  });

  it("a PostgreSQL server that does not answer", async () => {
    const line = expectOneLineRefusal(await admin({ DATABASE_URL: "postgresql://root@127.0.0.1:1/x" }, ...bootstrapArgs));
    expect(line).toContain("127.0.0.1:1");
    expect(line).toContain("DATABASE_URL");
  });

  it("a database that does not exist on the server", async () => {
    const line = expectOneLineRefusal(
      await admin({ DATABASE_URL: "postgresql://root@127.0.0.1:5432/burrow_does_not_exist" }, ...bootstrapArgs),
    );
    expect(line).toContain("burrow_does_not_exist");
    expect(line).toContain("does not exist");
  });

  it("a DATA_DIR that cannot be created (under a regular file)", async () => {
    const file = path.join(tmp, "a-file");
    fs.writeFileSync(file, "");
    const dataDir = path.join(file, "data");
    const line = expectOneLineRefusal(await admin({ DATA_DIR: dataDir }, ...bootstrapArgs));
    expect(line).toContain("DATA_DIR");
    expect(line).toContain(dataDir);
  });

  it("a DATA_DIR held by another process (a running server)", async () => {
    const dataDir = path.join(tmp, "held");
    const lock = await lockDataDir(dataDir);
    try {
      const line = expectOneLineRefusal(await admin({ DATA_DIR: dataDir }, ...bootstrapArgs));
      expect(line).toContain("DATA_DIR");
      expect(line).toContain(`pid ${process.pid}`);
      // The refused CLI neither took nor removed the lock, nor created the database.
      expect(fs.readFileSync(path.join(dataDir, "burrow.lock"), "utf8").trim()).toBe(String(process.pid));
      expect(fs.readdirSync(dataDir)).toEqual(["burrow.lock"]);
    } finally {
      lock.release();
    }
  });
});

describe("admin CLI usage errors", () => {
  it("an unknown command, or none, exits 2 with the usage on stderr and nothing on stdout", async () => {
    const unknown = await admin({ DATABASE_URL: "mysql://unused" }, "frobnicate", "--json");
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toMatch(/^admin: unknown command 'frobnicate'\n/);
    expect(unknown.stderr).toContain("usage:");
    for (const command of ["bootstrap", "create-user", "create-api-key", "migrate"]) expect(unknown.stderr).toContain(command);

    const none = await admin({ DATABASE_URL: "mysql://unused" });
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("usage:");
  });

  it("an unknown option exits 2 with the usage", async () => {
    const result = await admin({ DATABASE_URL: "mysql://unused" }, "migrate", "--colour");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("--colour");
    expect(result.stderr).toContain("usage:");
  });
});
