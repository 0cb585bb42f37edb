/**
 * Request and answer shapes of surveys (`/api/projects/:id/surveys/` and the public
 * `/api/surveys/?token=`), with PostHog's fields (products/surveys/backend/api/survey.py) and
 * posthog-js's question, condition and appearance types (browser-common surveys.ts).
 * Browser-safe: the builder page imports it.
 */
import { z } from "zod";
import { userBasicSchema } from "@/server/accounts/contract";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { regexSyntaxError } from "@/server/properties/regex";
import { sanitiseSurveyHtml } from "./html";

export const SURVEY_TYPES = ["popover", "api", "widget", "external_survey"] as const;
export const SURVEY_SCHEDULES = ["once", "recurring", "always"] as const;
export const QUESTION_TYPES = ["open", "link", "rating", "single_choice", "multiple_choice"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];
export const RATING_SCALES = [2, 3, 5, 7, 10] as const;
export const URL_MATCH_TYPES = ["regex", "not_regex", "exact", "is_not", "icontains", "not_icontains"] as const;
export const POSITIONS = ["top_left", "top_center", "top_right", "middle_left", "middle_center", "middle_right", "left", "center", "right", "next_to_trigger"] as const;

export const SURVEY_LIMITS = { maxName: 400, maxText: 5000, maxQuestions: 50, maxChoices: 50, maxJsonBytes: 64_000, maxEvents: 50 } as const;

/** The person properties posthog-js `$set`s, which the internal targeting flag asks to be unset. */
export const respondedProperty = (surveyId: string, iteration?: number | null) => `$survey_responded/${surveyId}${iteration ? `/${iteration}` : ""}`;
export const dismissedProperty = (surveyId: string, iteration?: number | null) => `$survey_dismissed/${surveyId}${iteration ? `/${iteration}` : ""}`;

const jsonSize = (value: unknown) => JSON.stringify(value ?? null).length;
const text = (max: number = SURVEY_LIMITS.maxText) => z.string({ error: "Not a valid string." }).max(max, `Ensure this field has no more than ${max} characters.`);
const contentType = z.enum(["html", "text"], { error: "descriptionContentType must be html or text." });

const branching = z.discriminatedUnion(
  "type",
  [
    z.object({ type: z.literal("next_question") }),
    z.object({ type: z.literal("end") }),
    z.object({ type: z.literal("response_based"), responseValues: z.record(z.string(), z.union([z.number().int().min(0), z.literal("end")])) }),
    z.object({ type: z.literal("specific_question"), index: z.number().int().min(0) }),
  ],
  { error: "branching must be next_question, end, response_based or specific_question." },
);

const common = {
  question: text().min(1, "Each question needs a question."),
  id: z.string().max(200).regex(/^[A-Za-z0-9_-]+$/, "A question id has letters, digits, _ and - only.").optional(),
  description: text().nullish(),
  descriptionContentType: contentType.nullish(),
  optional: z.boolean().nullish(),
  buttonText: text(200).nullish(),
  branching: branching.nullish(),
  validation: z.array(z.record(z.string(), z.unknown())).max(10).nullish(),
  translations: z.record(z.string(), z.record(z.string(), z.unknown())).refine((value) => jsonSize(value) <= SURVEY_LIMITS.maxJsonBytes, "translations are too large.").nullish(),
};
const choiceFields = {
  choices: z.array(text(1000).min(1, "A choice may not be blank."), { error: "choices must be a list of strings." }).min(1, "A choice question needs choices.").max(SURVEY_LIMITS.maxChoices),
  hasOpenChoice: z.boolean().nullish(),
  shuffleOptions: z.boolean().nullish(),
  skipSubmitButton: z.boolean().nullish(),
};

