/**
 * PostHog's default test account filters on every project Burrow creates: the first sign-up,
 * the admin bootstrap (a new user, and a user whose organization has no project left), and a
 * project an admin adds to an organization. A company address adds its domain; a mail
 * provider's does not. Projects that exist keep what they have.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { bootstrap, signUpFirstUser } from "./service";
import { defaultTestAccountFilters, isGenericEmailDomain, LOCAL_HOST_FILTER } from "./test-account-defaults";

const LOCAL = { key: "$host", type: "event", operator: "not_regex", value: "^(localhost|127\\.0\\.0\\.1)($|:)" };
const company = (domain: string) => ({ key: "email", type: "person", operator: "not_icontains", value: `@${domain}` });

describe("defaultTestAccountFilters", () => {
  it("is PostHog's $host filter, with the creator's company domain before it", () => {
    expect(LOCAL_HOST_FILTER).toEqual(LOCAL);
    expect(defaultTestAccountFilters("ada@acme-labs.io")).toEqual([company("acme-labs.io"), LOCAL]);
    // The whole domain, lower-cased: PostHog's @[\w.]+ would stop at the hyphen
    expect(defaultTestAccountFilters("  Ada.Lovelace@Eng.ACME-Labs.co.uk ")).toEqual([company("eng.acme-labs.co.uk"), LOCAL]);
  });

  it("leaves a mail provider's domain out, whatever its case", () => {
    for (const email of ["ada@gmail.com", "ada@GMAIL.com", "ada@yahoo.com", "ada@hotmail.com", "ada@outlook.com", "ada@icloud.com", "ada@proton.me", "ada@googlemail.com"]) {
      expect(defaultTestAccountFilters(email), email).toEqual([LOCAL]);
    }
    expect(isGenericEmailDomain("Outlook.com")).toBe(true);
    expect(isGenericEmailDomain("gmail.company.example")).toBe(false);
    // Not an address: nothing to take a domain from
    expect(defaultTestAccountFilters("admin")).toEqual([LOCAL]);
  });
});

describe(`a new project's test account filters (${testDbKind})`, () => {
  let db: Database;
  const filtersOf = async (projectId: number) => (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).testAccountFilters;

  beforeAll(async () => {
    db = await createTestDatabase();
    registerDb(db);
  });
  afterAll(() => closeDb());

  it("the first sign-up's project: the company's domain and the local hosts", async () => {
    const user = await signUpFirstUser(db.prisma, { email: "Founder@Acme-Labs.io", password: "pw-12345678", firstName: "Ada", organization: "Acme", project: "Site" });
    expect(await filtersOf(user.currentProjectId!)).toEqual([company("acme-labs.io"), LOCAL]);
  });

  it("the admin bootstrap's: a generic address gets the local hosts alone; run again it changes nothing", async () => {
    const first = await bootstrap(db.prisma, { email: "solo.dev@gmail.com", password: "pw-12345678" });
    expect(await filtersOf(first.project_id)).toEqual([LOCAL]);
    // Edited since: the next bootstrap (same user, same project) keeps the edit
    await db.prisma.project.update({ where: { id: first.project_id }, data: { testAccountFilters: [] } });
    const again = await bootstrap(db.prisma, { email: "solo.dev@gmail.com", password: "pw-12345678" });
    expect(again.project_id).toBe(first.project_id);
    expect(await filtersOf(first.project_id)).toEqual([]);
  });

  it("a project an admin adds to an organization: the admin's domain; a bootstrap into an organization left without projects too", async () => {
    const owner = await bootstrap(db.prisma, { email: "owner@widgets.example", password: "pw-12345678" });
    expect(await filtersOf(owner.project_id)).toEqual([company("widgets.example"), LOCAL]);
    const project = await db.prisma.project.findUniqueOrThrow({ where: { id: owner.project_id } });
    const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "owner@widgets.example" } });
    const api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: owner.project_id } });
    const added = await api.account.createProject({ organizationId: project.organizationId, name: "Second site" });
    expect(await filtersOf(added.id)).toEqual([company("widgets.example"), LOCAL]);

    // A gmail admin of the same organization adds one: the local hosts alone
    const admin = await db.prisma.user.create({ data: { email: "helper@gmail.com", passwordHash: "$argon2id$unused", distinctId: "helper" } });
    await db.prisma.organizationMembership.create({ data: { organizationId: project.organizationId, userId: admin.id, level: 8 } });
    const helper = createCaller({ db, headers: new Headers(), user: { id: admin.id, uuid: admin.uuid, email: admin.email, firstName: "", currentProjectId: owner.project_id } });
    const third = await helper.account.createProject({ organizationId: project.organizationId, name: "Third site" });
    expect(await filtersOf(third.id)).toEqual([LOCAL]);
    // The filters read as test account filters: account.project hands them to the pages
    expect(await api.account.project({ projectId: added.id })).toMatchObject({ testAccountFilters: [company("widgets.example"), LOCAL] });

    // A user whose organization has no project: the bootstrap adds one, under the user's domain
    const lone = await db.prisma.user.create({ data: { email: "lone@lonely.example", passwordHash: "$argon2id$unused", distinctId: "lone" } });
    await db.prisma.organization.create({ data: { name: "Empty", memberships: { create: { userId: lone.id, level: 15 } } } });
    const boot = await bootstrap(db.prisma, { email: "lone@lonely.example", password: "pw-12345678" });
    expect(await filtersOf(boot.project_id)).toEqual([company("lonely.example"), LOCAL]);
  });

  it("leaves the projects that exist as they are", async () => {
    const owner = await bootstrap(db.prisma, { email: "keeper@keep.example", password: "pw-12345678" });
    await db.prisma.project.update({ where: { id: owner.project_id }, data: { testAccountFilters: [company("other.example")] } });
    await bootstrap(db.prisma, { email: "keeper@keep.example", password: "pw-12345678" });
    expect(await filtersOf(owner.project_id)).toEqual([company("other.example")]);
  });
});
