/** account.updateProject: a project's data-collection settings, an organization admin's to change. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";

let db: Database;
let projectId: number;
let owner: ReturnType<typeof createCaller>;
let member: ReturnType<typeof createCaller>;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const created = await bootstrap(db.prisma, { email: "settings-owner@example.com", password: "pw12345678" });
  projectId = created.project_id;
  const caller = async (email: string) => {
    const user = await db.prisma.user.findUniqueOrThrow({ where: { email } });
    return createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
  };
  owner = await caller("settings-owner@example.com");
  const project = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
  const user = await db.prisma.user.create({ data: { email: "settings-member@example.com", passwordHash: "$argon2id$unused", distinctId: "settings-member" } });
  await db.prisma.organizationMembership.create({ data: { organizationId: project.organizationId, userId: user.id, level: 1 } });
  member = await caller("settings-member@example.com");
});

afterAll(async () => {
  await closeDb();
});

describe(`account.updateProject (${testDbKind})`, () => {
  it("starts with enrichment on and IPs kept, and an admin turns either over", async () => {
    expect(await owner.account.project({ projectId })).toMatchObject({ enrichEvents: true, anonymizeIps: false });
    await owner.account.updateProject({ projectId, enrich_events: false });
    expect(await owner.account.project({ projectId })).toMatchObject({ enrichEvents: false, anonymizeIps: false });
    await owner.account.updateProject({ projectId, anonymize_ips: true, enrich_events: true });
    expect(await member.account.project({ projectId })).toMatchObject({ enrichEvents: true, anonymizeIps: true });
  });

  it("refuses a member, and fields it does not know", async () => {
    await expect(member.account.updateProject({ projectId, enrich_events: false })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(owner.account.updateProject({ projectId, enrich_events: "no" } as never)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(owner.account.updateProject({ projectId, api_token: "phc_x" } as never)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await owner.account.project({ projectId })).toMatchObject({ enrichEvents: true, anonymizeIps: true });
  });
});
