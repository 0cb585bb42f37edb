/**
 * Surveys end to end: the REST API with PostHog's fields, the flags made with a survey, the
 * public list and remote config posthog-js reads, and the internal targeting flag as /flags
 * answers it — a person who sent or dismissed the survey (posthog-js `$set`s
 * `$survey_responded/<id>` or `$survey_dismissed/<id>` with the event, sent here through
 * /batch/) is not asked again.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { handleDecide, handleFlags, handleRemoteConfig } from "@/server/http/sdk/flags";
import { handleSurveys } from "@/server/http/sdk/product-lists";
import { flagActivity } from "@/server/flags/service";
import { testContext } from "@/test-support/context";
import { advanceSurveyIterations } from "./service";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";

let db: Database;
let projectId: number;
let apiKey: string;
let token: string;
let ownerId: number;
const list = restRoute("projects", "surveys");
const one = restRoute("projects", "surveys/:id");
const flagOne = restRoute("projects", "feature_flags/:id");

type Json = Record<string, any>;

const call = projectApiCaller(() => ({ projectId, apiKey }));

const create = (body: unknown) => call(list.POST, "POST", "surveys/", {}, body);
const patch = (id: string, body: unknown) => call(one.PATCH, "PATCH", `surveys/${id}/`, { id }, body);
const flag = async (id: number) => (await call(flagOne.GET, "GET", `feature_flags/${id}/`, { id: String(id) })).body!;

async function flagsFor(distinctId: string): Promise<Record<string, boolean | string>> {
  const response = await handleFlags(new Request("http://burrow.test/flags/?v=2", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, distinct_id: distinctId }) }));
  const body = (await response.json()) as Json;
  return Object.fromEntries(Object.entries(body.flags as Record<string, Json>).map(([key, value]) => [key, value.enabled ? (value.variant ?? true) : false]));
}

async function decideSurveys(): Promise<unknown> {
  const response = await handleDecide(new Request("http://burrow.test/decide/?v=3", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, distinct_id: "anyone" }) }));
  return ((await response.json()) as Json).surveys;
}

const publicList = async () => ((await (await handleSurveys(new Request(`http://burrow.test/api/surveys/?token=${token}`))).json()) as Json).surveys as Json[];

const QUESTIONS = [
  { type: "rating", question: "How likely are you to recommend us?", display: "number", scale: 10, lowerBoundLabel: "Unlikely", upperBoundLabel: "Very likely", branching: { type: "response_based", responseValues: { detractors: 2, promoters: "end" } } },
  { type: "single_choice", question: "Which plan?", choices: ["Free", "Pro", "Other"], hasOpenChoice: true },
  { type: "open", question: "<b>What</b> could be better?<script>alert(1)</script>", description: "<img src=x onerror=alert(1)>Tell us", descriptionContentType: "html", optional: true },
  { type: "multiple_choice", question: "What do you use?", choices: ["Trends", "Funnels"], shuffleOptions: true },
  { type: "rating", question: "How was it?", display: "emoji", scale: 5 },
  { type: "link", question: "Book a call", link: "https://cal.example/me", buttonText: "Book" },
];

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "surveys@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  token = owner.project_api_key;
  ownerId = owner.user.id;
});

afterAll(() => closeDb());

describe(`surveys (${testDbKind})`, () => {
  let survey: Json = {};

  it("creates a popover survey with PostHog's fields, every question kind, and an inactive internal targeting flag", async () => {
    const action = await call(restRoute("projects", "actions").POST, "POST", "actions/", {}, { name: "Clicked upgrade", steps: [{ event: "$autocapture", text: "Upgrade" }] });
    const created = await create({
      name: "NPS",
      description: "Quarterly",
      type: "popover",
      questions: QUESTIONS,
      conditions: { url: "/pricing", urlMatchType: "icontains", seenSurveyWaitPeriodInDays: 14, deviceTypes: ["Desktop"], deviceTypesMatchType: "exact", actions: { values: [{ id: action.body!.id }] } },
      appearance: { backgroundColor: "#eeeded", submitButtonText: "Send", position: "right", displayThankYouMessage: true, thankYouMessageHeader: "Thanks!" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    survey = created.body!;
    expect(survey).toMatchObject({ name: "NPS", description: "Quarterly", type: "popover", schedule: "once", start_date: null, end_date: null, archived: false, linked_flag: null, targeting_flag: null, enable_partial_responses: false });
    expect(survey.questions).toHaveLength(6);
    expect(survey.questions.every((question: Json) => typeof question.id === "string" && question.id.length > 0)).toBe(true);
    expect(survey.questions[2].question).toBe("<b>What</b> could be better?");
    expect(survey.questions[2].description).toBe("Tell us");
    expect(survey.conditions.actions.values).toEqual([{ id: action.body!.id, name: "Clicked upgrade", steps: [expect.objectContaining({ event: "$autocapture", text: "Upgrade" })] }]);
    const internal = survey.internal_targeting_flag;
    expect(internal.key).toMatch(/^survey-targeting-[0-9a-f]{10}-custom$/);
    expect(internal.name).toBe("Targeting flag for survey NPS");
    expect(internal.active).toBe(false);
    expect(internal.filters.groups).toEqual([
      {
        properties: [
          { key: `$survey_dismissed/${survey.id}`, type: "person", value: "is_not_set", operator: "is_not_set" },
          { key: `$survey_responded/${survey.id}`, type: "person", value: "is_not_set", operator: "is_not_set" },
        ],
        rollout_percentage: 100,
        variant: null,
      },
    ]);
  });

  it("lists drafts publicly in PostHog's shape, without description, but does not turn surveys on", async () => {
    const listed = await publicList();
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0]!).sort()).toEqual(
      ["appearance", "conditions", "current_iteration", "current_iteration_start_date", "enable_partial_responses", "end_date", "id", "internal_targeting_flag_key", "linked_flag_key", "name", "questions", "schedule", "start_date", "targeting_flag_key", "type"].sort(),
    );
    expect(listed[0]).toMatchObject({ id: survey.id, internal_targeting_flag_key: survey.internal_targeting_flag.key, start_date: null });
    expect(await decideSurveys()).toBe(false);
  });

  it("launching turns surveys on in /decide and remote config, and the internal flag on for everyone", async () => {
    const launched = await patch(survey.id, { start_date: "2026-11-01T00:00:00Z" });
    expect(launched.status).toBe(200);
    expect(launched.body!.internal_targeting_flag.active).toBe(true);
    expect(await decideSurveys()).toBe(true);
    const config = (await (await handleRemoteConfig(new Request(`http://burrow.test/array/${token}/config`))).json()) as Json;
    expect(config.surveys.map((item: Json) => item.id)).toEqual([survey.id]);
    expect((await flagsFor("ann"))[survey.internal_targeting_flag.key]).toBe(true);
  });

  it("a person who sent or dismissed the survey is not asked again; others still are", async () => {
    const key = survey.internal_targeting_flag.key;
    await sendBatch(token, [
      { uuid: randomUUID(), event: "survey sent", distinct_id: "ann", properties: { $survey_id: survey.id, $survey_response: 9, $set: { [`$survey_responded/${survey.id}`]: true } } },
      { uuid: randomUUID(), event: "survey dismissed", distinct_id: "bob", properties: { $survey_id: survey.id, $set: { [`$survey_dismissed/${survey.id}`]: true } } },
    ]);
    expect((await flagsFor("ann"))[key]).toBe(false);
    expect((await flagsFor("bob"))[key]).toBe(false);
    expect((await flagsFor("cat"))[key]).toBe(true);
  });

  it("makes, changes and removes a user targeting flag; refuses one that rolls out to everyone", async () => {
    const everyone = await patch(survey.id, { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    expect(everyone.status).toBe(400);
    expect(everyone.body!.attr).toBe("targeting_flag_filters");
    const targeted = await patch(survey.id, { targeting_flag_filters: { groups: [{ properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "person" }], rollout_percentage: 100 }] } });
    expect(targeted.status, JSON.stringify(targeted.body)).toBe(200);
    const targeting = targeted.body!.targeting_flag;
    expect(targeting.key).toMatch(/^survey-targeting-[0-9a-f]{10}$/);
    expect(targeting.active).toBe(true);
    expect((await publicList())[0]!.targeting_flag_key).toBe(targeting.key);
    expect((await flagsFor("cat"))[targeting.key]).toBe(false);
    const removed = await patch(survey.id, { remove_targeting_flag: true });
    expect(removed.body!.targeting_flag).toBeNull();
    expect((await flag(targeting.id)).deleted).toBe(true);
  });

  it("stopping turns the internal flag and surveys off; archiving takes it out of the public list", async () => {
    const stopped = await patch(survey.id, { end_date: "2026-11-20T00:00:00Z" });
    expect(stopped.body!.internal_targeting_flag.active).toBe(false);
    expect(await decideSurveys()).toBe(false);
    expect((await publicList()).map((item) => item.id)).toEqual([survey.id]);
    const cleared = await patch(survey.id, { conditions: null, appearance: null });
    expect(cleared.status).toBe(200);
    expect([cleared.body!.conditions, cleared.body!.appearance]).toEqual([null, null]);
    const archived = await patch(survey.id, { archived: true });
    expect(archived.body!.archived).toBe(true);
    expect(await publicList()).toEqual([]);
    const listed = await call(list.GET, "GET", "surveys/?archived=true", {});
    expect(listed.body!.results.map((item: Json) => item.id)).toEqual([survey.id]);
  });

  it("refuses bad input with a 400 naming the field", async () => {
    const cases: [unknown, string][] = [
      [{ name: "x" }, "type"],
      [{ name: "NPS", type: "popover" }, "name"],
      [{ name: "y", type: "popover", questions: [{ type: "link", question: "Go", link: "http://insecure.example" }] }, "questions__0__link"],
      [{ name: "y", type: "popover", questions: [{ type: "rating", question: "Rate", scale: 4 }] }, "questions__0__scale"],
      [{ name: "y", type: "popover", questions: [{ type: "single_choice", question: "Pick", choices: [] }] }, "questions__0__choices"],
      [{ name: "y", type: "popover", questions: [{ type: "essay", question: "?" }] }, "questions__0__type"],
      [{ name: "y", type: "popover", questions: [{ type: "open", question: "?", branching: { type: "specific_question", index: 5 } }] }, "questions__0__branching"],
      [{ name: "y", type: "popover", conditions: { url: "([", urlMatchType: "regex" } }, "conditions__url"],
      [{ name: "y", type: "popover", appearance: { position: "nowhere" } }, "appearance__position"],
      [{ name: "y", type: "popover", linked_flag_id: 999999 }, "linked_flag_id"],
      [{ name: "y", type: "popover", conditions: { actions: { values: [{ id: 999999 }] } } }, "conditions__actions"],
      [{ name: "y", type: "popover", start_date: "soon" }, "start_date"],
    ];
    for (const [body, attr] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body!.attr, JSON.stringify(body)).toBe(attr);
    }
    expect((await call(one.GET, "GET", "surveys/nope/", { id: "nope" })).status).toBe(404);
  });

  it("two creates with one name at once: one is made, the other is a 400 and leaves no flag behind", async () => {
    const name = `Race ${randomUUID()}`;
    const body = { name, type: "popover", questions: [{ type: "open", question: "Why?" }], targeting_flag_filters: { groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }], rollout_percentage: 100 }] } };
    const answers = await Promise.all([create(body), create(body), create(body)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400, 400]);
    for (const refused of answers.filter((answer) => answer.status === 400)) expect(refused.body).toMatchObject({ attr: "name", detail: "There is already a survey with this name." });
    const made = answers.find((answer) => answer.status === 201)!.body!;
    const live = await db.prisma.featureFlag.findMany({ where: { projectId, deleted: false, name: `Targeting flag for survey ${name}` }, select: { id: true } });
    expect(live.map((row) => row.id).sort()).toEqual([made.internal_targeting_flag.id, made.targeting_flag.id].sort());
    expect((await call(one.DELETE, "DELETE", `surveys/${made.id}/`, { id: made.id })).status).toBe(204);
  });

  it("deletes a survey with the flags made for it", async () => {
    const deleted = await call(one.DELETE, "DELETE", `surveys/${survey.id}/`, { id: survey.id });
    expect(deleted.status).toBe(204);
    expect((await flag(survey.internal_targeting_flag.id)).deleted).toBe(true);
    expect((await call(one.GET, "GET", `surveys/${survey.id}/`, { id: survey.id })).status).toBe(404);
  });
});

describe(`recurring surveys (${testDbKind}): PostHog's update_survey_iteration`, () => {
  const DAY = 86_400_000;
  const recurring = async (name: string, daysAgo: number) => {
    const created = await create({ name, type: "popover", questions: [{ type: "open", question: "Anything?" }], iteration_count: 3, iteration_frequency_days: 60 });
    expect(created.status).toBe(201);
    const launched = await patch(created.body!.id, { start_date: new Date(Date.now() - daysAgo * DAY).toISOString() });
    expect(launched.body).toMatchObject({ current_iteration: 1, iteration_start_dates: expect.any(Array) });
    expect(launched.body!.iteration_start_dates).toHaveLength(3);
    return launched.body!;
  };
  const get = async (id: string) => (await call(one.GET, "GET", `surveys/${id}/`, { id })).body!;

  it("moves a survey 180 days into three 60-day iterations to the third; its internal flag asks for the third's answers, so a person who answered the first is asked again", async () => {
    const survey = await recurring("Quarterly NPS", 180);
    const key = survey.internal_targeting_flag.key;
    await sendBatch(token, [{ uuid: randomUUID(), event: "survey sent", distinct_id: "dee", properties: { $survey_id: survey.id, $set: { [`$survey_responded/${survey.id}/1`]: true } } }]);
    expect((await flagsFor("dee"))[key]).toBe(false);

    expect(await advanceSurveyIterations(db)).toBeGreaterThanOrEqual(1);
    const advanced = await get(survey.id);
    expect(advanced.current_iteration).toBe(3);
    expect(advanced.current_iteration_start_date).toBe(advanced.iteration_start_dates[2]);
    expect(advanced.end_date).toBeNull();
    expect(advanced.internal_targeting_flag.id).toBe(survey.internal_targeting_flag.id);
    expect(advanced.internal_targeting_flag.filters.groups[0].properties.map((property: Json) => property.key)).toEqual([`$survey_dismissed/${survey.id}/3`, `$survey_responded/${survey.id}/3`]);
    expect((await flagsFor("dee"))[key]).toBe(true);
    await sendBatch(token, [{ uuid: randomUUID(), event: "survey sent", distinct_id: "dee", properties: { $survey_id: survey.id, $set: { [`$survey_responded/${survey.id}/3`]: true } } }]);
    expect((await flagsFor("dee"))[key]).toBe(false);

    // The flag's change is Burrow's own: its activity names no user.
    const [latest] = await flagActivity(await testContext(db, ownerId, projectId), survey.internal_targeting_flag.id);
    expect(latest).toMatchObject({ activity: "updated", user: null });
    // A second pass the same day changes nothing.
    const again = await get(survey.id);
    await advanceSurveyIterations(db);
    expect((await get(survey.id)).internal_targeting_flag).toEqual(again.internal_targeting_flag);
  });

  it("stops a survey the day after its last iteration ends, and turns its internal flag off", async () => {
    const survey = await recurring("Ended schedule", 181);
    await advanceSurveyIterations(db);
    const ended = await get(survey.id);
    expect(ended.end_date).not.toBeNull();
    expect(ended.current_iteration).toBe(1);
    expect(ended.internal_targeting_flag.active).toBe(false);
    expect((await flagsFor("eve"))[survey.internal_targeting_flag.key]).toBe(false);
  });

  it("leaves a survey in its first window, and one without a schedule, as they are", async () => {
    const fresh = await recurring("Fresh schedule", 10);
    const plain = (await create({ name: "No schedule", type: "popover", questions: [{ type: "open", question: "Hm?" }], start_date: new Date().toISOString() })).body!;
    await advanceSurveyIterations(db);
    expect(await get(fresh.id)).toMatchObject({ current_iteration: 1, end_date: null });
    expect(await get(plain.id)).toMatchObject({ current_iteration: null, end_date: null, iteration_start_dates: [] });
  });
});