export const questionSchema = z
  .discriminatedUnion(
    "type",
    [
      z.object({ type: z.literal("open"), ...common }),
      z.object({
        type: z.literal("link"),
        ...common,
        link: text(2000)
          .refine((value) => /^(https:\/\/|mailto:)/i.test(value), "Link must be a URL starting with https:// or mailto:.")
          .nullish(),
      }),
      z.object({
        type: z.literal("rating"),
        ...common,
        display: z.enum(["number", "emoji"], { error: "display must be number or emoji." }).default("number"),
        scale: z.union(RATING_SCALES.map((scale) => z.literal(scale)) as [z.ZodLiteral<2>, z.ZodLiteral<3>, z.ZodLiteral<5>, z.ZodLiteral<7>, z.ZodLiteral<10>], { error: "scale must be 2, 3, 5, 7 or 10." }).default(10),
        lowerBoundLabel: text(200).nullish(),
        upperBoundLabel: text(200).nullish(),
        skipSubmitButton: z.boolean().nullish(),
      }),
      z.object({ type: z.literal("single_choice"), ...common, ...choiceFields }),
      z.object({ type: z.literal("multiple_choice"), ...common, ...choiceFields }),
    ],
    { error: `Each question's type must be one of ${QUESTION_TYPES.join(", ")}.` },
  )
  // HTML in question texts is sanitised, as PostHog does (nh3), since posthog-js renders it.
  .transform((question) => ({
    ...question,
    question: sanitiseSurveyHtml(question.question),
    ...(question.description ? { description: sanitiseSurveyHtml(question.description) } : {}),
  }));
export type SurveyQuestion = z.output<typeof questionSchema> & { id: string };

const propertyFilters = z.record(z.string(), z.object({ values: z.array(z.string().max(1000)).max(100), operator: z.string().max(40) }));
const eventList = z.object({
  repeatedActivation: z.boolean().nullish(),
  values: z.array(z.object({ name: text(400).min(1), propertyFilters: propertyFilters.nullish() })).max(SURVEY_LIMITS.maxEvents),
});

export const conditionsSchema = z
  .object({
    url: text(2000).nullish(),
    urlMatchType: z.enum(URL_MATCH_TYPES, { error: `urlMatchType must be one of ${URL_MATCH_TYPES.join(", ")}.` }).nullish(),
    selector: text(1000).nullish(),
    seenSurveyWaitPeriodInDays: z.number().int().min(0).max(3650).nullish(),
    events: eventList.nullish(),
    cancelEvents: eventList.nullish(),
    // The server fills in each action's current name and steps.
    actions: z.object({ values: z.array(z.object({ id: z.number().int().min(1).max(2_147_483_647) }).loose()).max(SURVEY_LIMITS.maxEvents) }).nullish(),
    deviceTypes: z.array(z.enum(["Desktop", "Mobile", "Tablet"])).max(3).nullish(),
    deviceTypesMatchType: z.enum(URL_MATCH_TYPES).nullish(),
    linkedFlagVariant: text(400).nullish(),
  })
  .superRefine((conditions, ctx) => {
    if (conditions.url && (conditions.urlMatchType === "regex" || conditions.urlMatchType === "not_regex")) {
      const error = regexSyntaxError(conditions.url);
      if (error) ctx.addIssue({ code: "custom", message: `Invalid regular expression: ${error}`, path: ["url"] });
    }
  });
export type SurveyConditions = z.output<typeof conditionsSchema>;

/** posthog-js's SurveyAppearance: any of its settings (colours, texts, behaviour, position, widget). */
export const appearanceSchema = z
  .record(z.string(), z.union([z.string().max(SURVEY_LIMITS.maxText), z.number(), z.boolean(), z.null()]), { error: "appearance must be an object of settings." })
  .superRefine((appearance, ctx) => {
    if (Object.keys(appearance).length > 100) ctx.addIssue({ code: "custom", message: "appearance has too many settings." });
    const position = appearance.position;
    if (position !== undefined && position !== null && !(POSITIONS as readonly unknown[]).includes(position)) {
      ctx.addIssue({ code: "custom", message: `position must be one of ${POSITIONS.join(", ")}.`, path: ["position"] });
    }
    if (typeof appearance.surveyPopupDelaySeconds === "number" && appearance.surveyPopupDelaySeconds < 0) ctx.addIssue({ code: "custom", message: "surveyPopupDelaySeconds must not be negative.", path: ["surveyPopupDelaySeconds"] });
  });

