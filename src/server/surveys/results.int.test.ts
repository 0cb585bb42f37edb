/**
 * A survey's results on a dataset whose answers are worked out by hand below, through the
 * REST route and the event store — the same on PGlite, PostgreSQL and the ClickHouse store.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";

let db: Database;
let projectId: number;
let apiKey: string;
let surveyId = "";
type Json = Record<string, any>;

const QUESTIONS = [
  { id: "q0", type: "rating", question: "How likely are you to recommend us?", scale: 10, display: "number" },
  { id: "q1", type: "single_choice", question: "Which plan?", choices: ["Free", "Pro"], hasOpenChoice: true },
  { id: "q2", type: "open", question: "What could be better?", optional: true },
  { id: "q3", type: "multiple_choice", question: "What do you use?", choices: ["Trends", "Funnels", "Paths"] },
  { id: "q4", type: "rating", question: "How was it?", scale: 5, display: "emoji" },
];

const person = (n: number) => `0190c000-0000-7000-8000-00000000050${n}`;
const PLANS: Record<number, string> = { 1: "pro", 2: "free", 3: "pro", 4: "free", 5: "free", 6: "free", 7: "pro" };

/** [person n, event, time in Nov 2026 (day T hh:mm), properties] */
type Sent = [number, string, string, Record<string, unknown>];
const answers = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).map(([id, value]) => [`$survey_response_${id}`, value]));
const EVENTS = (): Sent[] => [
  ...[1, 2, 3, 4, 5, 6].map((n): Sent => [n, "survey shown", "01T09:00", {}]),
  [1, "survey shown", "01T09:30", {}],
  // p1: a partial submission, then the whole of it: counted once, the latest.
  [1, "survey sent", "02T10:00", { $survey_submission_id: "s1", $survey_completed: false, ...answers({ q0: 10 }) }],
  [1, "survey sent", "02T10:05", { $survey_submission_id: "s1", $survey_completed: true, ...answers({ q0: 10, q1: "Pro", q2: "Love it", q3: ["Trends", "Funnels"], q4: 5 }) }],
  [2, "survey sent", "02T11:00", { $survey_submission_id: "s2", $survey_completed: true, ...answers({ q0: 9, q1: "Free", q2: "Too slow", q3: ["Trends"], q4: 4 }) }],
  [3, "survey sent", "05T08:00", { $survey_submission_id: "s3", $survey_completed: true, ...answers({ q0: 7, q1: "Enterprise", q3: ["Paths"], q4: 2 }) }],
  // p4: an older posthog-js, the legacy keys by index and no submission id.
  [4, "survey sent", "05T09:00", { $survey_response: 3, $survey_response_1: "Free", $survey_response_4: 1 }],
  [4, "survey dismissed", "03T12:00", {}],
  [5, "survey dismissed", "03T12:00", {}],
  // Before the survey started, and another survey's: not counted.
  [7, "survey sent", "01T00:00", { ...answers({ q0: 0 }), $time_shift: -30 }],
  [6, "survey sent", "04T00:00", { ...answers({ q0: 0 }), $other: true }],
];

const stats = (query = "") => {
  const handler = restRoute("projects", "surveys/:id/stats").GET;
  return handler(new Request(`http://localhost/api/projects/${projectId}/surveys/${surveyId}/stats/${query}`, { headers: { authorization: `Bearer ${apiKey}` } }), {
    params: Promise.resolve({ project_id: String(projectId), id: surveyId }),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as Json }));
};

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "results@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  const created = await restRoute("projects", "surveys").POST(
    new Request(`http://localhost/api/projects/${projectId}/surveys/`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Results", type: "popover", questions: QUESTIONS, start_date: "2026-11-01T00:00:00Z" }),
    }),
    { params: Promise.resolve({ project_id: String(projectId) }) },
  );
  surveyId = ((await created.json()) as Json).id;
  for (const [n, plan] of Object.entries(PLANS)) {
    await db.sql.query(`INSERT INTO persons (uuid, project_id, properties, created_at, updated_at) VALUES ($1::uuid, $2::int, $3::jsonb, '2026-01-01', now())`, [person(Number(n)), projectId, JSON.stringify({ plan })]);
  }
  await db.events.insert(
    EVENTS().map(([n, event, at, properties]) => {
      const { $time_shift, $other, ...rest } = properties;
      const timestamp = new Date(`2026-11-${at}:00Z`);
      if ($time_shift) timestamp.setUTCDate(timestamp.getUTCDate() + Number($time_shift));
      return { uuid: randomUUID(), projectId, event, distinctId: `d${n}`, personId: person(n), properties: { ...rest, $survey_id: $other ? randomUUID() : surveyId }, timestamp };
    }),
  );
});

