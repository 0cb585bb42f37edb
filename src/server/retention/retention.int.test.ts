/**
 * Retention over fixed sets of events with answers worked out by hand: PostHog's
 * `test_day_interval` reproduced exactly (a person with two distinct ids), first-time
 * against recurring cohorts, weeks from Sunday and months, cumulative counts, the actors of
 * a cohort, refused fields, and one query through the REST endpoint.
 */
import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import type { QueryEnv } from "@/server/analytics/kind";
import { restRoute } from "@/test-support/rest-routes";
import { retentionKind, type RetentionRow } from "./service";

let db: Database;
let projectId: number;
let otherProjectId: number;
let apiKey: string;
const queryRoute = restRoute("projects", "query");

const p1 = "0190b000-0000-7000-8000-000000000001";
const p2 = "0190b000-0000-7000-8000-000000000002";
const q1 = "0190b000-0000-7000-8000-0000000000a1";
const q2 = "0190b000-0000-7000-8000-0000000000a2";
const q3 = "0190b000-0000-7000-8000-0000000000a3";

async function insertPerson(project: number, uuid: string, distinctIds: string[]): Promise<void> {
  const [row] = await db.sql.query<{ id: number }>(`INSERT INTO persons (uuid, project_id, properties, updated_at) VALUES ($1::uuid, $2::int, '{}', now()) RETURNING id`, [uuid, project]);
  for (const distinctId of distinctIds) {
    await db.sql.query(`INSERT INTO person_distinct_ids (project_id, person_id, distinct_id) VALUES ($1, $2, $3)`, [project, row!.id, distinctId]);
  }
}

type Sent = [person: string | null, distinctId: string, event: string, timestamp: string, properties?: Record<string, unknown>];

async function insertEvents(project: number, events: Sent[]): Promise<void> {
  await db.events.insert(
    events.map(([personId, distinctId, event, timestamp, properties]) => ({
      uuid: uuidv7(),
      projectId: project,
      event,
      distinctId,
      personId,
      properties: properties ?? {},
      timestamp: new Date(timestamp.endsWith("Z") ? timestamp : `${timestamp}Z`),
    })),
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "retention@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Weeks", apiToken: `phc_${randomUUID()}` } })).id;

  // PostHog's test_day_interval: person1 (also known as alias1) and person2.
  await insertPerson(projectId, p1, ["person1", "alias1"]);
  await insertPerson(projectId, p2, ["person2"]);
  await insertEvents(projectId, [
    [p1, "person1", "$pageview", "2020-06-10T00:00:00"],
    [p1, "alias1", "$pageview", "2020-06-11T00:00:00"],
    [p1, "person1", "$pageview", "2020-06-12T00:00:00"],
    [p1, "alias1", "$pageview", "2020-06-15T00:00:00"],
    [p1, "person1", "$pageview", "2020-06-16T00:00:00"],
    [p2, "person2", "$pageview", "2020-06-11T00:00:00"],
    [p2, "person2", "$pageview", "2020-06-12T00:00:00"],
    [p2, "person2", "$pageview", "2020-06-13T00:00:00"],
    [p2, "person2", "$pageview", "2020-06-16T00:00:00"],
  ]);

  // Weeks (from Sunday: 3, 10, 17, 24 March 2024) and months.
  for (const [uuid, id] of [[q1, "q1"], [q2, "q2"], [q3, "q3"]] as const) await insertPerson(otherProjectId, uuid, [id]);
  await insertEvents(otherProjectId, [
    [q1, "q1", "signup", "2024-03-04T10:00:00", { plan: "pro" }],
    [q1, "q1", "purchase", "2024-03-12T10:00:00"],
    [q1, "q1", "purchase", "2024-03-26T10:00:00"],
    [q2, "q2", "signup", "2024-03-09T23:00:00", { plan: "free" }],
    [q2, "q2", "purchase", "2024-03-10T01:00:00"],
    [q3, "q3", "signup", "2024-02-20T10:00:00", { plan: "free" }],
    [q3, "q3", "signup", "2024-03-11T10:00:00", { plan: "pro" }],
    [q3, "q3", "purchase", "2024-03-18T10:00:00"],
  ]);
});

afterAll(() => closeDb());

const envOf = (project: number): QueryEnv => ({ db, projectId: project, zone: "UTC", now: new Date("2024-06-01T00:00:00Z") });

async function retention(project: number, node: Record<string, unknown>): Promise<RetentionRow[]> {
  const answer = await retentionKind.compute(envOf(project), retentionKind.spec({ kind: "RetentionQuery", ...node }, null));
  return answer.results as RetentionRow[];
}

const counts = (rows: RetentionRow[]) => rows.map((row) => row.values.map((value) => value.count));

const pad = (values: number[], length: number) => [...values, ...new Array<number>(length - values.length).fill(0)];

const weekly = (retentionFilter: Record<string, unknown>) => ({
  dateRange: { date_from: "2024-03-03", date_to: "2024-03-30" },
  retentionFilter: { period: "Week", totalIntervals: 4, targetEntity: { id: "signup", type: "events" }, returningEntity: { id: "purchase", type: "events" }, ...retentionFilter },
});

