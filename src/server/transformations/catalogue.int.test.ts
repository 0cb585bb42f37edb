/**
 * The seeded `plugins` rows (migration 20261122050000_builtin_transformation_plugins) agree
 * with the catalogue in code. When this fails after a change to a plugin, write a migration
 * that updates its row (names, descriptions and config_schema are served from the rows).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import { MIGRATIONS_DIR } from "@/server/db/migrate";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { BUILTIN_CAPABILITIES, BUILTIN_PLUGINS, configFields } from "./catalogue";

let db: Database;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.close();
});

describe(`seeded built-in plugins (${testDbKind})`, () => {
  it("has one row per catalogue plugin, in catalogue order, with the same name, description, form and capabilities", async () => {
    const rows = await db.prisma.plugin.findMany({ orderBy: { id: "asc" } });
    expect(
      rows.map((row) => ({
        key: row.key,
        name: row.name,
        description: row.description,
        pluginType: row.pluginType,
        configSchema: row.configSchema,
        capabilities: row.capabilities,
        organizationId: row.organizationId,
      })),
    ).toEqual(
      BUILTIN_PLUGINS.map((plugin) => ({
        key: plugin.key,
        name: plugin.name,
        description: plugin.description,
        pluginType: "builtin",
        configSchema: JSON.parse(JSON.stringify(configFields(plugin))),
        capabilities: BUILTIN_CAPABILITIES,
        organizationId: null,
      })),
    );
  });

  it("seeds idempotently: running the seed again keeps the rows and their ids", async () => {
    const before = await db.prisma.plugin.findMany({ orderBy: { id: "asc" }, select: { id: true, key: true } });
    await db.sql.exec(fs.readFileSync(path.join(MIGRATIONS_DIR, "20261122050000_builtin_transformation_plugins", "migration.sql"), "utf8"));
    expect(await db.prisma.plugin.findMany({ orderBy: { id: "asc" }, select: { id: true, key: true } })).toEqual(before);
  });
});
