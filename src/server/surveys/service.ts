/**
 * Surveys: PostHog's rules (products/surveys/backend/api/survey.py) over the store.
 *
 * - Every survey gets an internal targeting flag (`survey-targeting-<hex>-custom`) whose one
 *   condition asks `$survey_dismissed/<id>` and `$survey_responded/<id>` to be unset, so that
 *   /flags stops showing it to a person who answered or dismissed it (posthog-js `$set`s those
 *   keys). It is active while the survey runs: launched (`start_date`) and not stopped
 *   (`end_date`).
 * - `targeting_flag_filters` makes or changes a user targeting flag (`survey-targeting-<hex>`),
 *   active until the survey stops; `remove_targeting_flag` deletes it.
 * - Conditions naming actions are stored with each action's name and steps, which posthog-js
 *   matches in the page.
 * The flags are written through the flags domain; results are in results.ts.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import { getAction } from "@/server/actions/service";
import { logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { flagFiltersSchema, type FlagFilters } from "@/server/flags/contract";
import { createFlag, createFlagAsSystem, deleteFlag, getFlag, requireFlagWrite, updateFlag, updateFlagAsSystem } from "@/server/flags/service";
import { pageWindow } from "@/server/input/page";
import { parsePropertiesParam } from "@/server/events/contract";
import type { PropertyGroup } from "@/server/properties/contract";
import { dismissedProperty, respondedProperty, type PublicSurvey, type SurveyConditions, type SurveyCreateBody, type SurveyListQuery, type SurveyQuestion, type SurveyResultsAnswer, type SurveyResultsQuery, type SurveyUpdateBody } from "./contract";
import { iterationOn, iterationStartDates } from "./iterations";
import { computeResults, SURVEY_EVENTS, type SurveyEvent } from "./results";
import { presentPublicSurvey, presentSurvey, type SurveyResource } from "./present";
import * as store from "./store";
import { perDatabase } from "@/server/db/per-database";
import { RefreshedInBackground } from "@/server/refreshed-in-background";

const ACTIVITY_SCOPE = "Survey";
const notFound = () => new AppError("not_found", "Not found.");
const invalid = (message: string, attr: string) => new AppError("invalid_input", message, attr);
const uuidLike = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
const flagSuffix = () => randomBytes(5).toString("hex");
/** The key prefix of the flags a survey makes for itself (PostHog's). */
const SURVEY_FLAG_PREFIX = "survey-targeting-";

// ---------------------------------------------------------------------------
// The hot path: whether /decide and remote config turn surveys on
// ---------------------------------------------------------------------------

/**
 * Per database and project, whether a survey runs: refreshed once a second in the background,
 * forgotten on every write here. On globalThis, so that the writes (Next's copy of this module)
 * reach the server's copy, which /decide reads; per database, as project ids are only unique
 * within one (test files share a process).
 */
const runningCache = perDatabase((_: Database) => new RefreshedInBackground<number, boolean>(1000), "burrow.surveysRunning");

export function surveysRunning(db: Database, projectId: number): Promise<boolean> {
  return runningCache(db).get(projectId, () => store.hasRunningSurvey(db.prisma, projectId));
}

/** The public list posthog-js reads (`GET /api/surveys/?token=`) and remote config carries: every survey not archived. */
export async function publicSurveys(db: Database, projectId: number): Promise<PublicSurvey[]> {
  return (await store.liveSurveyRows(db.prisma, projectId)).map(presentPublicSurvey);
}

// ---------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------

async function surveyOf(ctx: Context, id: string): Promise<SurveyResource> {
  const row = await store.findSurvey(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return presentSurvey(row);
}

export function getSurvey(ctx: Context, id: string): Promise<SurveyResource> {
  if (!uuidLike(id)) return Promise.reject(notFound());
  return surveyOf(ctx, id.toLowerCase());
}

export async function listSurveys(ctx: Context, query: SurveyListQuery): Promise<{ count: number; results: SurveyResource[] }> {
  const rows = await store.listSurveyRows(ctx.db.prisma, ctx.project.id, query);
  const { take, skip } = pageWindow(query);
  return { count: rows.length, results: rows.slice(skip, skip + take).map(presentSurvey) };
}

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

const NAME_TAKEN = "There is already a survey with this name.";

async function checkName(ctx: Context, name: string, selfId: string | null): Promise<void> {
  if (await store.nameTaken(ctx.db.prisma, ctx.project.id, name, selfId)) throw invalid(NAME_TAKEN, "name");
}

/**
 * Runs the survey's write; when another survey took the name since `checkName` (two requests
 * at once), the flags made for this one are deleted again and the answer is the same 400.
 */
async function withNameRace(ctx: Context, madeFlagIds: number[], write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!store.isDuplicateSurveyName(error)) throw error;
    for (const flagId of madeFlagIds) await deleteFlag(ctx, flagId);
    throw invalid(NAME_TAKEN, "name");
  }
}

