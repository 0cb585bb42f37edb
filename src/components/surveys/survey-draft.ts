/**
 * The survey builder's draft: what the form edits, turned into the API's body (the same
 * contract REST and tRPC parse) and back from a saved survey.
 */
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
}

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
});

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

export function bodyOf(draft: SurveyDraft): SurveyBody {
  return {
    name: draft.name,
    description: draft.description,
    type: draft.type,
    questions: draft.questions.map((question) => questionOf(question, question.type === "link" ? "" : draft.submitButtonText)) as SurveyBody["questions"],
    conditions: draft.url || draft.waitDays ? { ...(draft.url ? { url: draft.url, urlMatchType: draft.urlMatchType } : {}), ...(draft.waitDays ? { seenSurveyWaitPeriodInDays: Number(draft.waitDays) } : {}) } : null,
    appearance: {
      backgroundColor: draft.backgroundColor,
      submitButtonColor: draft.submitButtonColor,
      submitButtonText: draft.submitButtonText,
      position: draft.position,
      displayThankYouMessage: Boolean(draft.thankYou),
      thankYouMessageHeader: draft.thankYou,
    },
  };
}

const text = (value: unknown, fallback = "") => (typeof value === "string" ? value : fallback);

export function draftOf(survey: SurveyResource): SurveyDraft {
  const empty = emptySurveyDraft();
  const appearance = survey.appearance ?? {};
  const conditions = survey.conditions ?? {};
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
  };
}

/** Draft, running, stopped or archived, as PostHog's list shows a survey. */
export function surveyStatus(survey: Pick<SurveyResource, "start_date" | "end_date" | "archived">): { label: string; tone: "neutral" | "success" | "warning" } {
  if (survey.archived) return { label: "Archived", tone: "neutral" };
  if (!survey.start_date) return { label: "Draft", tone: "neutral" };
  if (survey.end_date) return { label: "Stopped", tone: "warning" };
  return { label: "Running", tone: "success" };
}
