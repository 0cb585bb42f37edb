/**
 * Groups: $groupidentify / $group_identify through the capture handler and GroupsService
 * on a real database — group type indexes 0–4, property merging, the five-type limit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { handleCaptureEvents } from "@/server/http/capture";
import { MAX_GROUP_TYPES } from "./contract";
import { GroupsService } from "./service";

let db: Database;
let organizationId: string;
let projectCount = 0;

async function newProject(): Promise<{ id: number; key: string }> {
  const key = `phc_groups_${++projectCount}_${Math.random().toString(36).slice(2, 8)}`;
  const project = await db.prisma.project.create({ data: { organizationId, name: `G${projectCount}`, apiToken: key } });
  return { id: project.id, key };
}

async function capture(key: string, event: Record<string, unknown>) {
  const response = await handleCaptureEvents(
    new Request("http://burrow.test/capture/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: key, ...event }) }),
  );
  return { status: response.status, body: await response.text() };
}

const groupIdentify = (key: string, type: unknown, groupKey: unknown, set?: unknown, event = "$groupidentify") =>
  capture(key, { event, distinct_id: "group-admin", properties: { $group_type: type, $group_key: groupKey, ...(set === undefined ? {} : { $group_set: set }) } });

async function mappings(projectId: number) {
  return db.sql.query<{ group_type: string; group_type_index: number }>(
    `SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1 ORDER BY group_type_index`,
    [projectId],
  );
}

async function groupsOf(projectId: number) {
  return db.sql.query<{ group_type_index: number; group_key: string; group_properties: Record<string, unknown> }>(
    `SELECT group_type_index, group_key, group_properties FROM groups WHERE project_id = $1 ORDER BY group_type_index, group_key`,
    [projectId],
  );
}

async function eventCount(projectId: number, event: string) {
  const [row] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND event = $2`, [projectId, event]);
  return row!.n;
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  organizationId = (await bootstrap(db.prisma, { email: "groups@example.com", password: "pw12345678" })).organization_id;
});

afterAll(async () => {
  await closeDb();
});

describe(`groups (${testDbKind})`, () => {
  it("maps the first group type to index 0 and creates the group with its properties", async () => {
    const project = await newProject();
    expect((await groupIdentify(project.key, "company", "acme", { name: "Acme", size: 10 })).status).toBe(200);
    expect(await mappings(project.id)).toEqual([{ group_type: "company", group_type_index: 0 }]);
    expect(await groupsOf(project.id)).toEqual([{ group_type_index: 0, group_key: "acme", group_properties: { name: "Acme", size: 10 } }]);
    expect(await eventCount(project.id, "$groupidentify")).toBe(1);
  });

  it("accepts the $group_identify spelling", async () => {
    const project = await newProject();
    expect((await groupIdentify(project.key, "team", "t1", { a: 1 }, "$group_identify")).status).toBe(200);
    expect(await mappings(project.id)).toEqual([{ group_type: "team", group_type_index: 0 }]);
    expect(await groupsOf(project.id)).toEqual([{ group_type_index: 0, group_key: "t1", group_properties: { a: 1 } }]);
    expect(await eventCount(project.id, "$group_identify")).toBe(1);
  });

  it("gives the next types indexes 1 to 4, and a sixth type no mapping, still storing its event", async () => {
    const project = await newProject();
    const types = ["company", "team", "workspace", "org", "region", "sixth"];
    for (const type of types) {
      const response = await groupIdentify(project.key, type, `${type}-key`, { t: type });
      expect(response.status).toBe(200);
      expect(response.body).toBe('{"status":1}');
    }
    expect(await mappings(project.id)).toEqual(types.slice(0, MAX_GROUP_TYPES).map((group_type, group_type_index) => ({ group_type, group_type_index })));
    const groups = await groupsOf(project.id);
    expect(groups.map((g) => g.group_key)).toEqual(["company-key", "team-key", "workspace-key", "org-key", "region-key"]);
    expect(await eventCount(project.id, "$groupidentify")).toBe(6);
  });

  it("keeps a type's index when it is seen again", async () => {
    const project = await newProject();
    await groupIdentify(project.key, "company", "a");
    await groupIdentify(project.key, "team", "b");
    await groupIdentify(project.key, "company", "c");
    expect(await mappings(project.id)).toEqual([
      { group_type: "company", group_type_index: 0 },
      { group_type: "team", group_type_index: 1 },
    ]);
    expect((await groupsOf(project.id)).map((g) => [g.group_type_index, g.group_key])).toEqual([[0, "a"], [0, "c"], [1, "b"]]);
  });

  it("merges $group_set into the existing group's properties", async () => {
    const project = await newProject();
    await groupIdentify(project.key, "company", "acme", { name: "Acme", plan: "free" });
    await groupIdentify(project.key, "company", "acme", { plan: "pro", seats: 5 });
    await groupIdentify(project.key, "company", "acme");
    expect(await groupsOf(project.id)).toEqual([{ group_type_index: 0, group_key: "acme", group_properties: { name: "Acme", plan: "pro", seats: 5 } }]);
  });

  it("stringifies a numeric group key", async () => {
    const project = await newProject();
    await groupIdentify(project.key, "company", 42, { n: 1 });
    expect((await groupsOf(project.id)).map((g) => g.group_key)).toEqual(["42"]);
  });

  it("stores the event but no group when $group_type or $group_key is missing", async () => {
    const project = await newProject();
    expect((await groupIdentify(project.key, undefined, "k")).status).toBe(200);
    expect((await groupIdentify(project.key, "company", null)).status).toBe(200);
    expect((await groupIdentify(project.key, 7, "k")).status).toBe(200);
    expect(await mappings(project.id)).toEqual([]);
    expect(await groupsOf(project.id)).toEqual([]);
    expect(await eventCount(project.id, "$groupidentify")).toBe(3);
  });

  it("keeps the group types of projects apart", async () => {
    const a = await newProject();
    const b = await newProject();
    await groupIdentify(a.key, "company", "x");
    await groupIdentify(b.key, "team", "y");
    expect(await mappings(a.id)).toEqual([{ group_type: "company", group_type_index: 0 }]);
    expect(await mappings(b.id)).toEqual([{ group_type: "team", group_type_index: 0 }]);
  });

  it("maps five new types registered concurrently to distinct indexes 0–4", async () => {
    const project = await newProject();
    const types = ["c1", "c2", "c3", "c4", "c5"];
    const responses = await Promise.all(types.map((type) => groupIdentify(project.key, type, `${type}-k`, { v: 1 })));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const rows = await mappings(project.id);
    expect(rows.map((r) => r.group_type_index)).toEqual([0, 1, 2, 3, 4]);
    expect(rows.map((r) => r.group_type).sort()).toEqual(types);
    expect(await groupsOf(project.id)).toHaveLength(5);
  });

  it("maps concurrent new types through separate services (separate processes) without losing one", async () => {
    const project = await newProject();
    const services = Array.from({ length: 5 }, () => new GroupsService(db.sql));
    const indexes = await Promise.all(services.map((s, i) => s.groupTypeIndex(project.id, `type${i}`)));
    expect([...indexes].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await new GroupsService(db.sql).groupTypeIndex(project.id, "sixth")).toBeNull();
  });

  it("merges concurrent $group_set of different keys on one group", async () => {
    const project = await newProject();
    await groupIdentify(project.key, "company", "acme", { base: true });
    await Promise.all(Array.from({ length: 20 }, (_, i) => groupIdentify(project.key, "company", "acme", { [`k${i}`]: i })));
    const [group] = await groupsOf(project.id);
    expect(group!.group_properties).toEqual({ base: true, ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])) });
  });
});