/** Questions get ids; branching must point inside the survey and fit the question. */
function checkQuestions(questions: SurveyCreateBody["questions"]): SurveyQuestion[] {
  return questions.map((question, index) => {
    const branching = question.branching;
    if (branching?.type === "specific_question" && (branching.index >= questions.length || branching.index === index)) {
      throw invalid(`Question ${index + 1} branches to a question the survey does not have.`, `questions__${index}__branching`);
    }
    if (branching?.type === "response_based") {
      if (question.type !== "rating" && question.type !== "single_choice") throw invalid("Branching by the answer is for rating and single choice questions.", `questions__${index}__branching`);
      for (const target of Object.values(branching.responseValues)) {
        if (target !== "end" && target >= questions.length) throw invalid(`Question ${index + 1} branches to a question the survey does not have.`, `questions__${index}__branching`);
      }
    }
    return { ...question, id: question.id ?? randomUUID() } as SurveyQuestion;
  });
}

/** Actions in conditions: each must be a live action of the project; stored with its name and steps. */
async function withActions(ctx: Context, conditions: SurveyConditions | null | undefined): Promise<SurveyConditions | null> {
  if (!conditions) return null;
  const values = conditions.actions?.values;
  if (!values || values.length === 0) return conditions;
  const actions = [];
  for (const { id } of values) {
    const action = await getAction(ctx, id).catch(() => null);
    if (!action || action.deleted) throw invalid(`Action ${id} does not exist.`, "conditions__actions");
    actions.push({ id: action.id, name: action.name, steps: action.steps });
  }
  return { ...conditions, actions: { values: actions } };
}

async function checkFlag(ctx: Context, id: number, attr: string): Promise<void> {
  const flag = await getFlag(ctx, id).catch(() => null);
  if (!flag || flag.deleted) throw invalid(`Invalid pk "${id}" - object does not exist.`, attr);
}

function targetingFilters(raw: unknown): FlagFilters {
  const parsed = flagFiltersSchema.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error.issues[0]!.message, "targeting_flag_filters");
  if (parsed.data.groups.some((group) => group.properties.length === 0 && (group.rollout_percentage ?? 100) === 100)) {
    throw invalid("Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting", "targeting_flag_filters");
  }
  return parsed.data;
}

// ---------------------------------------------------------------------------
// Flags the survey owns
// ---------------------------------------------------------------------------

function internalFilters(surveyId: string, iteration: number | null): FlagFilters {
  const unset = (key: string) => ({ key, type: "person" as const, value: "is_not_set", operator: "is_not_set" });
  return {
    groups: [{ properties: [unset(dismissedProperty(surveyId, iteration)), unset(respondedProperty(surveyId, iteration))], rollout_percentage: 100, variant: null }],
    multivariate: null,
    aggregation_group_type_index: null,
    payloads: {},
  };
}

const newFlag = (key: string, name: string, filters: FlagFilters, active: boolean) => ({ key, name, filters, active, deleted: false, ensure_experience_continuity: false, tags: [] });

async function setFlagActive(ctx: Context, id: number | null, active: boolean): Promise<void> {
  if (id === null) return;
  const flag = await getFlag(ctx, id).catch(() => null);
  if (flag && !flag.deleted && flag.active !== active) await updateFlag(ctx, id, { active });
}

/** Iterations of a recurring survey, from its launch: PostHog's start dates, the first one current. */
function iterationsOf(start: Date | null, count: number | null | undefined, everyDays: number | null | undefined) {
  const dates = iterationStartDates(start, count, everyDays);
  if (dates.length === 0) return { iterationStartDates: [], currentIteration: null, currentIterationStartDate: null };
  return { iterationStartDates: dates, currentIteration: 1, currentIterationStartDate: start };
}

const dateOf = (value: string | null | undefined) => (value ? new Date(value) : null);

function samplingOf(body: SurveyCreateBody | SurveyUpdateBody, current: Record<string, unknown> = {}) {
  const next = { ...current };
  for (const key of ["response_sampling_start_date", "response_sampling_interval_type", "response_sampling_interval", "response_sampling_limit"] as const) {
    if (body[key] !== undefined) next[key] = body[key];
  }
  return next as Prisma.InputJsonValue;
}

// ---------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------

