import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticatePersonalApiKey } from "@/server/auth/service";
import { openDatabase, type Database } from "@/server/db/client";
import type { DbConfig } from "@/server/db/config";
import { MIGRATIONS_DIR } from "@/server/db/migrate";
import { createEmptyPostgresDatabase, testDbKind } from "@/test-support/db";
import { admin, type CliResult } from "./run-admin";

/** stdout of a --json run: exactly one JSON object on one line, and nothing else. */
function jsonOutput(result: CliResult): Record<string, unknown> {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.endsWith("\n")).toBe(true);
  expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
  const value: unknown = JSON.parse(result.stdout);
  expect(value).toBeTypeOf("object");
  expect(Array.isArray(value)).toBe(false);
  return value as Record<string, unknown>;
}

function expectFailure(result: CliResult, code = 1) {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe("");
  expect(result.stderr.startsWith("admin: ")).toBe(true);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const MIGRATION_NAMES = fs
  .readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe(`admin CLI against a fresh database (${testDbKind})`, () => {
  let env: Record<string, string>;
  let dbConfig: DbConfig;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    if (testDbKind === "pglite") {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-admin-"));
      const dataDir = path.join(dir, "data");
      env = { DATA_DIR: dataDir };
      dbConfig = { kind: "pglite", dataDir };
      dispose = async () => fs.rmSync(dir, { recursive: true, force: true });
    } else {
      const database = await createEmptyPostgresDatabase();
      env = { DATABASE_URL: database.url };
      dbConfig = { kind: "postgres", url: database.url };
      dispose = database.drop;
    }
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** Opens the CLI's database in this process (after the CLI exited) and closes it again. */
  async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const db = await openDatabase(dbConfig);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  const bootstrapped: { user?: { id: number; uuid: string; email: string }; organizationId?: string; projectId?: number; keys: string[] } = {
    keys: [],
  };
  let projectKey = "";

  it("migrate --json applies every migration to an empty database, then none", async () => {
    expect(jsonOutput(await admin(env, "migrate", "--json"))).toEqual({ applied: MIGRATION_NAMES });
    expect(jsonOutput(await admin(env, "migrate", "--json"))).toEqual({ applied: [] });
  }, 60_000);

  it("bootstrap --json prints one JSON object with the user, organization, project and both keys", async () => {
    const out = jsonOutput(await admin(env, "bootstrap", "--email", "a@example.com", "--password", "pw12345678", "--json"));
    expect(Object.keys(out).sort()).toEqual(["organization_id", "personal_api_key", "project_api_key", "project_id", "user"]);
    const user = out.user as Record<string, unknown>;
    expect(Object.keys(user).sort()).toEqual(["email", "id", "uuid"]);
    expect(user.email).toBe("a@example.com");
    expect(user.id).toBeTypeOf("number");
    expect(user.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(out.organization_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.project_id).toBeTypeOf("number");
    expect(out.project_api_key).toMatch(/^phc_[0-9A-Za-z]{20,}$/);
    expect(out.personal_api_key).toMatch(/^phx_[0-9A-Za-z]{20,}$/);
    bootstrapped.user = user as typeof bootstrapped.user;
    bootstrapped.organizationId = out.organization_id as string;
    bootstrapped.projectId = out.project_id as number;
    bootstrapped.keys.push(out.personal_api_key as string);
    projectKey = out.project_api_key as string;
  }, 30_000);

  it("bootstrap again for the same e-mail (without --json) reuses user, organization and project and prints a new key as text", async () => {
    const result = await admin(env, "bootstrap", "--email", "A@Example.com", "--password", "another-password");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(() => JSON.parse(result.stdout)).toThrow();
    const text = result.stdout;
    expect(text).toContain(`a@example.com (id ${bootstrapped.user!.id})`);
    expect(text).toMatch(new RegExp(`organization:\\s+${bootstrapped.organizationId}\\n`));
    expect(text).toMatch(new RegExp(`project:\\s+${bootstrapped.projectId}\\n`));
    expect(text).toContain(projectKey);
    const key = /personal API key:\s+(phx_[0-9A-Za-z]+)/.exec(text)?.[1];
    expect(key).toBeDefined();
    expect(key).not.toBe(bootstrapped.keys[0]);
    bootstrapped.keys.push(key!);
  }, 30_000);

  it("create-user --json adds an admin to the organization and prints {id, uuid, email}", async () => {
    const out = jsonOutput(
      await admin(env, "create-user", "--email", "b@example.com", "--password", "pw12345678", "--organization", bootstrapped.organizationId!, "--level", "admin", "--json"),
    );
    expect(Object.keys(out).sort()).toEqual(["email", "id", "uuid"]);
    expect(out.email).toBe("b@example.com");
    expect(out.id).not.toBe(bootstrapped.user!.id);
    await withDb(async (db) => {
      const membership = await db.prisma.organizationMembership.findFirst({ where: { userId: out.id as number } });
      expect(membership).toMatchObject({ organizationId: bootstrapped.organizationId, level: 8 });
      const user = await db.prisma.user.findUnique({ where: { id: out.id as number } });
      expect(user).toMatchObject({ uuid: out.uuid, currentProjectId: bootstrapped.projectId });
      expect(user!.passwordHash).not.toContain("pw12345678");
    });
  }, 30_000);

  it("create-user refuses an e-mail that is taken: non-zero exit, message on stderr, nothing on stdout", async () => {
    const result = await admin(env, "create-user", "--email", "b@example.com", "--password", "pw12345678", "--organization", bootstrapped.organizationId!, "--json");
    expectFailure(result);
    expect(result.stderr).toContain("b@example.com");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  }, 30_000);

  it("create-user refuses a password of spaces with the password rule on stderr", async () => {
    const result = await admin(env, "create-user", "--email", "c@example.com", "--password", "        ", "--organization", bootstrapped.organizationId!, "--json");
    expectFailure(result);
    expect(result.stderr).toContain("Passwords have at least 8 characters that are not spaces.");
    await withDb(async (db) => expect(await db.prisma.user.findUnique({ where: { email: "c@example.com" } })).toBeNull());
  }, 30_000);

  it("create-api-key --json makes a key with the given scopes, limited to one project", async () => {
    const out = jsonOutput(
      await admin(env, "create-api-key", "--email", "a@example.com", "--scopes", "dashboard:read,query:read", "--project", String(bootstrapped.projectId), "--json"),
    );
    expect(Object.keys(out)).toEqual(["key"]);
    expect(out.key).toMatch(/^phx_[0-9A-Za-z]{20,}$/);
    bootstrapped.keys.push(out.key as string);
  }, 30_000);

  it("create-api-key refuses an unknown scope with one clear line on stderr", async () => {
    const result = await admin(env, "create-api-key", "--email", "a@example.com", "--scopes", "dashboard:read,dashbord:wrte", "--json");
    expectFailure(result);
    expect(result.stderr).toContain("dashbord:wrte");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  }, 30_000);

  it("a command without its required --email exits 2 with the usage", async () => {
    const result = await admin(env, "create-api-key", "--scopes", "*", "--json");
    expectFailure(result, 2);
    expect(result.stderr).toContain("--email");
    expect(result.stderr).toContain("usage:");
  }, 30_000);

  it("the keys it printed authenticate as the right user with the right scopes and projects", async () => {
    const [first, second, limited] = bootstrapped.keys;
    await withDb(async (db) => {
      for (const key of [first!, second!]) {
        const principal = await authenticatePersonalApiKey(db.prisma, key);
        expect(principal).toMatchObject({
          user: { id: bootstrapped.user!.id, uuid: bootstrapped.user!.uuid, email: "a@example.com", currentProjectId: bootstrapped.projectId },
          scopes: ["*"],
          scopedProjects: [],
        });
      }
      const principal = await authenticatePersonalApiKey(db.prisma, limited!);
      expect(principal).toMatchObject({
        user: { id: bootstrapped.user!.id },
        scopes: ["dashboard:read", "query:read"],
        scopedProjects: [bootstrapped.projectId],
      });
      expect(await db.prisma.personalApiKey.count()).toBe(3);
    });
  }, 30_000);

  it("stores no key in plain text anywhere: only sha256$<hex> and the mask", async () => {
    await withDb(async (db) => {
      const rows = await db.sql.query<{ secure_value: string; mask_value: string }>(
        "SELECT secure_value, mask_value FROM personal_api_keys",
      );
      expect(rows.map((row) => row.secure_value).sort()).toEqual(bootstrapped.keys.map((key) => `sha256$${sha256(key)}`).sort());
      expect(rows.map((row) => row.mask_value).sort()).toEqual(bootstrapped.keys.map((key) => `${key.slice(0, 4)}...${key.slice(-4)}`).sort());

      const tables = await db.sql.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
      );
      expect(tables.map((t) => t.table_name)).toContain("personal_api_keys");
      for (const { table_name } of tables) {
        const dump = await db.sql.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
        const text = dump.map((d) => d.row).join("\n");
        for (const key of bootstrapped.keys) {
          expect(text, table_name).not.toContain(key);
          expect(text, table_name).not.toContain(key.slice(4));
          expect(text, table_name).not.toContain(key.slice(4, 24));
        }
      }
    });
  }, 30_000);
});
