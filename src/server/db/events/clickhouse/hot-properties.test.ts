/** The hot-property columns the code reads are the ones the migration makes, each from its own key. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLICKHOUSE_MIGRATIONS_DIR } from "./migrate";
import { HOT_PROPERTY_COLUMNS, hotPropertyColumn } from "./hot-properties";

const sql = fs
  .readdirSync(CLICKHOUSE_MIGRATIONS_DIR)
  .filter((name) => name.endsWith(".sql"))
  .map((name) => fs.readFileSync(path.join(CLICKHOUSE_MIGRATIONS_DIR, name), "utf8"))
  .join("\n");
const added = [...sql.matchAll(/ADD COLUMN IF NOT EXISTS (mat_\w+) String MATERIALIZED (.*);$/gm)]
  .filter((m) => m[1] !== "mat_session_id")
  .map((m) => ({ column: m[1]!, expression: m[2]! }));

describe("hot property columns", () => {
  it("the migrations add exactly the columns of HOT_PROPERTY_COLUMNS", () => {
    expect(added.map((a) => a.column).sort()).toEqual(Object.values(HOT_PROPERTY_COLUMNS).sort());
  });

  it("each column reads its own key, and only it", () => {
    for (const [key, column] of Object.entries(HOT_PROPERTY_COLUMNS)) {
      const { expression } = added.find((a) => a.column === column)!;
      const keys = new Set([...expression.matchAll(/JSONExtractRaw\(properties, '([^']*)'\)/g)].map((m) => m[1]));
      expect([...keys]).toEqual([key]);
    }
  });

  it("names no column for other keys, also not for inherited object keys", () => {
    expect(hotPropertyColumn("$browser")).toBe("mat_browser");
    expect(hotPropertyColumn("plan")).toBeNull();
    expect(hotPropertyColumn("constructor")).toBeNull();
  });
});