const pro = [{ type: "event", key: "plan", operator: "exact", value: ["pro"] }];

describe(`RetentionQuery (${testStoresName})`, () => {
  it("reproduces PostHog's test_day_interval: eleven daily cohorts from 10 June, a person counted once across two distinct ids", async () => {
    const rows = await retention(projectId, { dateRange: { date_to: "2020-06-20T06:00:00" }, retentionFilter: { totalIntervals: 11, period: "Day" } });
    expect(counts(rows)).toEqual([
      [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0],
      [2, 2, 1, 0, 1, 2, 0, 0, 0, 0, 0],
      pad([2, 1, 0, 1, 2], 11),
      pad([1, 0, 0, 1], 11),
      pad([], 11),
      pad([1, 1], 11),
      pad([2], 11),
      pad([], 11),
      pad([], 11),
      pad([], 11),
      pad([], 11),
    ]);
    expect(rows.map((row) => row.label)).toEqual(Array.from({ length: 11 }, (_, i) => `Day ${i}`));
    expect(rows[0]).toEqual({
      values: Array.from({ length: 11 }, (_, i) => ({ count: [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0][i], label: `Day ${i}` })),
      label: "Day 0",
      date: "2020-06-10T00:00:00Z",
      breakdown_value: null,
    });
    expect(rows.at(-1)!.date).toBe("2020-06-20T00:00:00Z");
  });

  it("puts each person only in the cohort of their first event with retention_first_time", async () => {
    const rows = await retention(projectId, { dateRange: { date_to: "2020-06-20T06:00:00" }, retentionFilter: { totalIntervals: 11, retentionType: "retention_first_time" } });
    expect(counts(rows).slice(0, 3)).toEqual([[1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0], pad([1, 1, 1, 0, 0, 1], 11), pad([], 11)]);
    expect(counts(rows).slice(2).flat().every((n) => n === 0)).toBe(true);
  });

  it("defaults to 7 daily intervals ending with date_to's day", async () => {
    const rows = await retention(projectId, { dateRange: { date_to: "2020-06-16" } });
    expect(rows.map((row) => row.date)).toEqual(["2020-06-10", "2020-06-11", "2020-06-12", "2020-06-13", "2020-06-14", "2020-06-15", "2020-06-16"].map((d) => `${d}T00:00:00Z`));
    expect(rows[0]!.values).toHaveLength(7);
    expect(counts(rows)[1]).toEqual([2, 2, 1, 0, 1, 2, 0]);
  });

  it("counts weeks from Sunday, with the returning event apart from the target", async () => {
    const rows = await retention(otherProjectId, weekly({}));
    expect(counts(rows)).toEqual([
      [2, 2, 0, 1],
      [1, 1, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    expect(rows.map((row) => [row.label, row.date])).toEqual([
      ["Week 0", "2024-03-03T00:00:00Z"],
      ["Week 1", "2024-03-10T00:00:00Z"],
      ["Week 2", "2024-03-17T00:00:00Z"],
      ["Week 3", "2024-03-24T00:00:00Z"],
    ]);
    expect(rows[0]!.values.map((value) => value.label)).toEqual(["Week 0", "Week 1", "Week 2", "Week 3"]);
  });

  it("counts a person in every interval up to their last return when cumulative", async () => {
    expect(counts(await retention(otherProjectId, weekly({ cumulative: true }))).slice(0, 2)).toEqual([
      [2, 2, 1, 1],
      [1, 1, 0, 0],
    ]);
  });

  it("leaves out persons whose first target event came before the range (first time), and tells first matching from first ever", async () => {
    expect(counts(await retention(otherProjectId, weekly({ retentionType: "retention_first_time" }))).slice(0, 2)).toEqual([
      [2, 2, 0, 1],
      [0, 0, 0, 0],
    ]);
    // q3's first pro signup is on 11 March; their first signup ever (20 February) was not pro.
    const proTarget = { id: "signup", type: "events", properties: pro };
    expect(counts(await retention(otherProjectId, weekly({ retentionType: "retention_first_time", targetEntity: proTarget }))).slice(0, 2)).toEqual([
      [1, 1, 0, 1],
      [1, 1, 0, 0],
    ]);
    expect(counts(await retention(otherProjectId, weekly({ retentionType: "retention_first_ever_occurrence", targetEntity: proTarget }))).slice(0, 2)).toEqual([
      [1, 1, 0, 1],
      [0, 0, 0, 0],
    ]);
  });

  it("applies the query's property filters to both entities", async () => {
    expect(counts(await retention(otherProjectId, { ...weekly({}), properties: pro }))[0]).toEqual([1, 0, 0, 0]);
  });

  it("counts months, returns after the window's end left out", async () => {
    const rows = await retention(otherProjectId, { dateRange: { date_to: "2024-03-31" }, retentionFilter: { period: "Month", totalIntervals: 2, targetEntity: { id: "signup" }, returningEntity: { id: "purchase" } } });
    expect(rows.map((row) => [row.label, row.date])).toEqual([
      ["Month 0", "2024-02-01T00:00:00Z"],
      ["Month 1", "2024-03-01T00:00:00Z"],
    ]);
    expect(counts(rows)).toEqual([
      [1, 1],
      [3, 0],
    ]);
  });

  it("counts hours", async () => {
    const rows = await retention(otherProjectId, {
      dateRange: { date_from: "2024-03-09T23:00:00", date_to: "2024-03-10T01:00:00" },
      retentionFilter: { period: "Hour", totalIntervals: 3, targetEntity: { id: "signup" }, returningEntity: { id: "purchase" } },
    });
    expect(rows.map((row) => row.date)).toEqual(["2024-03-09T23:00:00Z", "2024-03-10T00:00:00Z", "2024-03-10T01:00:00Z"]);
    expect(counts(rows)).toEqual([
      [1, 0, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it("writes cohort dates with the project's offset", async () => {
    const env = { ...envOf(otherProjectId), zone: "America/New_York" };
    const answer = await retentionKind.compute(env, retentionKind.spec({ kind: "RetentionQuery", ...weekly({}) }, null));
    const rows = answer.results as RetentionRow[];
    expect(rows[0]!.date).toBe("2024-03-03T00:00:00-05:00");
    // q2's Saturday 23:00 UTC signup is Saturday evening in New York still; their purchase (Sunday 01:00 UTC) is Saturday there too.
    expect(counts(rows)[0]).toEqual([2, 1, 0, 1]);
  });

  it("lists the actors of one cohort, those who returned most first", async () => {
    const spec = retentionKind.spec({ kind: "RetentionQuery", ...weekly({}) }, null);
    expect(await retentionKind.actors!(envOf(otherProjectId), spec, { interval: 0 })).toEqual([q1, q2]);
    expect(await retentionKind.actors!(envOf(otherProjectId), spec, { interval: 1 })).toEqual([q3]);
    expect(await retentionKind.actors!(envOf(otherProjectId), spec, { interval: 3 })).toEqual([]);
    const days = retentionKind.spec({ kind: "RetentionQuery", dateRange: { date_to: "2020-06-20T06:00:00" }, retentionFilter: { totalIntervals: 11 } }, null);
    expect(await retentionKind.actors!(envOf(projectId), days, { interval: 0 })).toEqual([p1]);
    expect((await retentionKind.actors!(envOf(projectId), days, { interval: 1 })).sort()).toEqual([p1, p2]);
    await expect(retentionKind.actors!(envOf(projectId), days, { interval: 11 })).rejects.toThrow(/interval must be an integer from 0 to 10/);
    await expect(retentionKind.actors!(envOf(projectId), days, {})).rejects.toThrow(/interval is required/);
  });

  it.each([
    [{ retentionFilter: { period: "Year" } }, /period 'Year' is not supported/],
    [{ retentionFilter: { totalIntervals: 0 } }, /totalIntervals must be at least 1/],
    [{ retentionFilter: { targetEntity: { id: 3, type: "actions" } } }, /Entity type 'actions' is not supported/],
    [{ retentionFilter: { timeWindowMode: "24_hour_windows" } }, /timeWindowMode/],
    [{ retentionFilter: { retentionType: "retention_sometimes" } }, /retentionType 'retention_sometimes'/],
    [{ breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }, /Breakdowns of retention are not supported/],
    [{ dateRange: { date_to: "yesterday-ish" } }, /date_to/],
  ])("refuses %j with a 400", (node, message) => {
    expect(() => retentionKind.spec({ kind: "RetentionQuery", ...node }, null)).toThrow(message);
    try {
      retentionKind.spec({ kind: "RetentionQuery", ...node }, null);
    } catch (error) {
      expect((error as { status?: number }).status ?? 400).toBe(400);
    }
  });

  it("answers POST /api/projects/:id/query/ in PostHog's envelope", async () => {
    const request = new Request(`http://localhost/api/projects/${projectId}/query/`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ query: { kind: "RetentionQuery", dateRange: { date_to: "2020-06-20T06:00:00" }, retentionFilter: { totalIntervals: 11, period: "Day" } } }),
    });
    const response = await queryRoute.POST(request, { params: Promise.resolve({ project_id: String(projectId) }) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: RetentionRow[]; is_cached: boolean; timezone: string };
    expect(body.is_cached).toBe(false);
    expect(body.timezone).toBe("UTC");
    expect(counts(body.results)[1]).toEqual([2, 2, 1, 0, 1, 2, 0, 0, 0, 0, 0]);

    const refused = await queryRoute.POST(
      new Request(`http://localhost/api/projects/${projectId}/query/`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ query: { kind: "RetentionQuery", retentionFilter: { period: "Fortnight" } } }),
      }),
      { params: Promise.resolve({ project_id: String(projectId) }) },
    );
    expect(refused.status).toBe(400);
    // A malformed field is PostHog's parse error, the field named in the detail.
    expect(await refused.json()).toMatchObject({ type: "invalid_request", code: "parse_error", attr: null, detail: expect.stringContaining("query.retentionFilter.period") });
  });
});
