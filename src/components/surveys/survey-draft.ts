/**
 * The survey builder's draft: what the form edits, turned into the API's body (the same
 * contract REST and tRPC parse) and back from a saved survey.
 */
import { draftOf as flagDraftOf, EMPTY_DRAFT as EMPTY_FLAG_DRAFT, editableInForm, toFlagInput, type ConditionDraft } from "@/components/feature-flags/flag-draft";
import type { FlagResource } from "@/server/flags/present";
import type { SurveyCreateInput, SurveyResource } from "@/server/surveys/contract";

export type DraftQuestionType = "open" | "rating" | "single_choice" | "multiple_choice" | "link";

export interface DraftQuestion {
  id?: string;
  type: DraftQuestionType;
  question: string;
  description: string;
  /** choices, one per line */
  choices: string;
  hasOpenChoice: boolean;
  display: "number" | "emoji";
  scale: 2 | 3 | 5 | 7 | 10;
  lowerBoundLabel: string;
  upperBoundLabel: string;
  link: string;
  buttonText: string;
  optional: boolean;
}

export interface SurveyDraft {
  name: string;
  description: string;
  type: "popover" | "api";
  questions: DraftQuestion[];
  url: string;
  urlMatchType: "icontains" | "exact" | "regex";
  waitDays: string;
  backgroundColor: string;
  submitButtonColor: string;
  submitButtonText: string;
  position: "right" | "left" | "center";
  thankYou: string;
  /** Shown when an element matching this CSS selector is on the page; "" for any. */
  selector: string;
  deviceTypes: DeviceType[];
  /** Shown after one of these events (one per line); "" for no event condition. */
  events: string;
  /** Shown every time one of the events happens, not only the first. */
  repeatedActivation: boolean;
  actionIds: number[];
  /** A flag the person must have (its id, "" for none), and the variant, "" for any. */
  linkedFlagId: string;
  linkedFlagVariant: string;
  /**
   * Who is asked: the user targeting flag's condition sets (persons' properties and cohorts);
   * none for everyone. Null when the survey is targeted by a flag this form cannot edit.
   */
  targeting: ConditionDraft[] | null;
  schedule: "once" | "recurring" | "always";
  iterationCount: string;
  iterationFrequencyDays: string;
  /** What the API set that the form does not edit (cancel events, events' property filters, …): sent back as it was. */
  kept: { conditions: Record<string, unknown>; events: Record<string, Record<string, unknown>>; hadTargeting: boolean };
}

export const DEVICE_TYPES = ["Desktop", "Mobile", "Tablet"] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const newQuestion = (type: DraftQuestionType = "open"): DraftQuestion => ({
  type,
  question: type === "rating" ? "How likely are you to recommend us to a friend?" : type === "link" ? "Would you like to talk to us?" : type === "open" ? "What could we do better?" : "Which do you use most?",
  description: "",
  choices: "Trends\nFunnels\nRetention",
  hasOpenChoice: false,
  display: "number",
  scale: 10,
  lowerBoundLabel: "Unlikely",
  upperBoundLabel: "Very likely",
  link: "https://",
  buttonText: "",
  optional: false,
});

export const emptySurveyDraft = (): SurveyDraft => ({
  name: "",
  description: "",
  type: "popover",
  questions: [newQuestion("open")],
  url: "",
  urlMatchType: "icontains",
  waitDays: "",
  backgroundColor: "#eeeded",
  submitButtonColor: "#1d4aff",
  submitButtonText: "Submit",
  position: "right",
  thankYou: "Thank you for your feedback!",
  selector: "",
  deviceTypes: [],
  events: "",
  repeatedActivation: false,
  actionIds: [],
  linkedFlagId: "",
  linkedFlagVariant: "",
  targeting: [],
  schedule: "once",
  iterationCount: "",
  iterationFrequencyDays: "",
  kept: { conditions: {}, events: {}, hadTargeting: false },
});

