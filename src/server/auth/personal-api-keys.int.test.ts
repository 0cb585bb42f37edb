import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testUserContext } from "@/test-support/context";
import { createPersonalApiKey, deletePersonalApiKey } from "@/server/accounts/service";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase, createTestDatabase, testDbKind } from "@/test-support/db";
import { authenticatePersonalApiKey } from "./service";

let sequence = 0;

describe(`authenticatePersonalApiKey (${testDbKind})`, () => {
  let db: Database;
  let projectId: number;
  let organizationId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const organization = await db.prisma.organization.create({ data: { name: "Acme" } });
    organizationId = organization.id;
    projectId = (await db.prisma.project.create({ data: { organizationId: organization.id, name: "Web", apiToken: "phc_keys_test" } })).id;
  });
  afterAll(async () => {
    await db?.close();
  });

  async function userWithKey(options: { isActive?: boolean; scopes?: string[]; projectId?: number } = {}) {
    sequence += 1;
    const user = await db.prisma.user.create({
      data: {
        email: `user${sequence}@example.com`,
        passwordHash: "$argon2id$unused",
        distinctId: `distinct-${sequence}`,
        isActive: options.isActive ?? true,
        currentProjectId: projectId,
        memberships: { create: { organizationId, level: 1 } },
      },
    });
    const { key, record } = await createPersonalApiKey(db.prisma, user.id, {
      scopes: (options.scopes ?? ["dashboard:read"]) as never,
      ...(options.projectId === undefined ? {} : { projectId: options.projectId }),
    });
    return { user, key, record };
  }

  async function lastUsedAt(keyId: string): Promise<Date | null> {
    return (await db.prisma.personalApiKey.findUniqueOrThrow({ where: { id: keyId } })).lastUsedAt;
  }

  /** The last_used_at write is fire-and-forget: wait until it shows, or give up after 10 s. */
  async function waitForLastUsedAt(keyId: string, expected: Date): Promise<Date | null> {
    const deadline = Date.now() + 10_000;
    let value = await lastUsedAt(keyId);
    while (value?.getTime() !== expected.getTime() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      value = await lastUsedAt(keyId);
    }
    return value;
  }

  it("returns the key's user, scopes and projects for the right key", async () => {
    const { user, key, record } = await userWithKey({ scopes: ["dashboard:write", "query:read"] });
    expect(await authenticatePersonalApiKey(db.prisma, key)).toEqual({
      keyId: record.id,
      user: { id: user.id, uuid: user.uuid, email: user.email, currentProjectId: projectId },
      scopes: ["dashboard:write", "query:read"],
      scopedProjects: [],
    });
  });

  it("reports the project a key is limited to", async () => {
    const { key } = await userWithKey({ projectId });
    expect(await authenticatePersonalApiKey(db.prisma, key)).toMatchObject({ scopedProjects: [projectId] });
  });

  it("returns null for a wrong key, a near miss, and an empty string", async () => {
    const { key } = await userWithKey();
    expect(await authenticatePersonalApiKey(db.prisma, `${key.slice(0, -1)}${key.endsWith("a") ? "b" : "a"}`)).toBeNull();
    expect(await authenticatePersonalApiKey(db.prisma, `${key}x`)).toBeNull();
    expect(await authenticatePersonalApiKey(db.prisma, key.toLowerCase() === key ? key.toUpperCase() : key.toLowerCase())).toBeNull();
    expect(await authenticatePersonalApiKey(db.prisma, "phx_doesnotexist")).toBeNull();
    expect(await authenticatePersonalApiKey(db.prisma, "")).toBeNull();
  });

  it("does not accept the stored hash in place of the key", async () => {
    const { record } = await userWithKey();
    expect(await authenticatePersonalApiKey(db.prisma, record.secureValue)).toBeNull();
  });

  it("returns null for the key of an inactive user, and the key works again once the user is reactivated", async () => {
    const { user, key } = await userWithKey({ isActive: false });
    expect(await authenticatePersonalApiKey(db.prisma, key)).toBeNull();
    await db.prisma.user.update({ where: { id: user.id }, data: { isActive: true } });
    expect(await authenticatePersonalApiKey(db.prisma, key)).not.toBeNull();
  });

  it("writes last_used_at on first use, not again within a minute, and again after a minute", async () => {
    const { key, record } = await userWithKey();
    expect(record.lastUsedAt).toBeNull();
    const first = new Date("2030-01-01T00:00:00.000Z");
    expect(await authenticatePersonalApiKey(db.prisma, key, first)).not.toBeNull();
    expect(await waitForLastUsedAt(record.id, first)).toEqual(first);

    const soon = new Date(first.getTime() + 59_000);
    expect(await authenticatePersonalApiKey(db.prisma, key, soon)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await lastUsedAt(record.id)).toEqual(first);

    const later = new Date(first.getTime() + 61_000);
    expect(await authenticatePersonalApiKey(db.prisma, key, later)).not.toBeNull();
    expect(await waitForLastUsedAt(record.id, later)).toEqual(later);
  });

  it("does not touch last_used_at of a key that failed to authenticate", async () => {
    const { key, record } = await userWithKey({ isActive: false });
    expect(await authenticatePersonalApiKey(db.prisma, key, new Date("2030-01-01T00:00:00.000Z"))).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await lastUsedAt(record.id)).toBeNull();
  });
});

// Keys are not cached on any node (one indexed lookup per request), so a revoked key or a
// deactivated user is refused by every node from the next request on. This guards that: a
// per-node key cache added later must be invalidated across nodes to pass.
if (testDbKind === "postgres") describe("personal API keys across two nodes", () => {
  it("a key revoked or a user deactivated on node A is refused by node B at once", async () => {
    const database = await createEmptyPostgresDatabase();
    const nodeA = await openDatabase({ kind: "postgres", url: database.url });
    const nodeB = await openDatabase({ kind: "postgres", url: database.url });
    try {
      await migrate(nodeA.sql);
      const organization = await nodeA.prisma.organization.create({ data: { name: "nodes" } });
      const newUser = (n: number) =>
        nodeA.prisma.user.create({
          data: { email: `node${n}@example.com`, passwordHash: "$argon2id$unused", distinctId: `node-${n}`, memberships: { create: { organizationId: organization.id, level: 1 } } },
        });
      const revoked = await newUser(1);
      const deactivated = await newUser(2);
      const first = await createPersonalApiKey(nodeA.prisma, revoked.id, { scopes: ["dashboard:read"] as never });
      const second = await createPersonalApiKey(nodeA.prisma, deactivated.id, { scopes: ["dashboard:read"] as never });
      expect(await authenticatePersonalApiKey(nodeB.prisma, first.key)).toMatchObject({ keyId: first.record.id });
      expect(await authenticatePersonalApiKey(nodeB.prisma, second.key)).toMatchObject({ keyId: second.record.id });

      await deletePersonalApiKey(await testUserContext(nodeA, revoked.id), first.record.id);
      expect(await authenticatePersonalApiKey(nodeB.prisma, first.key)).toBeNull();
      await nodeA.prisma.user.update({ where: { id: deactivated.id }, data: { isActive: false } });
      expect(await authenticatePersonalApiKey(nodeB.prisma, second.key)).toBeNull();
    } finally {
      await nodeA.close();
      await nodeB.close();
      await database.drop();
    }
  });
});