export async function createSurvey(ctx: Context, body: SurveyCreateBody): Promise<SurveyResource> {
  await checkName(ctx, body.name, null);
  const questions = checkQuestions(body.questions);
  const conditions = await withActions(ctx, body.conditions);
  if (body.linked_flag_id) await checkFlag(ctx, body.linked_flag_id, "linked_flag_id");
  if (body.targeting_flag_id) {
    requireFlagWrite(ctx); // an existing flag, which the survey turns on and off with itself
    await checkFlag(ctx, body.targeting_flag_id, "targeting_flag_id");
  }
  const filters = body.targeting_flag_filters ? targetingFilters(body.targeting_flag_filters) : null;
  const start = dateOf(body.start_date);
  const end = dateOf(body.end_date);
  const id = randomUUID();
  const iterations = iterationsOf(start, body.iteration_count, body.iteration_frequency_days);

  const internal = await createFlag(ctx, newFlag(`${SURVEY_FLAG_PREFIX}${flagSuffix()}-custom`, `Targeting flag for survey ${body.name}`, internalFilters(id, iterations.currentIteration), start !== null && end === null));
  const made = [internal.id];
  const targetingFlagId = filters ? (await createFlag(ctx, newFlag(`${SURVEY_FLAG_PREFIX}${flagSuffix()}`, `Targeting flag for survey ${body.name}`, filters, end === null))).id : (body.targeting_flag_id ?? null);
  if (filters) made.push(targetingFlagId!);

  await withNameRace(ctx, made, () => inTransaction(ctx.db, async (tx) => {
    await store.insertSurvey(tx, ctx.project.id, ctx.actor.id, id, {
      name: body.name,
      description: body.description ?? "",
      type: body.type,
      schedule: body.schedule ?? "once",
      linkedFlagId: body.linked_flag_id ?? null,
      linkedInsightId: body.linked_insight_id ?? null,
      targetingFlagId,
      internalTargetingFlagId: internal.id,
      questions: questions as unknown as Prisma.InputJsonValue,
      conditions: conditions as Record<string, unknown> | null,
      appearance: body.appearance ?? null,
      startDate: start,
      endDate: end,
      archived: body.archived ?? false,
      responsesLimit: body.responses_limit ?? null,
      iterationCount: body.iteration_count ?? null,
      iterationFrequencyDays: body.iteration_frequency_days ?? null,
      ...iterations,
      sampling: samplingOf(body),
      enablePartialResponses: body.enable_partial_responses ?? false,
    });
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
  }));
  runningCache(ctx.db).forget(ctx.project.id);
  return surveyOf(ctx, id);
}

