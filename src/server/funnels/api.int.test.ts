/**
 * A funnel through the real `POST /api/projects/:id/query/` route: PostHog's envelope with
 * Funnels' `isUdf`, and its 400 for an invalid step range.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRoute, createWorld, type World } from "@/test-support/dashboards-api";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { clearQueryCache } from "@/server/query/service";

const queryRoute = restRoute("projects", "query");
let db: Database;
let world: World;

const FUNNEL = {
  kind: "FunnelsQuery",
  series: [
    { kind: "EventsNode", event: "signed up" },
    { kind: "EventsNode", event: "paid", custom_name: "Paid" },
  ],
  dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" },
};

const post = (body: unknown) => callRoute(queryRoute, "POST", `/api/projects/${world.projectId}/query/`, { project_id: String(world.projectId) }, world.member.key, body);

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  world = await createWorld(db);
  const person = randomUUID();
  await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1::uuid, $2::int, '{}'::jsonb, now())`, [person, world.projectId]);
  const event = (name: string, at: string, personId?: string, distinctId = "u1") => ({
    uuid: randomUUID(),
    projectId: world.projectId,
    event: name,
    distinctId,
    personId,
    properties: {},
    timestamp: new Date(at),
  });
  await db.events.insert([
    event("signed up", "2024-03-01T10:00:00Z", person),
    event("paid", "2024-03-01T10:30:00Z", person),
    // No person: counted by distinct id.
    event("signed up", "2024-03-02T10:00:00Z", undefined, "anon"),
  ]);
  clearQueryCache(db);
});

afterAll(() => closeDb());

describe(`funnels through the query API (${testStoresName})`, () => {
  it("answers PostHog's envelope: step objects, isUdf, the resolved range, then from the cache", async () => {
    const answer = await post({ query: FUNNEL });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      isUdf: true,
      is_cached: false,
      timezone: "UTC",
      resolved_date_range: { date_from: "2024-03-01T00:00:00+00:00", date_to: "2024-03-03T23:59:59+00:00" },
      hogql: null,
      error: null,
    });
    expect(answer.body).not.toHaveProperty("columns");
    expect(answer.body.results).toEqual([
      { action_id: "signed up", name: "signed up", custom_name: null, order: 0, people: [], count: 2, type: "events", average_conversion_time: null, median_conversion_time: null },
      { action_id: "paid", name: "paid", custom_name: "Paid", order: 1, people: [], count: 1, type: "events", average_conversion_time: 1800, median_conversion_time: 1800 },
    ]);
    const again = await post({ query: { kind: "InsightVizNode", source: FUNNEL } });
    expect(again.body).toMatchObject({ is_cached: true, results: answer.body.results });
  });

  it("refuses an invalid step range with a 400 validation_error naming the field", async () => {
    const answer = await post({ query: { ...FUNNEL, funnelsFilter: { funnelToStep: 5 } } });
    expect([answer.status, answer.body.type, answer.body.attr]).toEqual([400, "validation_error", "query__funnelsFilter__funnelToStep"]);
    expect(answer.body.detail).toMatch(/funnelToStep is out of bounds/);
  });
});