const date = z.iso.datetime({ offset: true, error: "Enter a valid ISO 8601 date." });
const flagId = (field: string) => z.number({ error: `${field} must be an integer.` }).int().min(1).max(2_147_483_647);
const smallInt = (field: string, max: number) => z.number({ error: `${field} must be an integer.` }).int().min(0).max(max);

/** Flag filters for the survey's targeting flag (checked by the flags domain's schema). */
const targetingFilters = z.object({ groups: z.array(z.record(z.string(), z.unknown())).max(100) }).loose();

const writable = {
  description: text(10_000).nullish(),
  schedule: z.enum(SURVEY_SCHEDULES, { error: `schedule must be one of ${SURVEY_SCHEDULES.join(", ")}.` }).nullish(),
  linked_flag_id: flagId("linked_flag_id").nullish(),
  linked_insight_id: flagId("linked_insight_id").nullish(),
  targeting_flag_id: flagId("targeting_flag_id").nullish(),
  targeting_flag_filters: targetingFilters.nullish(),
  remove_targeting_flag: drfBoolean.nullish(),
  questions: z.array(questionSchema, { error: "questions must be a list." }).max(SURVEY_LIMITS.maxQuestions, `A survey has at most ${SURVEY_LIMITS.maxQuestions} questions.`),
  conditions: conditionsSchema.nullish(),
  appearance: appearanceSchema.nullish(),
  start_date: date.nullish(),
  end_date: date.nullish(),
  archived: drfBoolean.nullish(),
  responses_limit: smallInt("responses_limit", 1_000_000_000).nullish(),
  iteration_count: smallInt("iteration_count", 500).nullish(),
  iteration_frequency_days: smallInt("iteration_frequency_days", 3650).nullish(),
  enable_partial_responses: drfBoolean.nullish(),
  response_sampling_start_date: date.nullish(),
  response_sampling_interval_type: z.enum(["day", "week", "month"]).nullish(),
  response_sampling_interval: smallInt("response_sampling_interval", 10_000).nullish(),
  response_sampling_limit: smallInt("response_sampling_limit", 1_000_000_000).nullish(),
};
const name = text(SURVEY_LIMITS.maxName).trim().min(1, "This field may not be blank.");

/** `POST …/surveys/`. Unknown and read-only fields are ignored, as DRF does. */
export const surveyCreateBody = z.object({
  name: z.string({ error: "This field is required." }).pipe(name),
  type: z.enum(SURVEY_TYPES, { error: `type must be one of ${SURVEY_TYPES.join(", ")}.` }),
  ...writable,
  questions: writable.questions.nullish().transform((value) => value ?? []),
});
export type SurveyCreateBody = z.output<typeof surveyCreateBody>;
export type SurveyCreateInput = z.input<typeof surveyCreateBody>;

/** `PATCH …/surveys/:id/`: the given fields change. Launch with `start_date`, stop with `end_date`. */
export const surveyUpdateBody = z.object({
  name: name.optional(),
  type: z.enum(SURVEY_TYPES, { error: `type must be one of ${SURVEY_TYPES.join(", ")}.` }).optional(),
  ...writable,
  questions: writable.questions.optional(),
});
export type SurveyUpdateBody = z.output<typeof surveyUpdateBody>;
export type SurveyUpdateInput = z.input<typeof surveyUpdateBody>;

export const surveyListQuery = pageQuery.extend({
  search: z.string().max(400).optional(),
  archived: z.enum(["true", "false"], { error: "archived must be 'true' or 'false'." }).optional(),
});
export type SurveyListQuery = z.output<typeof surveyListQuery>;

const minimalFlag = z.object({ id: z.number().int(), team_id: z.number().int(), name: z.string(), key: z.string(), filters: z.record(z.string(), z.unknown()), deleted: z.boolean(), active: z.boolean() }).nullable();
const json = z.record(z.string(), z.unknown());

