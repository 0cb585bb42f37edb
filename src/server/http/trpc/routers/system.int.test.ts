import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import type { Database } from "@/server/db";
import { describeDb } from "@/server/db/config";
import { createTestDatabase, testDbKind } from "@/test-support/db";

describe(`system.status (${testDbKind})`, () => {
  let db: Database;
  let api: ReturnType<typeof createCaller>;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = createCaller({
      db,
      headers: new Headers(),
      user: { id: 1, uuid: "00000000-0000-4000-8000-000000000001", email: "status@example.com", firstName: "", currentProjectId: null },
    });
  });
  afterAll(async () => {
    await db?.close();
  });

  it("is for signed-in users only", async () => {
    const anonymous = createCaller({ db, headers: new Headers(), user: null });
    await expect(anonymous.system.status()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("counts nothing on a fresh one, and names no database to a user who administers no organization", async () => {
    expect(await api.system.status()).toEqual({ database: null, projects: 0, users: 0 });
  });

  it("counts the projects and users that exist", async () => {
    const organization = await db.prisma.organization.create({ data: { name: "Acme" } });
    await db.prisma.project.createMany({
      data: [
        { organizationId: organization.id, name: "Web", apiToken: "phc_status_web" },
        { organizationId: organization.id, name: "App", apiToken: "phc_status_app" },
      ],
    });
    await db.prisma.user.create({
      data: { email: "status@example.com", passwordHash: "$argon2id$unused", distinctId: "status-user" },
    });
    expect(await api.system.status()).toMatchObject({ projects: 2, users: 1 });
  });

  it("names the database (the server's data path) only to organization admins and owners", async () => {
    const organization = await db.prisma.organization.create({ data: { name: "Levels" } });
    const as = async (level: number) => {
      const user = await db.prisma.user.create({ data: { email: `level${level}@example.com`, passwordHash: "$argon2id$unused", distinctId: `level-${level}` } });
      await db.prisma.organizationMembership.create({ data: { organizationId: organization.id, userId: user.id, level } });
      return createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: null } });
    };
    expect((await (await as(1)).system.status()).database).toBeNull();
    expect((await (await as(8)).system.status()).database).toBe(describeDb(db.config));
    expect((await (await as(15)).system.status()).database).toBe(describeDb(db.config));
  });
});
