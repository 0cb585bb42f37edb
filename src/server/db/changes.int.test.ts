import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { ALL_KEYS } from "./changes";
import { openDatabase, type Database } from "./client";
import { createEmptyPostgresDatabase, createTestDatabase, testDbKind } from "@/test-support/db";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

function received(db: Database, topic: string) {
  const keys: string[] = [];
  db.changes.subscribe(topic, (key) => keys.push(key));
  return keys;
}

async function until(check: () => boolean, ms = 1_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("change feed on this node", () => {
  it("tells this node's subscribers of the topic at once, and no others", async () => {
    const db = await createTestDatabase({ migrated: false });
    opened.push(db);
    const flags = received(db, "flags");
    const other = received(db, "transformations");
    await db.changes.publish("flags", "42");
    expect(flags).toEqual(["42"]);
    expect(other).toEqual([]);
  });

  it("stops calling a handler once it unsubscribed", async () => {
    const db = await createTestDatabase({ migrated: false });
    opened.push(db);
    const keys: string[] = [];
    const unsubscribe = db.changes.subscribe("flags", (key) => keys.push(key));
    await db.changes.publish("flags", "1");
    unsubscribe();
    await db.changes.publish("flags", "2");
    expect(keys).toEqual(["1"]);
  });
});

// Nodes share a PostgreSQL server; the embedded database has one process by construction.
if (testDbKind === "postgres") describe("change feed across nodes on one PostgreSQL database", () => {
  async function twoNodes() {
    const database = await createEmptyPostgresDatabase();
    opened.push({ close: database.drop });
    const a = await openDatabase({ kind: "postgres", url: database.url });
    const b = await openDatabase({ kind: "postgres", url: database.url });
    opened.push(a, b);
    return { a, b, url: database.url };
  }

  it("reaches the other node within a second, and each node hears its own change once", async () => {
    const { a, b } = await twoNodes();
    const onA = received(a, "flags");
    const onB = received(b, "flags");
    const started = Date.now();
    await a.changes.publish("flags", "7");
    await until(() => onB.length === 1);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(onB).toEqual(["7"]);
    // A's own message comes back over LISTEN too; it must not be delivered twice.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(onA).toEqual(["7"]);
  });

  it("after losing its listening connection, a node declares every cache stale and hears changes again", async () => {
    const { a, b, url } = await twoNodes();
    const onB = received(b, "flags");
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // Kill B's LISTEN connection as a failover or a network cut would.
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
      );
      expect(killed.rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    await until(() => onB.includes(ALL_KEYS), 3_000);
    await until(() => {
      void a.changes.publish("flags", "after");
      return onB.includes("after");
    }, 3_000);
  });
});
