/**
 * Queries that must not stall the server (issue 32): while each runs, `/_health` and a plain
 * query on the main connections answer within a second and the process gains less than
 * 300 MB. Through the real route handler with a personal API key.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/server/db/testing";
import { restRoute } from "@/server/http/rest/routes.fixture";
import { duringStall } from "@/server/http/stall.fixture";
import { clearQueryCache } from "./service";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: Database;
let projectId: number;
let key: string;

async function query(body: unknown, signal?: AbortSignal): Promise<{ status: number; body: any }> {
  const handler = restRoute("projects", "query").POST as Handler;
  const request = new Request(`http://internal.test/api/projects/${projectId}/query/`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  const response = await handler(request, { params: Promise.resolve({ project_id: String(projectId) }) });
  return { status: response.status, body: await response.json() };
}

/** The reproduction: page views broken down by a property every event has its own value of. */
const SESSION_BREAKDOWN = {
  query: {
    kind: "TrendsQuery",
    series: [{ kind: "EventsNode", event: "$pageview" }],
    dateRange: { date_from: "-5d" },
    breakdownFilter: { breakdown: "$session_id", breakdown_type: "event" },
  },
  refresh: true,
};

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "stalls@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
  // Planned without statistics first: nothing analyzes these events until the test does.
  await db.statistics.close();
  const now = Date.now();
  await db.events.insert(
    Array.from({ length: 8_000 }, (_, i) => ({
      uuid: randomUUID(),
      projectId,
      event: "$pageview",
      distinctId: `visitor-${i % 700}`,
      properties: { $session_id: `session-${i}`, $current_url: `https://example.com/${i % 40}` },
      timestamp: new Date(now - (i % 4) * 86_400_000 - 60_000 - i),
    })),
  );
  // The sessions the events opened are merged on the first read: not part of what is timed.
  await db.events.trend(projectId, { event: null, filters: [], math: "total", from: new Date(now - 86_400_000), to: new Date(now), zone: "UTC", interval: null, breakdown: null, now: new Date(now) });
}, 120_000);

afterAll(async () => {
  await closeDb();
});

describe(`queries that would stall the server (${testStoresName})`, () => {
  it("a breakdown by $session_id over 8,000 events answers in under a second, without statistics and with them", async () => {
    for (const analyzed of [false, true]) {
      if (analyzed) await db.sql.exec("ANALYZE");
      clearQueryCache();
      const stall = await duringStall(() => query(SESSION_BREAKDOWN));
      expect(stall.outcome.ok && stall.outcome.value.status).toBe(200);
      const results = (stall.outcome as { ok: true; value: { body: { results: { breakdown_value: string }[] } } }).value.body.results;
      // The values kept, and "other" for the thousands folded.
      expect(results.at(-1)!.breakdown_value).toBe("$$_posthog_breakdown_other_$$");
      expect({ analyzed, fast: stall.ms < 1_000, health: stall.healthMs < 1_000, query: stall.queryMs < 1_000, memory: stall.rssMb < 300 }).toEqual({
        analyzed,
        fast: true,
        health: true,
        query: true,
        memory: true,
      });
    }
  });
});
