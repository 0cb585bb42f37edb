/**
 * account.updateProject and `PATCH /api/projects/:id/`: a project's name, time zone and
 * data-collection settings, an organization admin's to change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { callRoute } from "@/test-support/dashboards-api";
import { restRoute } from "@/test-support/rest-routes";
import { computeQuery } from "@/server/query/service";

let db: Database;
let projectId: number;
let owner: ReturnType<typeof createCaller>;
let member: ReturnType<typeof createCaller>;
let ownerKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const created = await bootstrap(db.prisma, { email: "settings-owner@example.com", password: "pw12345678" });
  projectId = created.project_id;
  ownerKey = created.personal_api_key;
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

describe(`a project's test account filters (${testDbKind})`, () => {
  const internal = [{ key: "email", value: "@example.com", operator: "not_icontains", type: "person" }];

  it("an admin sets them through tRPC (the settings form) and every member reads them; a member may not, and a malformed filter is refused", async () => {
    // PostHog's defaults for a new project (accounts/test-account-defaults.ts): example.com is no mail provider
    expect(await owner.account.project({ projectId })).toMatchObject({
      testAccountFilters: [
        { key: "email", type: "person", operator: "not_icontains", value: "@example.com" },
        { key: "$host", type: "event", operator: "not_regex", value: "^(localhost|127\\.0\\.0\\.1)($|:)" },
      ],
    });
    await owner.account.updateProject({ projectId, test_account_filters: internal });
    expect(await member.account.project({ projectId })).toMatchObject({ testAccountFilters: internal });
    await expect(member.account.updateProject({ projectId, test_account_filters: [] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(owner.account.updateProject({ projectId, test_account_filters: [{ key: "email", operator: "sounds_like", value: "x", type: "person" }] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await owner.account.project({ projectId })).toMatchObject({ testAccountFilters: internal });
    await owner.account.updateProject({ projectId, test_account_filters: [] });
    expect(await owner.account.project({ projectId })).toMatchObject({ testAccountFilters: [] });
  });
});

describe(`a project's name and time zone (${testDbKind})`, () => {
  const project = restRoute("projects", "");
  const patch = (body: unknown, id = String(projectId)) => callRoute(project, "PATCH", `/api/projects/${id}/`, { project_id: id }, ownerKey, body);

  it("renames the project and sets PostHog's timezone through the REST API, and queries answer in it", async () => {
    const renamed = await patch({ name: "Shop", timezone: "Europe/Berlin" });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ id: projectId, name: "Shop", timezone: "Europe/Berlin" });
    expect(await owner.account.project({ projectId })).toMatchObject({ name: "Shop", timezone: "Europe/Berlin" });
    const computed = await computeQuery(db, projectId, { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-30", date_to: "2024-03-31" } });
    expect(computed.zone).toBe("Europe/Berlin");
  });

  it("through tRPC too; refuses unknown zones, wrong types and members", async () => {
    await owner.account.updateProject({ projectId, timezone: "America/New_York", name: "Shop US" });
    expect(await member.account.project({ projectId })).toMatchObject({ name: "Shop US", timezone: "America/New_York" });
    for (const timezone of ["Mars/Olympus", "utc+2", "", 5]) {
      const answer = await patch({ timezone });
      expect(answer.status, JSON.stringify(timezone)).toBe(400);
      expect(answer.body).toMatchObject({ type: "validation_error", attr: "timezone" });
    }
    await expect(owner.account.updateProject({ projectId, timezone: "Nowhere/Else" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(member.account.updateProject({ projectId, timezone: "UTC" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await patch({ name: "" })).status).toBe(400);
    expect(await owner.account.project({ projectId })).toMatchObject({ name: "Shop US", timezone: "America/New_York" });
    expect((await patch({ timezone: "UTC" })).body).toMatchObject({ timezone: "UTC" });
  });
});
