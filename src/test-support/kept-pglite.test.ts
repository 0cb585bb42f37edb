/**
 * An embedded test database on a kept thread starts as the migrated template does: what an
 * earlier test wrote, analyzed, counted or changed in the schema is not there. Runs where the
 * tests' databases are embedded ones (the PGlite pass).
 */
import { describe, expect, it } from "vitest";
import { createTestDatabase, testDbKind } from "./db";
import { keptThreads, MAX_IDLE } from "./kept-pglite";

/** As many databases at once as threads are kept idle: when the previous database's thread was kept, it is one of them. */
const everyKeptThread = () => Promise.all(Array.from({ length: MAX_IDLE }, () => createTestDatabase()));
/** Threads start in about 2 s of CPU each, longer on a busy machine. */
const SLOW = 120_000;
const count = async (db: Awaited<ReturnType<typeof createTestDatabase>>, sql: string) => Number((await db.sql.query<{ n: string }>(sql))[0]!.n);

describe.runIf(testDbKind === "pglite")("kept embedded test databases", () => {
  it("the next database has none of the previous one's rows, sequences, statistics, counters, settings or open transaction, and the template's rows", async () => {
    const first = await createTestDatabase();
    const templateRows = await count(first, "SELECT count(*) AS n FROM _prisma_migrations");
    expect(templateRows).toBeGreaterThan(0);
    const org = await first.prisma.organization.create({ data: { name: "written by an earlier test" } });
    const project = await first.prisma.project.create({ data: { organizationId: org.id, name: "first", apiToken: "phc_kept_1" } });
    await first.prisma.project.create({ data: { organizationId: org.id, name: "second", apiToken: "phc_kept_2" } });
    await first.sql.query("DELETE FROM _prisma_migrations WHERE migration_name = (SELECT min(migration_name) FROM _prisma_migrations)");
    await first.sql.query("ANALYZE organizations");
    expect(await count(first, "SELECT count(*) AS n FROM pg_statistic WHERE starelid = 'organizations'::regclass")).toBeGreaterThan(0);
    await first.sql.query("SET burrow.left_behind = 'yes'");
    await first.sql.query("BEGIN");
    await first.sql.query("INSERT INTO organizations (id, name, updated_at) VALUES (gen_random_uuid(), 'never committed', now())");
    await first.close();

    const reused = keptThreads.reused;
    const all = await everyKeptThread();
    // The first database's thread was kept, and is one of these.
    expect(keptThreads.reused).toBeGreaterThan(reused);
    for (const next of all) {
      try {
        expect(await next.prisma.organization.count()).toBe(0);
        expect((await next.sql.query<{ value: string | null }>("SELECT current_setting('burrow.left_behind', true) AS value"))[0]!.value || null).toBeNull();
        expect(await count(next, "SELECT count(*) AS n FROM _prisma_migrations")).toBe(templateRows);
        expect(await count(next, "SELECT count(*) AS n FROM pg_statistic WHERE starelid = 'organizations'::regclass")).toBe(0);
        expect(await count(next, "SELECT coalesce(sum(n_tup_ins + n_mod_since_analyze), 0) AS n FROM pg_stat_user_tables WHERE relname = 'organizations'")).toBe(0);
        // Identities start again where the template left them.
        const owner = await next.prisma.organization.create({ data: { name: "first of this test" } });
        const made = await next.prisma.project.create({ data: { organizationId: owner.id, name: "first", apiToken: "phc_kept_1" } });
        expect(made.id).toBe(project.id);
      } finally {
        await next.close();
      }
    }
  }, SLOW);

  it("a database whose schema a test changed is not handed to the next one", async () => {
    const changed = await createTestDatabase();
    await changed.sql.query("ALTER TABLE organizations ADD COLUMN left_behind int");
    await changed.sql.query("CREATE TABLE stray (id int)");
    await changed.close();
    const all = await everyKeptThread();
    for (const next of all) {
      try {
        expect(await count(next, "SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'organizations' AND column_name = 'left_behind'")).toBe(0);
        expect(await count(next, "SELECT count(*) AS n FROM pg_class WHERE relname = 'stray'")).toBe(0);
      } finally {
        await next.close();
      }
    }
  }, SLOW);
});