export async function updateSurvey(ctx: Context, id: string, body: SurveyUpdateBody): Promise<SurveyResource> {
  if (!uuidLike(id)) throw notFound();
  const current = await store.findSurvey(ctx.db.prisma, ctx.project.id, id.toLowerCase());
  if (!current) throw notFound();
  const name = body.name ?? current.name;
  if (body.name !== undefined && body.name !== current.name) await checkName(ctx, body.name, current.id);
  const questions = body.questions !== undefined ? checkQuestions(body.questions) : undefined;
  const conditions = body.conditions !== undefined ? await withActions(ctx, body.conditions) : undefined;
  if (body.linked_flag_id) await checkFlag(ctx, body.linked_flag_id, "linked_flag_id");
  if (body.targeting_flag_id && body.targeting_flag_id !== current.targetingFlagId) {
    requireFlagWrite(ctx);
    await checkFlag(ctx, body.targeting_flag_id, "targeting_flag_id");
  }
  // Reshaping or deleting a targeting flag the survey did not make is a flag write.
  const adopted = current.targetingFlag !== null && !current.targetingFlag.key.startsWith(SURVEY_FLAG_PREFIX);
  const keepsCurrent = body.targeting_flag_id === undefined || body.targeting_flag_id === current.targetingFlagId;
  if (adopted && (body.remove_targeting_flag || (body.targeting_flag_filters && keepsCurrent))) requireFlagWrite(ctx);
  const start = body.start_date !== undefined ? dateOf(body.start_date) : current.startDate;
  const end = body.end_date !== undefined ? dateOf(body.end_date) : current.endDate;
  const launching = current.startDate === null && start !== null;
  const iterationCount = body.iteration_count !== undefined ? body.iteration_count : current.iterationCount;
  const everyDays = body.iteration_frequency_days !== undefined ? body.iteration_frequency_days : current.iterationFrequencyDays;
  const iterations = launching ? iterationsOf(start, iterationCount, everyDays) : null;

  let targetingFlagId = body.targeting_flag_id !== undefined ? body.targeting_flag_id : current.targetingFlagId;
  const made: number[] = [];
  if (body.remove_targeting_flag) {
    if (current.targetingFlagId !== null && current.targetingFlag && !current.targetingFlag.deleted) await deleteFlag(ctx, current.targetingFlagId);
    targetingFlagId = null;
  } else if (body.targeting_flag_filters) {
    const filters = targetingFilters(body.targeting_flag_filters);
    if (targetingFlagId !== null) await updateFlag(ctx, targetingFlagId, { filters: filters as unknown as Record<string, unknown> });
    else {
      targetingFlagId = (await createFlag(ctx, newFlag(`${SURVEY_FLAG_PREFIX}${flagSuffix()}`, `Targeting flag for survey ${name}`, filters, end === null))).id;
      made.push(targetingFlagId);
    }
  }

  let internalId = current.internalTargetingFlagId;
  const running = start !== null && end === null;
  if (internalId === null || current.internalTargetingFlag?.deleted) {
    internalId = (await createFlag(ctx, newFlag(`${SURVEY_FLAG_PREFIX}${flagSuffix()}-custom`, `Targeting flag for survey ${name}`, internalFilters(current.id, iterations?.currentIteration ?? current.currentIteration), running))).id;
    made.push(internalId);
  } else {
    if (iterations?.currentIteration) await updateFlag(ctx, internalId, { filters: internalFilters(current.id, iterations.currentIteration) as unknown as Record<string, unknown> });
    await setFlagActive(ctx, internalId, running);
  }
  await setFlagActive(ctx, targetingFlagId, end === null);

  await withNameRace(ctx, made, () => inTransaction(ctx.db, async (tx) => {
    await store.updateSurveyRow(tx, current.id, {
      name,
      ...(body.description !== undefined ? { description: body.description ?? "" } : {}),
      ...(body.type !== undefined ? { type: body.type } : {}),
      ...(body.schedule ? { schedule: body.schedule } : {}),
      ...(body.linked_flag_id !== undefined ? { linkedFlagId: body.linked_flag_id } : {}),
      ...(body.linked_insight_id !== undefined ? { linkedInsightId: body.linked_insight_id } : {}),
      targetingFlagId,
      internalTargetingFlagId: internalId,
      ...(questions ? { questions: questions as unknown as Prisma.InputJsonValue } : {}),
      ...(conditions !== undefined ? { conditions: conditions as Record<string, unknown> | null } : {}),
      ...(body.appearance !== undefined ? { appearance: body.appearance ?? null } : {}),
      startDate: start,
      endDate: end,
      ...(body.archived !== undefined && body.archived !== null ? { archived: body.archived } : {}),
      ...(body.responses_limit !== undefined ? { responsesLimit: body.responses_limit } : {}),
      iterationCount,
      iterationFrequencyDays: everyDays,
      ...(iterations ?? {}),
      sampling: samplingOf(body, (current.sampling ?? {}) as Record<string, unknown>),
      ...(body.enable_partial_responses !== undefined && body.enable_partial_responses !== null ? { enablePartialResponses: body.enable_partial_responses } : {}),
    });
    const activity = body.archived && !current.archived ? "archived" : launching ? "launched" : body.end_date && !current.endDate ? "stopped" : "updated";
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: current.id, activity, name });
  }));
  runningCache(ctx.db).forget(ctx.project.id);
  return surveyOf(ctx, current.id);
}

/** DELETE: the survey goes, and the flags made for it (the internal and the user targeting flag) with it. */
export async function deleteSurvey(ctx: Context, id: string): Promise<void> {
  const current = await getSurvey(ctx, id);
  for (const flag of [current.internal_targeting_flag, current.targeting_flag]) {
    if (flag && !flag.deleted && flag.key.startsWith(SURVEY_FLAG_PREFIX)) await deleteFlag(ctx, flag.id);
  }
  await inTransaction(ctx.db, async (tx) => {
    await store.deleteSurveyRow(tx, current.id);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: current.id, activity: "deleted", name: current.name });
  });
  runningCache(ctx.db).forget(ctx.project.id);
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

const dayStart = (value: string) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
const dayEnd = (value: string) => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(Date.parse(`${value}T00:00:00Z`) + 86_400_000 - 1) : new Date(value));

/**
 * A survey's results (results.ts) over its events between `date_from` and `date_to`, clamped
 * to the survey's start (or creation) and end, narrowed by `properties` (person or event
 * filters, PostHog's JSON).
 */