/** The conditions the form edits; anything else in a saved survey's conditions is kept as it was. */
const EDITED_CONDITIONS = ["url", "urlMatchType", "seenSurveyWaitPeriodInDays", "selector", "deviceTypes", "events", "actions", "linkedFlagVariant"];

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** The API's question from the draft's (only the fields its type has). */
export function questionOf(question: DraftQuestion, defaultButtonText = ""): Record<string, unknown> {
  // posthog-js labels each question's button with its buttonText (appearance.submitButtonText is no longer read).
  const buttonText = question.buttonText || defaultButtonText || undefined;
  const common = { ...(question.id ? { id: question.id } : {}), question: question.question, description: question.description || undefined, optional: question.optional || undefined, buttonText };
  switch (question.type) {
    case "rating":
      return { type: "rating", ...common, display: question.display, scale: question.scale, lowerBoundLabel: question.lowerBoundLabel, upperBoundLabel: question.upperBoundLabel };
    case "single_choice":
    case "multiple_choice":
      return { type: question.type, ...common, choices: lines(question.choices), hasOpenChoice: question.hasOpenChoice || undefined };
    case "link":
      return { type: "link", ...common, link: question.link };
    default:
      return { type: "open", ...common };
  }
}

/** The body both create and update take (questions always given). */
export type SurveyBody = Omit<SurveyCreateInput, "questions"> & { questions: NonNullable<SurveyCreateInput["questions"]> };

const wholeNumber = (value: string) => (value.trim() === "" ? null : Number(value));

function conditionsOf(draft: SurveyDraft): Record<string, unknown> | null {
  const events = lines(draft.events);
  const conditions: Record<string, unknown> = {
    ...draft.kept.conditions,
    ...(draft.url ? { url: draft.url, urlMatchType: draft.urlMatchType } : {}),
    ...(draft.waitDays ? { seenSurveyWaitPeriodInDays: Number(draft.waitDays) } : {}),
    ...(draft.selector.trim() ? { selector: draft.selector.trim() } : {}),
    ...(draft.deviceTypes.length > 0 ? { deviceTypes: draft.deviceTypes } : {}),
    ...(events.length > 0 ? { events: { repeatedActivation: draft.repeatedActivation, values: events.map((name) => draft.kept.events[name] ?? { name }) } } : {}),
    ...(draft.actionIds.length > 0 ? { actions: { values: draft.actionIds.map((id) => ({ id })) } } : {}),
    ...(draft.linkedFlagId && draft.linkedFlagVariant ? { linkedFlagVariant: draft.linkedFlagVariant } : {}),
  };
  return Object.keys(conditions).length > 0 ? conditions : null;
}

/** The user targeting flag's filters, its removal, or nothing (a flag the form cannot edit stays). */
function targetingOf(draft: SurveyDraft): Pick<SurveyBody, "targeting_flag_filters" | "remove_targeting_flag"> {
  if (draft.targeting === null) return {};
  if (draft.targeting.length === 0) return draft.kept.hadTargeting ? { remove_targeting_flag: true } : {};
  const groups = toFlagInput({ ...EMPTY_FLAG_DRAFT, conditions: draft.targeting }).filters!.groups;
  return { targeting_flag_filters: { groups: groups as Record<string, unknown>[] } };
}

export function bodyOf(draft: SurveyDraft): SurveyBody {
  const recurring = draft.schedule === "recurring";
  return {
    name: draft.name,
    description: draft.description,
    type: draft.type,
    questions: draft.questions.map((question) => questionOf(question, question.type === "link" ? "" : draft.submitButtonText)) as SurveyBody["questions"],
    conditions: conditionsOf(draft),
    appearance: {
      backgroundColor: draft.backgroundColor,
      submitButtonColor: draft.submitButtonColor,
      submitButtonText: draft.submitButtonText,
      position: draft.position,
      displayThankYouMessage: Boolean(draft.thankYou),
      thankYouMessageHeader: draft.thankYou,
    },
    linked_flag_id: draft.linkedFlagId ? Number(draft.linkedFlagId) : null,
    schedule: draft.schedule,
    iteration_count: recurring ? wholeNumber(draft.iterationCount) : null,
    iteration_frequency_days: recurring ? wholeNumber(draft.iterationFrequencyDays) : null,
    ...targetingOf(draft),
  };
}

const text = (value: unknown, fallback = "") => (typeof value === "string" ? value : fallback);

