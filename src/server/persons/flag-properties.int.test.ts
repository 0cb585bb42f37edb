import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import type { SqlExecutor } from "@/server/db/driver";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { FlagPersonProperties, flagPersonProperties } from "./flag-properties";
import { PersonsService } from "./identity";

describe(`FlagPersonProperties (${testDbKind})`, () => {
  let db: Database;
  let projectId: number;
  let otherProjectId: number;
  const statements: string[] = [];
  /** The real database, counting the statements sent. */
  let counting: SqlExecutor;

  beforeAll(async () => {
    db = await createTestDatabase();
    const organization = await db.prisma.organization.create({ data: { name: "Batch" } });
    projectId = (await db.prisma.project.create({ data: { organizationId: organization.id, name: "Batch", apiToken: "phc_batch" } })).id;
    otherProjectId = (await db.prisma.project.create({ data: { organizationId: organization.id, name: "Other", apiToken: "phc_other" } })).id;
    for (const project of [projectId, otherProjectId]) {
      await db.sql.query(
        `INSERT INTO persons (project_id, properties, updated_at) SELECT $1, jsonb_build_object('n', g, 'project', $1::int), now() FROM generate_series(1, 100) g`,
        [project],
      );
      await db.sql.query(`INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) SELECT project_id, id, 'p' || (properties->>'n') FROM persons WHERE project_id = $1`, [project]);
    }
    // A second distinct id for person p7.
    await db.sql.query(`INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) SELECT project_id, id, 'p7-alias' FROM persons WHERE project_id = $1 AND properties->>'n' = '7'`, [projectId]);
    counting = {
      query: (text, params, options) => {
        statements.push(text);
        return db.sql.query(text, params, options);
      },
      exec: (script) => db.sql.exec(script),
    };
  });
  afterAll(async () => {
    await db.close();
  });

  describe("lookups in the database (PostgreSQL's mode)", () => {
    it("answers lookups made together with one query, each with its own person's properties", async () => {
      const lookups = new FlagPersonProperties(counting, false);
      statements.length = 0;
      const ids = Array.from({ length: 60 }, (_, index) => (index % 7 === 0 ? `missing-${index}` : `p${(index % 100) + 1}`));
      const answers = await Promise.all([...ids, "p5"].map((id) => lookups.get(projectId, id)));
      expect(statements).toHaveLength(1);
      ids.forEach((id, index) => expect(answers[index], id).toEqual(id.startsWith("missing") ? null : { n: Number(id.slice(1)), project: projectId }));
      // Copies: one caller's changes are not another's.
      answers[5]!.n = -1;
      expect(answers[60]).toEqual({ n: 5, project: projectId });
    });

    it("sends lookups that arrive while a query runs in the next one, and keeps nothing in memory", async () => {
      const lookups = new FlagPersonProperties(counting, false);
      statements.length = 0;
      const first = lookups.get(projectId, "p1");
      await new Promise((resolve) => setImmediate(resolve)); // the first query has started
      const later = await Promise.all(["p2", "p3", "p4"].map((id) => lookups.get(projectId, id)));
      expect(await first).toEqual({ n: 1, project: projectId });
      expect(later.map((properties) => properties?.n)).toEqual([2, 3, 4]);
      expect(statements).toHaveLength(2);
      await lookups.warm();
      expect(await lookups.get(projectId, "p1")).toEqual({ n: 1, project: projectId });
      expect(statements).toHaveLength(3);
    });

    it("fails every lookup of a batch whose query fails, and recovers after", async () => {
      let fail = true;
      const flaky: SqlExecutor = { ...counting, query: (text, params) => (fail ? Promise.reject(new Error("connection lost")) : counting.query(text, params)) };
      const lookups = new FlagPersonProperties(flaky, false);
      const results = await Promise.allSettled([lookups.get(projectId, "p1"), lookups.get(projectId, "p2")]);
      expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
      fail = false;
      expect(await lookups.get(projectId, "p2")).toEqual({ n: 2, project: projectId });
    });
  });

  describe("in memory (the embedded database's mode)", () => {
    it("after warming, answers every person of every project, and ids without one, with no query", async () => {
      const lookups = new FlagPersonProperties(counting, true);
      await lookups.warm();
      statements.length = 0;
      expect(await lookups.get(projectId, "p42")).toEqual({ n: 42, project: projectId });
      expect(await lookups.get(projectId, "p7-alias")).toEqual({ n: 7, project: projectId });
      expect(await lookups.get(otherProjectId, "p42")).toEqual({ n: 42, project: otherProjectId });
      expect(await lookups.get(projectId, "never-seen")).toBeNull();
      const copy = (await lookups.get(projectId, "p1"))!;
      copy.n = -1;
      expect(await lookups.get(projectId, "p1")).toEqual({ n: 1, project: projectId });
      expect(statements).toEqual([]);
    });

    it("answers while a transaction holds the one connection (flags never queue behind a worker)", async () => {
      const lookups = new FlagPersonProperties(db.sql, true);
      await lookups.warm();
      let release!: () => void;
      let held!: () => void;
      const holding = db.sql.transaction(async (tx) => {
        await tx.query("SELECT 1");
        held();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await new Promise<void>((resolve) => (held = resolve));
      try {
        // Answered while the connection is still held: from memory, not queued behind it.
        const answers = await Promise.race([
          Promise.all([lookups.get(projectId, "p9"), lookups.get(projectId, "not-a-person")]),
          new Promise((resolve) => setTimeout(() => resolve("still waiting"), 5_000)),
        ]);
        expect(answers).toEqual([{ n: 9, project: projectId }, null]);
      } finally {
        release();
        await holding;
      }
    });

    it("follows ingestion's writes: new persons, property updates, aliases and merges are read again once", async () => {
      const index = flagPersonProperties(db.sql);
      await index.warm();
      const persons = new PersonsService(db.sql, db.events);
      // A new person: known at once.
      const created = await persons.resolve(projectId, "fresh-visitor");
      expect(await index.get(projectId, "fresh-visitor")).toEqual({});
      // A property update: the next lookup reads the new value.
      await persons.updateProperties(projectId, "fresh-visitor", created, { set: { plan: "pro" }, setOnce: {}, unset: [] });
      expect(await index.get(projectId, "fresh-visitor")).toEqual({ plan: "pro" });
      // An alias: the new id has the person's properties.
      await persons.link(projectId, "fresh-visitor", "fresh-alias", { force: false });
      expect(await index.get(projectId, "fresh-alias")).toEqual({ plan: "pro" });
      // A merge of an anonymous person into p3: its id now reads p3's properties combined.
      await persons.updateProperties(projectId, "fresh-alias", created, { set: { seat: 4 }, setOnce: {}, unset: [] });
      await persons.link(projectId, "p3", "fresh-visitor", { force: false });
      expect(await index.get(projectId, "fresh-visitor")).toMatchObject({ n: 3, project: projectId });
      expect(await index.get(projectId, "p3")).toMatchObject({ n: 3, plan: "pro", seat: 4 });
    });

    it("does not keep what a read found for a person a write changed while the read ran", async () => {
      let hold: Promise<void> | null = null;
      let queried!: () => void;
      const readReturned = new Promise<void>((resolve) => (queried = resolve));
      const slow: SqlExecutor = {
        ...counting,
        query: async (text, params, options) => {
          const rows = await counting.query(text, params, options);
          if (hold) {
            queried(); // the read's statement has answered, with the old row
            await hold;
          }
          return rows as never;
        },
      };
      const lookups = new FlagPersonProperties(slow, true);
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      const reading = lookups.get(projectId, "p11");
      await readReturned;
      // The write commits while the read is under way, after the read saw the old row.
      await db.sql.query(`UPDATE persons SET properties = properties || '{"late": true}' WHERE project_id = $1 AND properties->>'n' = '11'`, [projectId]);
      const [person] = await db.sql.query<{ id: number; properties: unknown }>(`SELECT id, properties FROM persons WHERE project_id = $1 AND properties->>'n' = '11'`, [projectId]);
      lookups.touch(projectId, { personIds: [person!.id] });
      release();
      hold = null;
      expect(await reading).toEqual({ n: 11, project: projectId });
      expect(await lookups.get(projectId, "p11")).toEqual({ n: 11, project: projectId, late: true });
    });

    it("drops the largest project past its bound, whose lookups then ask the database", async () => {
      const lookups = new FlagPersonProperties(counting, true, 150);
      await lookups.warm();
      statements.length = 0;
      // 201 ids in the first project (with the alias) and 100 in the other: the first went.
      expect(await lookups.get(otherProjectId, "p5")).toEqual({ n: 5, project: otherProjectId });
      expect(statements).toHaveLength(0);
      expect(await lookups.get(projectId, "p5")).toEqual({ n: 5, project: projectId });
      expect(statements).toHaveLength(1);
    });
  });
});