/** A survey as PostHog's API shows it (SurveySerializer). */
export const surveySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    type: z.enum(SURVEY_TYPES),
    schedule: z.enum(SURVEY_SCHEDULES),
    linked_flag: minimalFlag,
    linked_flag_id: z.number().int().nullable(),
    linked_insight_id: z.number().int().nullable(),
    targeting_flag: minimalFlag,
    internal_targeting_flag: minimalFlag,
    questions: z.array(json),
    conditions: json.nullable(),
    appearance: json.nullable(),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
    start_date: z.iso.datetime().nullable(),
    end_date: z.iso.datetime().nullable(),
    archived: z.boolean(),
    responses_limit: z.number().int().nullable(),
    feature_flag_keys: z.array(z.object({ key: z.string(), value: z.string().nullable() })),
    iteration_count: z.number().int().nullable(),
    iteration_frequency_days: z.number().int().nullable(),
    iteration_start_dates: z.array(z.string()),
    current_iteration: z.number().int().nullable(),
    current_iteration_start_date: z.iso.datetime().nullable(),
    response_sampling_start_date: z.string().nullable(),
    response_sampling_interval_type: z.string().nullable(),
    response_sampling_interval: z.number().int().nullable(),
    response_sampling_limit: z.number().int().nullable(),
    response_sampling_daily_limits: z.array(z.unknown()).nullable(),
    enable_partial_responses: z.boolean(),
    user_access_level: z.literal("editor"),
  })
  .meta({ id: "Survey" });
export type SurveyResource = z.infer<typeof surveySchema>;

/** One survey in the public list posthog-js reads (`description` deliberately left out, as PostHog does). */
export interface PublicSurvey {
  id: string;
  name: string;
  type: (typeof SURVEY_TYPES)[number];
  linked_flag_key: string | null;
  targeting_flag_key: string | null;
  internal_targeting_flag_key: string | null;
  questions: Record<string, unknown>[];
  conditions: Record<string, unknown> | null;
  appearance: Record<string, unknown> | null;
  start_date: string | null;
  end_date: string | null;
  current_iteration: number | null;
  current_iteration_start_date: string | null;
  schedule: (typeof SURVEY_SCHEDULES)[number];
  enable_partial_responses: boolean;
}

const dayOrTime = z
  .string()
  .max(40)
  .refine((value) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value)), "Enter a date (YYYY-MM-DD) or an ISO 8601 time.");

/** `GET …/surveys/:id/stats/`: the window (clamped to the survey's dates) and person or event property filters. */
export const surveyResultsQuery = z.object({
  date_from: dayOrTime.optional(),
  date_to: dayOrTime.optional(),
  properties: z.string().max(20_000, "properties is at most 20,000 characters.").optional(),
});
export type SurveyResultsQuery = z.output<typeof surveyResultsQuery>;

const eventStats = z.object({
  total_count: z.number().int(),
  unique_persons: z.number().int(),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
  unique_persons_only_seen: z.number().int(),
  total_count_only_seen: z.number().int(),
});

/** PostHog's SurveyStatsResponse, with Burrow's per-question results and drop-off. */
export const surveyResultsSchema = z
  .object({
    survey_id: z.string(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    stats: z.object({ "survey shown": eventStats, "survey dismissed": eventStats, "survey sent": eventStats }),
    rates: z.object({ response_rate: z.number(), dismissal_rate: z.number(), unique_users_response_rate: z.number(), unique_users_dismissal_rate: z.number() }),
    questions: z.array(
      z.object({
        id: z.string(),
        index: z.number().int(),
        type: z.string(),
        question: z.string(),
        answered: z.number().int(),
        counts: z.array(z.object({ value: z.string(), count: z.number().int() })),
        nps: z.object({ promoters: z.number().int(), passives: z.number().int(), detractors: z.number().int(), score: z.number() }).nullable(),
        csat: z.object({ satisfied: z.number().int(), score: z.number() }).nullable(),
        answers: z.array(z.object({ response: z.string(), distinct_id: z.string(), person_id: z.string().nullable(), timestamp: z.string() })),
      }),
    ),
    funnel: z.array(z.object({ step: z.string(), persons: z.number().int() })),
  })
  .meta({ id: "SurveyStatsResponse" });
export type SurveyResultsAnswer = z.infer<typeof surveyResultsSchema>;
