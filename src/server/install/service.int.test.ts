/**
 * install.sendTestEvent: a `$test_event` through the capture pipeline, stored like an SDK's
 * event but counted by no analytics (issue 34).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { createCaller } from "@/server/http/trpc/root";
import { TEST_EVENT } from "@/server/db/events";
import { sendBatch } from "@/test-support/ingestion";
import { TEST_EVENT_LIB } from "./contract";

let db: Database;
let projectId: number;
let projectKey: string;
let api: ReturnType<typeof createCaller>;
let userUuid: string;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "first-run@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  projectKey = owner.project_api_key;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "first-run@example.com" } });
  userUuid = user.uuid;
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
});

afterAll(async () => {
  await closeDb();
});

const run = async (query: Record<string, unknown>) => (await api.query.run({ projectId, request: { query, refresh: "force_blocking" } })).results as unknown;
const total = (series: unknown) => (series as { data: number[] }[]).reduce((sum, one) => sum + one.data.reduce((a, b) => a + b, 0), 0);

describe(`the test event (${testDbKind})`, () => {
  it("is stored as a $test_event marked $test, of the page's origin, without a person or a session", async () => {
    expect((await api.events.list({ projectId, limit: 1 })).results).toHaveLength(0);
    const sent = await api.install.sendTestEvent({ projectId, origin: "http://burrow.example:8000" });
    expect(sent).toMatchObject({ event: TEST_EVENT, distinctId: `burrow-test-${userUuid}` });
    expect(TEST_EVENT).toBe("$test_event");

    const { results } = await api.events.list({ projectId, limit: 10 });
    expect(results).toHaveLength(1);
    const stored = results[0]!;
    expect(stored).toMatchObject({ id: sent.uuid, event: "$test_event", distinct_id: sent.distinctId, timestamp: sent.timestamp });
    expect(stored.properties).toMatchObject({ $current_url: "http://burrow.example:8000/", $host: "burrow.example:8000", $pathname: "/", $lib: TEST_EVENT_LIB, $test: true });
    expect(stored.properties.$session_id).toBeUndefined();
    expect(stored.person).toBeNull();
  });

  it("counts nowhere: all-events trends, lifecycle, stickiness, funnels, retention, paths, /web, persons, flag reach", async () => {
    const range = { date_from: "-1d" };
    const anyEvent = [{ kind: "EventsNode", event: null }];
    expect(total(await run({ kind: "TrendsQuery", series: anyEvent, dateRange: range }))).toBe(0);
    expect(total(await run({ kind: "TrendsQuery", series: [{ kind: "EventsNode", event: null, math: "dau" }], dateRange: range }))).toBe(0);
    expect(total(await run({ kind: "StickinessQuery", series: anyEvent, dateRange: range }))).toBe(0);
    expect(total(await run({ kind: "LifecycleQuery", series: anyEvent, dateRange: range }))).toBe(0);
    const funnel = (await run({ kind: "FunnelsQuery", series: [...anyEvent, ...anyEvent], dateRange: range })) as { count: number }[];
    expect(funnel.map((step) => step.count)).toEqual([]);
    const retention = (await run({
      kind: "RetentionQuery",
      dateRange: range,
      retentionFilter: { targetEntity: { id: null, type: "events" }, returningEntity: { id: null, type: "events" } },
    })) as { values: { count: number }[] }[];
    expect(retention.flatMap((row) => row.values.map((cell) => cell.count)).every((count) => count === 0)).toBe(true);
    expect(await run({ kind: "PathsQuery", dateRange: range, pathsFilter: { includeEventTypes: ["$pageview", "custom_event"] } })).toEqual([]);
    const overview = (await run({ kind: "WebOverviewQuery", properties: [], dateRange: range })) as { key: string; value: number | null }[];
    expect(overview.find((item) => item.key === "visitors")?.value ?? 0).toBe(0);
    expect(overview.find((item) => item.key === "views")?.value ?? 0).toBe(0);
    expect((await api.web.liveVisitors({ projectId })).visitors).toBe(0);
    expect((await api.persons.list({ projectId })).results).toHaveLength(0);
    const reach = await api.flags.reach({ projectId, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    expect(reach).toMatchObject({ total: 0 });
  });

  it("leaves real events counted as before, sent twice still no person", async () => {
    await api.install.sendTestEvent({ projectId, origin: "https://burrow.example" });
    await sendBatch(projectKey, [{ event: "$pageview", distinct_id: "real", uuid: randomUUID(), properties: { $current_url: "https://shop.example/" } }]);
    expect((await api.events.list({ projectId, limit: 10 })).results).toHaveLength(3);
    expect(total(await run({ kind: "TrendsQuery", series: [{ kind: "EventsNode", event: null }], dateRange: { date_from: "-1d" } }))).toBe(1);
    expect((await api.web.liveVisitors({ projectId })).visitors).toBe(1);
    expect((await api.persons.list({ projectId })).results).toHaveLength(1);
  });

  it("refuses what is not an origin, and other projects", async () => {
    for (const origin of ["burrow.example", "http://burrow.example/path", "javascript:alert(1)", "http://user@evil.example", `http://${"a".repeat(400)}`]) {
      await expect(api.install.sendTestEvent({ projectId, origin })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
    await expect(api.install.sendTestEvent({ projectId: projectId + 1000, origin: "https://burrow.example" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await api.events.list({ projectId, limit: 10 })).results).toHaveLength(3);
  });
});