export async function surveyResults(ctx: Context, id: string, query: SurveyResultsQuery, now: Date = new Date()): Promise<SurveyResultsAnswer> {
  const survey = await getSurvey(ctx, id);
  const filters = query.properties ? parsePropertiesParam(query.properties) : null;
  const bySurvey = parsePropertiesParam(JSON.stringify([{ key: "$survey_id", value: survey.id, operator: "exact", type: "event" }]))!;
  const filter: PropertyGroup = filters ? { type: "AND", values: [bySurvey, filters] } : bySurvey;
  const opened = new Date(survey.start_date ?? survey.created_at);
  const from = query.date_from ? dayStart(query.date_from) : null;
  const after = from && from > opened ? from : opened;
  const to = query.date_to ? dayEnd(query.date_to) : null;
  const ended = survey.end_date ? new Date(survey.end_date) : null;
  const before = to && ended ? (to < ended ? to : ended) : (to ?? ended);
  const events = {} as Record<(typeof SURVEY_EVENTS)[number], SurveyEvent[]>;
  for (const name of SURVEY_EVENTS) {
    const rows = await store.surveyEvents(ctx.db, ctx.project.id, name, filter, after, before, now);
    events[name] = rows.map((row) => ({ uuid: row.uuid, event: row.event, distinctId: row.distinct_id, personId: row.person_id, timestamp: row.timestamp, properties: row.properties }));
  }
  const results = computeResults(survey.questions as unknown as SurveyQuestion[], events);
  return { survey_id: survey.id, start_date: survey.start_date, end_date: survey.end_date, ...results };
}

// ---------------------------------------------------------------------------
// The iteration schedule (PostHog's update_survey_iteration task)
// ---------------------------------------------------------------------------

/**
 * Moves each running recurring survey to the iteration that holds `now`: its internal flag then
 * asks for the new iteration's `$survey_dismissed/<id>/<n>` and `$survey_responded/<id>/<n>`, so
 * everyone is asked again. After the last iteration the survey stops. Burrow makes these
 * changes itself: the activity log names no user. Answers how many surveys changed.
 */
export async function advanceSurveyIterations(db: Database, now = new Date()): Promise<number> {
  let changed = 0;
  for (const survey of await store.recurringSurveyRows(db.prisma)) {
    const startDates = Array.isArray(survey.iterationStartDates) ? (survey.iterationStartDates as string[]) : [];
    const { current, ended } = iterationOn(startDates, survey.iterationFrequencyDays, now);
    if (ended) {
      await inTransaction(db, async (tx) => {
        await store.updateSurveyRow(tx, survey.id, { endDate: now });
        await logActivity(tx, { projectId: survey.projectId, userId: null, scope: ACTIVITY_SCOPE, itemId: survey.id, activity: "updated", name: survey.name, changes: [{ field: "end_date", before: null, after: now.toISOString() }] });
      });
      for (const flag of [survey.internalTargetingFlag, survey.targetingFlag]) {
        if (flag && !flag.deleted && flag.active) await updateFlagAsSystem(db, survey.projectId, flag.id, { active: false });
      }
    } else if (current > 0 && current !== survey.currentIteration) {
      const filters = internalFilters(survey.id, current);
      const internal = survey.internalTargetingFlag;
      const internalId =
        internal && !internal.deleted
          ? (await updateFlagAsSystem(db, survey.projectId, internal.id, { filters: filters as unknown as Record<string, unknown> })).id
          : (await createFlagAsSystem(db, survey.projectId, survey.createdById, newFlag(`${SURVEY_FLAG_PREFIX}${flagSuffix()}-custom`, `Targeting flag for survey ${survey.name}`, filters, true))).id;
      await inTransaction(db, (tx) => store.updateSurveyRow(tx, survey.id, { currentIteration: current, currentIterationStartDate: new Date(startDates[current - 1]!), internalTargetingFlagId: internalId }));
    } else {
      continue;
    }
    runningCache(db).forget(survey.projectId);
    changed += 1;
  }
  return changed;
}

/** Each flag's linked surveys as SDKs see them (PostHog's `surveys` of a flag: SurveyAPISerializer over `linked_flag`). */
export async function surveysByLinkedFlag(ctx: Context, flagIds: readonly number[]): Promise<Map<number, PublicSurvey[]>> {
  const byFlag = new Map<number, PublicSurvey[]>();
  if (flagIds.length === 0) return byFlag;
  for (const row of await store.surveysLinkedToFlags(ctx.db.prisma, ctx.project.id, flagIds)) {
    byFlag.set(row.linkedFlagId!, [...(byFlag.get(row.linkedFlagId!) ?? []), presentPublicSurvey(row)]);
  }
  return byFlag;
}
