/**
 * Year-long daily retention (and a year of paths) must not stall the server (issue 32: 4 such queries at once held
 * `/_health` 3.2 s). 1,500 people active every third day of the last year, retention recurring
 * and cumulative over 366 days: counting is an actor per step that yields when its slice is
 * up, so `/_health` answers within a second while four run at once (a plain query on
 * PostgreSQL's main connections within two: not queued behind them), and the process gains
 * less than 300 MB. Through the real query route.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import type { StoredEventInput } from "@/server/db/events";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { duringStall } from "@/test-support/stall";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ACTORS = 1_500;
const DAY = 86_400_000;

let db: Database;
let projectId: number;
let key: string;

async function query(body: unknown): Promise<{ status: number; body: any }> {
  const handler = restRoute("projects", "query").POST as Handler;
  const request = new Request(`http://internal.test/api/projects/${projectId}/query/`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve({ project_id: String(projectId) }) });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "retention-stall@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  key = owner.personal_api_key;
  // Noon UTC of yesterday: an actor's 25 minutes of offsets never cross midnight, whenever the test runs.
  const noon = Math.floor(Date.now() / DAY) * DAY - DAY / 2;
  let rows: StoredEventInput[] = [];
  for (let day = 1; day <= 365; day += 3) {
    for (let actor = 0; actor < ACTORS; actor++) {
      rows.push({ uuid: randomUUID(), projectId, event: "$pageview", distinctId: `person-${actor}`, properties: { $current_url: `https://example.com/${(day + actor) % 60}` }, timestamp: new Date(noon - day * DAY + actor * 1_000) });
    }
    if (rows.length >= 20_000) {
      await db.events.insert(rows);
      rows = [];
    }
  }
  if (rows.length > 0) await db.events.insert(rows);
  await db.sql.exec("ANALYZE");
}, 300_000);

afterAll(async () => {
  await closeDb();
});

describe(`year-long daily retention (${testStoresName})`, () => {
  it("four at once leave /_health answering within a second (and, on PostgreSQL, the main connections within two)", async () => {
    const retention = (totalIntervals: number) => ({
      query: { kind: "RetentionQuery", dateRange: { date_from: "-366d" }, retentionFilter: { period: "Day", totalIntervals, retentionType: "retention_recurring", cumulative: true } },
      refresh: true,
    });
    const stall = await duringStall(() => Promise.all([366, 365, 364, 363].map((intervals) => query(retention(intervals)))));
    const answers = stall.outcome.ok ? stall.outcome.value : [];
    console.log(`4 retention queries: ${answers.map((answer) => answer.status).join(", ")} in ${Math.round(stall.ms)} ms, /_health at most ${Math.round(stall.healthMs)} ms, main-connection query ${Math.round(stall.queryMs)} ms, RSS +${Math.round(stall.rssMb)} MB`);
    expect({ health: stall.healthMs < 1_000, memory: stall.rssMb < 300 }).toEqual({ health: true, memory: true });
    // Left (issue 32): on the embedded database a query of the main connections waits behind
    // the retention read's one statement on the one connection (2.1 s measured under load);
    // on PostgreSQL the analytical reads have connections of their own. Queued behind them it
    // would wait about the whole stall (4-6 s); the bound leaves room for the event loop's lag
    // (up to /_health's second, which counts in queryMs: 1,024 ms once, with /_health at 562 ms),
    // and grows with the stall on a slower machine: half of it, which a queued query exceeds.
    if (!db.sql.embedded) expect(stall.queryMs).toBeLessThan(Math.max(2_000, stall.ms / 2));
    // On the embedded database's one connection the last may wait past the analytical budget:
    // PostHog's 429 query_timeout then, never a 500.
    expect(answers.map((answer) => answer.status)).toHaveLength(4);
    expect(answers.every((answer) => answer.status === 200 || (answer.status === 429 && answer.body.code === "query_timeout"))).toBe(true);
    expect(answers[0]!.status).toBe(200);
    // Day 0 of the first cohort: every person (each came back every third day).
    expect(answers[0]!.body.results.find((row: { values: { count: number }[] }) => row.values[0]!.count > 0).values[0].count).toBe(ACTORS);
  }, 300_000);

  it("a year of paths over the same page views leaves /_health answering within a second", async () => {
    const paths = { query: { kind: "PathsQuery", dateRange: { date_from: "-366d" }, pathsFilter: { includeEventTypes: ["$pageview"], stepLimit: 10 } }, refresh: true };
    const stall = await duringStall(() => query(paths));
    const answer = stall.outcome.ok ? stall.outcome.value : null;
    console.log(`paths: ${answer?.status} in ${Math.round(stall.ms)} ms, /_health at most ${Math.round(stall.healthMs)} ms, RSS +${Math.round(stall.rssMb)} MB`);
    expect(answer?.status === 200 || (answer?.status === 429 && answer.body.code === "query_timeout")).toBe(true);
    expect({ health: stall.healthMs < 1_000, memory: stall.rssMb < 300 }).toEqual({ health: true, memory: true });
  }, 300_000);
});
