import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/server/db/client";
import type { SqlExecutor } from "@/server/db/driver";
import { createTestDatabase, testDbKind } from "@/server/db/testing";
import { PersonPropertiesBatcher } from "./person-batch";

describe(`PersonPropertiesBatcher (${testDbKind})`, () => {
  let db: Database;
  let projectId: number;
  const statements: string[] = [];
  /** The real database, counting the statements sent. */
  let counting: SqlExecutor;

  beforeAll(async () => {
    db = await createTestDatabase();
    const organization = await db.prisma.organization.create({ data: { name: "Batch" } });
    projectId = (await db.prisma.project.create({ data: { organizationId: organization.id, name: "Batch", apiToken: "phc_batch" } })).id;
    await db.sql.query(
      `INSERT INTO persons (project_id, properties, updated_at) SELECT $1, jsonb_build_object('n', g), now() FROM generate_series(1, 100) g`,
      [projectId],
    );
    await db.sql.query(`INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) SELECT project_id, id, 'p' || (properties->>'n') FROM persons WHERE project_id = $1`, [projectId]);
    counting = {
      query: (text, params) => {
        statements.push(text);
        return db.sql.query(text, params);
      },
      exec: (script) => db.sql.exec(script),
    };
  });
  afterAll(async () => {
    await db.close();
  });

  it("answers lookups made together with one query, each with its own person's properties", async () => {
    const batcher = new PersonPropertiesBatcher(counting);
    statements.length = 0;
    const ids = Array.from({ length: 60 }, (_, index) => (index % 7 === 0 ? `missing-${index}` : `p${(index % 100) + 1}`));
    const answers = await Promise.all([...ids, "p5"].map((id) => batcher.load(projectId, id)));
    expect(statements).toHaveLength(1);
    ids.forEach((id, index) => expect(answers[index], id).toEqual(id.startsWith("missing") ? null : { n: Number(id.slice(1)) }));
    // Copies: one caller's changes are not another's.
    answers[5]!.n = -1;
    expect(answers[60]).toEqual({ n: 5 });
  });

  it("sends lookups that arrive while a query runs in the next one", async () => {
    const batcher = new PersonPropertiesBatcher(counting);
    statements.length = 0;
    const first = batcher.load(projectId, "p1");
    await new Promise((resolve) => setImmediate(resolve)); // the first query has started
    const later = await Promise.all(["p2", "p3", "p4"].map((id) => batcher.load(projectId, id)));
    expect(await first).toEqual({ n: 1 });
    expect(later).toEqual([{ n: 2 }, { n: 3 }, { n: 4 }]);
    expect(statements).toHaveLength(2);
  });

  it("fails every lookup of a batch whose query fails, and recovers after", async () => {
    let fail = true;
    const flaky: SqlExecutor = { ...counting, query: (text, params) => (fail ? Promise.reject(new Error("connection lost")) : counting.query(text, params)) };
    const batcher = new PersonPropertiesBatcher(flaky);
    const results = await Promise.allSettled([batcher.load(projectId, "p1"), batcher.load(projectId, "p2")]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await batcher.load(projectId, "p2")).toEqual({ n: 2 });
  });
});