export function draftOf(survey: SurveyResource): SurveyDraft {
  const empty = emptySurveyDraft();
  const appearance = survey.appearance ?? {};
  const conditions = survey.conditions ?? {};
  const savedEvents = ((conditions.events as { values?: Record<string, unknown>[] } | undefined)?.values ?? []).filter((event): event is Record<string, unknown> & { name: string } => typeof event.name === "string");
  return {
    name: survey.name,
    description: survey.description,
    type: survey.type === "api" ? "api" : "popover",
    questions: survey.questions.map((raw) => {
      const question = raw as Record<string, unknown>;
      return {
        ...newQuestion(question.type as DraftQuestionType),
        id: text(question.id) || undefined,
        question: text(question.question),
        description: text(question.description),
        choices: Array.isArray(question.choices) ? (question.choices as string[]).join("\n") : "",
        hasOpenChoice: question.hasOpenChoice === true,
        display: question.display === "emoji" ? "emoji" : "number",
        scale: ([2, 3, 5, 7, 10] as const).find((scale) => scale === question.scale) ?? 10,
        lowerBoundLabel: text(question.lowerBoundLabel),
        upperBoundLabel: text(question.upperBoundLabel),
        link: text(question.link),
        buttonText: text(question.buttonText),
        optional: question.optional === true,
      };
    }),
    url: text(conditions.url),
    urlMatchType: conditions.urlMatchType === "exact" || conditions.urlMatchType === "regex" ? conditions.urlMatchType : "icontains",
    waitDays: typeof conditions.seenSurveyWaitPeriodInDays === "number" ? String(conditions.seenSurveyWaitPeriodInDays) : "",
    backgroundColor: text(appearance.backgroundColor, empty.backgroundColor),
    // posthog-js's default button colour when none is set.
    submitButtonColor: text(appearance.submitButtonColor, "#000000"),
    submitButtonText: text(appearance.submitButtonText, empty.submitButtonText),
    position: appearance.position === "left" || appearance.position === "center" ? appearance.position : "right",
    thankYou: text(appearance.thankYouMessageHeader),
    selector: text(conditions.selector),
    deviceTypes: Array.isArray(conditions.deviceTypes) ? (conditions.deviceTypes as DeviceType[]).filter((device) => DEVICE_TYPES.includes(device)) : [],
    events: savedEvents.map((event) => event.name).join("\n"),
    repeatedActivation: (conditions.events as { repeatedActivation?: unknown } | undefined)?.repeatedActivation === true,
    actionIds: ((conditions.actions as { values?: { id: number }[] } | undefined)?.values ?? []).map((action) => action.id),
    linkedFlagId: survey.linked_flag_id ? String(survey.linked_flag_id) : "",
    linkedFlagVariant: text(conditions.linkedFlagVariant),
    targeting: targetingDraftOf(survey.targeting_flag),
    schedule: survey.schedule,
    iterationCount: survey.iteration_count ? String(survey.iteration_count) : "",
    iterationFrequencyDays: survey.iteration_frequency_days ? String(survey.iteration_frequency_days) : "",
    kept: {
      conditions: Object.fromEntries(Object.entries(conditions).filter(([key]) => !EDITED_CONDITIONS.includes(key))),
      events: Object.fromEntries(savedEvents.map((event) => [event.name, event])),
      hadTargeting: survey.targeting_flag !== null && !survey.targeting_flag.deleted,
    },
  };
}

/** A user targeting flag's condition sets, as the flag form edits them; null when that form could not (group flags, other operators). */
function targetingDraftOf(flag: SurveyResource["targeting_flag"]): ConditionDraft[] | null {
  if (!flag || flag.deleted) return [];
  const resource = { ...flag, ensure_experience_continuity: false, tags: [], filters: { aggregation_group_type_index: null, multivariate: null, payloads: {}, ...flag.filters } } as unknown as FlagResource;
  return editableInForm(resource) ? flagDraftOf(resource).conditions : null;
}

/** Draft, running, stopped or archived, as PostHog's list shows a survey. */
export function surveyStatus(survey: Pick<SurveyResource, "start_date" | "end_date" | "archived">): { label: string; tone: "neutral" | "success" | "warning" } {
  if (survey.archived) return { label: "Archived", tone: "neutral" };
  if (!survey.start_date) return { label: "Draft", tone: "neutral" };
  if (survey.end_date) return { label: "Stopped", tone: "warning" };
  return { label: "Running", tone: "success" };
}