afterAll(() => closeDb());

describe(`survey results (${testStoresName})`, () => {
  it("counts shown, dismissed and sent as PostHog does, with the rates", async () => {
    const { status, body } = await stats();
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.survey_id).toBe(surveyId);
    expect(body.stats["survey shown"]).toEqual({ total_count: 7, unique_persons: 6, first_seen: "2026-11-01T09:00:00.000Z", last_seen: "2026-11-01T09:30:00.000Z", unique_persons_only_seen: 1, total_count_only_seen: 1 });
    expect(body.stats["survey sent"]).toMatchObject({ total_count: 4, unique_persons: 4, first_seen: "2026-11-02T10:05:00.000Z", last_seen: "2026-11-05T09:00:00.000Z" });
    expect(body.stats["survey dismissed"]).toMatchObject({ total_count: 2, unique_persons: 1 });
    expect(body.rates).toEqual({ response_rate: 57.14, dismissal_rate: 28.57, unique_users_response_rate: 66.67, unique_users_dismissal_rate: 16.67 });
  });

  it("answers each question: NPS, choices with the open choice apart, open texts with the person, CSAT", async () => {
    const [nps, plan, open, uses, csat] = (await stats()).body.questions as Json[];
    expect(nps!.answered).toBe(4);
    expect(nps!.counts.filter((c: Json) => c.count > 0)).toEqual([{ value: "3", count: 1 }, { value: "7", count: 1 }, { value: "9", count: 1 }, { value: "10", count: 1 }]);
    expect(nps!.nps).toEqual({ promoters: 2, passives: 1, detractors: 1, score: 25 });
    expect(plan!.counts).toEqual([{ value: "Free", count: 2 }, { value: "Pro", count: 1 }, { value: "Other", count: 1 }]);
    expect(plan!.answers.map((a: Json) => [a.response, a.distinct_id])).toEqual([["Enterprise", "d3"]]);
    expect(open!.answered).toBe(2);
    expect(open!.answers.map((a: Json) => [a.response, a.distinct_id, a.person_id])).toEqual([["Too slow", "d2", person(2)], ["Love it", "d1", person(1)]]);
    expect(uses!.counts).toEqual([{ value: "Trends", count: 2 }, { value: "Funnels", count: 1 }, { value: "Paths", count: 1 }]);
    expect(csat!.counts).toEqual([{ value: "1", count: 1 }, { value: "2", count: 1 }, { value: "3", count: 0 }, { value: "4", count: 1 }, { value: "5", count: 1 }]);
    expect(csat!.csat).toEqual({ satisfied: 2, score: 50 });
  });

  it("shows the drop-off from shown through each question to sent", async () => {
    expect((await stats()).body.funnel).toEqual([
      { step: "survey shown", persons: 6 },
      { step: "question 1", persons: 4 },
      { step: "question 2", persons: 4 },
      { step: "question 3", persons: 2 },
      { step: "question 4", persons: 3 },
      { step: "question 5", persons: 4 },
      { step: "survey sent", persons: 4 },
    ]);
  });

  it("narrows by date and by person property", async () => {
    const early = (await stats("?date_to=2026-11-02")).body;
    expect(early.stats["survey sent"].total_count).toBe(2);
    expect(early.questions[0].nps).toEqual({ promoters: 2, passives: 0, detractors: 0, score: 100 });
    const pro = (await stats(`?properties=${encodeURIComponent(JSON.stringify([{ key: "plan", value: ["pro"], operator: "exact", type: "person" }]))}`)).body;
    expect(pro.stats["survey sent"].total_count).toBe(2);
    expect(pro.questions[0].nps).toEqual({ promoters: 1, passives: 1, detractors: 0, score: 50 });
    expect((await stats("?date_from=yesterday")).status).toBe(400);
    expect((await stats("?properties=nope")).status).toBe(400);
  });
});
