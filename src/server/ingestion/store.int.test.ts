import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import type { Database, PrismaClient } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { ProjectKeyCache } from "./store";

describe(`ProjectKeyCache (${testDbKind})`, () => {
  let db: Database;
  let token: string;
  let projectId: number;
  let clock = 0;
  let queries = 0;
  /** The real client, counting the project lookups. */
  let counting: PrismaClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ project_api_key: token, project_id: projectId } = await bootstrap(db.prisma, { email: "keys@example.com", password: "pw12345678" }));
    counting = {
      project: {
        findUnique: (args: Parameters<PrismaClient["project"]["findUnique"]>[0]) => {
          queries++;
          return db.prisma.project.findUnique(args);
        },
      },
    } as unknown as PrismaClient;
  });
  afterAll(async () => {
    await db.close();
  });

  it("shares one query between concurrent first lookups, then answers from memory", async () => {
    const cache = new ProjectKeyCache(counting, () => clock);
    queries = 0;
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.lookup(token)));
    expect(found.every((project) => project?.id === projectId)).toBe(true);
    await cache.lookup(token);
    expect(queries).toBe(1);
  });

  it("answers a known key past its ten seconds from memory, without waiting for a busy database, and reads it again behind", async () => {
    const cache = new ProjectKeyCache(counting, () => clock);
    expect((await cache.lookup(token))?.anonymizeIps).toBe(false);
    await db.sql.query(`UPDATE projects SET anonymize_ips = true WHERE id = $1`, [projectId]);
    clock += 11_000;
    let release!: () => void;
    let held!: () => void;
    const holding = db.sql.transaction(async (tx) => {
      await tx.query("SELECT 1");
      held();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await new Promise<void>((resolve) => (held = resolve));
    try {
      const stale = await Promise.race([cache.lookup(token), new Promise((resolve) => setTimeout(() => resolve("waited"), 5_000))]);
      expect(stale).toMatchObject({ id: projectId, anonymizeIps: false });
    } finally {
      release();
      await holding;
    }
    await expect.poll(async () => (await cache.lookup(token))?.anonymizeIps, { timeout: 10_000 }).toBe(true);
    await db.sql.query(`UPDATE projects SET anonymize_ips = false WHERE id = $1`, [projectId]);
  });

  it("reads an unknown key again after two seconds, never serving its old answer", async () => {
    const cache = new ProjectKeyCache(counting, () => clock);
    queries = 0;
    expect(await cache.lookup("phc_not_yet")).toBeNull();
    expect(await cache.lookup("phc_not_yet")).toBeNull();
    expect(queries).toBe(1);
    clock += 2_001;
    expect(await cache.lookup("phc_not_yet")).toBeNull();
    expect(queries).toBe(2);
    expect(await cache.lookup("phc_\u0000")).toBeNull();
    expect(queries).toBe(2);
  });
});
