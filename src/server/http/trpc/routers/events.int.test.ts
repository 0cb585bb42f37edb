/** events.list / events.get over tRPC: the REST list's filters, parsing and cursor. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { insertTestCohort } from "@/test-support/cohorts";
import { sendBatch } from "@/test-support/ingestion";

let db: Database;
let projectId: number;
let api: ReturnType<typeof createCaller>;
const T0 = Date.parse("2024-03-01T00:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "explorer@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "explorer@example.com" } });
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
  const batch = [
    { event: "$pageview", distinct_id: "alice", timestamp: at(1), properties: { $browser: "Chrome", plan: "pro" } },
    { event: "$identify", distinct_id: "alice", timestamp: at(2), properties: { $set: { email: "alice@example.com" } } },
    { event: "purchase", distinct_id: "alice", timestamp: at(3), properties: { plan: "pro", price: 20 } },
    { event: "purchase", distinct_id: "bob", timestamp: at(4), properties: { plan: "free", price: 5 } },
    { event: "$pageview", distinct_id: "bob", timestamp: at(5), properties: { $browser: "Safari" } },
  ].map((e) => ({ uuid: randomUUID(), ...e }));
  await sendBatch(owner.project_api_key, batch);
});

afterAll(async () => {
  await closeDb();
});

describe(`events router (${testDbKind})`, () => {
  it("lists newest first and pages with the cursor", async () => {
    const first = await api.events.list({ projectId, limit: 2 });
    expect(first.results.map((e) => e.timestamp)).toEqual([at(5), at(4)]);
    expect(first.next).toEqual({ before: at(4), beforeUuid: first.results[1]!.id });
    const second = await api.events.list({ projectId, limit: 2, cursor: first.next });
    expect(second.results.map((e) => e.timestamp)).toEqual([at(3), at(2)]);
    const third = await api.events.list({ projectId, limit: 2, cursor: second.next });
    expect(third.results.map((e) => e.timestamp)).toEqual([at(1)]);
    expect(third.next).toBeNull();
  });

  it("lists a property's seen values, most frequent first, by prefix and event (the /web host filter)", async () => {
    expect(await api.events.values({ projectId, key: "plan" })).toEqual([{ name: "pro" }, { name: "free" }]);
    expect(await api.events.values({ projectId, key: "plan", prefix: "FR" })).toEqual([{ name: "free" }]);
    expect(await api.events.values({ projectId, key: "$browser", eventName: "$pageview" })).toEqual([{ name: "Chrome" }, { name: "Safari" }]);
    expect(await api.events.values({ projectId, key: "plan", eventName: "$pageview" })).toEqual([{ name: "pro" }]);
    await expect(api.events.values({ projectId, key: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("filters by event, distinct id, time and properties as the REST list does", async () => {
    const names = async (input: Parameters<typeof api.events.list>[0]) => (await api.events.list(input)).results.map((e) => `${e.event}/${e.distinct_id}`);
    expect(await names({ projectId, event: "purchase" })).toEqual(["purchase/bob", "purchase/alice"]);
    expect(await names({ projectId, distinctId: "bob" })).toEqual(["$pageview/bob", "purchase/bob"]);
    expect(await names({ projectId, after: at(3), before: at(5) })).toEqual(["purchase/bob"]);
    expect(await names({ projectId, properties: [{ key: "plan", operator: "exact", value: "pro" }] })).toEqual(["purchase/alice", "$pageview/alice"]);
    expect(await names({ projectId, properties: [{ key: "price", operator: "gt", value: "10" }] })).toEqual(["purchase/alice"]);
    expect(await names({ projectId, properties: [{ key: "email", operator: "icontains", value: "alice", type: "person" }, { key: "", operator: "exact" }] })).toHaveLength(3);
    expect(await names({ projectId, event: "  ", after: "" })).toHaveLength(5);
  });

  it("answers a bad filter with the REST list's 400 message", async () => {
    await expect(api.events.list({ projectId, after: "yesterday" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^after must be/) });
    await expect(api.events.list({ projectId, properties: [{ key: "x", operator: "regex", value: "(" }] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("counts the filter's matches, with the list's checks", async () => {
    expect(await api.events.count({ projectId })).toEqual({ count: 5, capped: false });
    expect(await api.events.count({ projectId, event: "purchase", properties: [{ key: "plan", operator: "exact", value: "pro" }] })).toEqual({ count: 1, capped: false });
    expect(await api.events.count({ projectId, distinctId: "bob", after: at(3) })).toEqual({ count: 2, capped: false });
    await expect(api.events.count({ projectId, properties: [{ key: "plan", operator: "regex", value: "(" }] })).rejects.toThrow(/regular expression/);
    await expect(api.events.count({ projectId, after: "yesterday-ish" })).rejects.toThrow(/after/);
  });

  it("gets one event with its person, and 404s an unknown id", async () => {
    const [latest] = (await api.events.list({ projectId, distinctId: "alice", limit: 1 })).results;
    const event = await api.events.get({ projectId, id: latest!.id });
    expect(event.event).toBe("purchase");
    expect(event.person?.distinct_ids).toContain("alice");
    expect(event.person?.properties).toMatchObject({ email: "alice@example.com" });
    await expect(api.events.get({ projectId, id: randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(api.events.get({ projectId: projectId + 1000, id: latest!.id })).rejects.toMatchObject({ code: expect.stringMatching(/NOT_FOUND|FORBIDDEN/) });
  });

  it("offers the project's live cohorts by name, and filters by them and by a person (uuid or integer id)", async () => {
    const { organizationId } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    const other = (await db.prisma.project.create({ data: { organizationId, name: "Other", apiToken: "phc_explorer_other" } })).id;
    const cohort = (project: number, name: string, distinctIds: string[], deleted = false) => insertTestCohort(db.sql, project, name, { distinctIds, deleted });
    const bobs = await cohort(projectId, "bobs", ["bob"]);
    const alices = await cohort(projectId, "Alices", ["alice"]);
    await cohort(projectId, "gone", ["bob"], true);
    const elsewhere = await cohort(other, "another project's", []);
    expect(await api.events.cohorts({ projectId })).toEqual([
      { id: alices, name: "Alices" },
      { id: bobs, name: "bobs" },
    ]);

    const names = async (input: Parameters<typeof api.events.list>[0]) => (await api.events.list(input)).results.map((e) => `${e.event}/${e.distinct_id}`);
    expect(await names({ projectId, properties: [{ type: "cohort", cohortId: bobs }] })).toEqual(["$pageview/bob", "purchase/bob"]);
    expect(await names({ projectId, properties: [{ type: "cohort", cohortId: bobs, operator: "not_in" }, { key: "plan", operator: "is_set" }] })).toEqual(["purchase/alice", "$pageview/alice"]);
    expect(await names({ projectId, properties: [{ type: "cohort", cohortId: 0 }] })).toHaveLength(5);
    await expect(api.events.list({ projectId, properties: [{ type: "cohort", cohortId: elsewhere }] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: `properties: cohort ${elsewhere} does not exist in this project (or was deleted).`,
    });

    const [person] = await db.sql.query<{ uuid: string; id: number }>(
      `SELECT p.uuid::text AS uuid, p.id FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = 'bob'`,
      [projectId],
    );
    expect(await names({ projectId, personId: person!.uuid })).toEqual(["$pageview/bob", "purchase/bob"]);
    expect(await names({ projectId, personId: String(person!.id) })).toEqual(["$pageview/bob", "purchase/bob"]);
    await expect(api.events.list({ projectId, personId: "bob" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: "person_id must be a person's uuid or integer id." });
  });
});
