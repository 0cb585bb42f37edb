/**
 * A survey's results from its events, as PostHog computes them
 * (products/surveys/backend/responses/stats.py, fetch_rows.py), in memory over the events the
 * store read — so every event store answers alike:
 *
 * - `stats` per event (`survey shown`, `survey dismissed`, `survey sent`): counts, unique
 *   persons, first and last seen; `survey sent` counts submissions, each the latest event of
 *   its `$survey_submission_id` (or its own uuid without one); a person who sent is not
 *   counted among the dismissers; "only seen" is shown without sent or dismissed.
 * - `rates` against `survey shown`, percentages to 2 dp.
 * - per question, from the submissions: the answer under `$survey_response_<question id>`,
 *   else the legacy key by index (`$survey_response` for the first); rating counts with NPS
 *   (scale 10) or CSAT (scale 5), choice counts (open-choice answers apart), open texts with
 *   the person, link clicks.
 * - the drop-off from shown to each question answered to sent, in unique persons.
 */
import type { SurveyQuestion } from "./contract";

export interface SurveyEvent {
  uuid: string;
  event: string;
  distinctId: string;
  personId: string | null;
  timestamp: Date;
  properties: Record<string, unknown>;
}

export const SURVEY_EVENTS = ["survey shown", "survey dismissed", "survey sent"] as const;
const OPEN_ANSWERS_SHOWN = 100;

export interface EventStats {
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
  unique_persons_only_seen: number;
  total_count_only_seen: number;
}

export interface QuestionResult {
  id: string;
  index: number;
  type: string;
  question: string;
  /** Submissions that answered it. */
  answered: number;
  /** Rating: value → count; choices: choice → count (in the question's order). */
  counts: { value: string; count: number }[];
  nps: { promoters: number; passives: number; detractors: number; score: number } | null;
  csat: { satisfied: number; score: number } | null;
  /** Open texts, and open-choice answers outside the choices: newest first. */
  answers: { response: string; distinct_id: string; person_id: string | null; timestamp: string }[];
}

export interface SurveyResults {
  stats: Record<(typeof SURVEY_EVENTS)[number], EventStats>;
  rates: { response_rate: number; dismissal_rate: number; unique_users_response_rate: number; unique_users_dismissal_rate: number };
  questions: QuestionResult[];
  funnel: { step: string; persons: number }[];
}

const personOf = (event: SurveyEvent) => event.personId ?? `distinct:${event.distinctId}`;
const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

/** The latest event of each submission. */
function submissions(sent: SurveyEvent[]): SurveyEvent[] {
  const latest = new Map<string, SurveyEvent>();
  for (const event of sent) {
    const key = typeof event.properties.$survey_submission_id === "string" && event.properties.$survey_submission_id ? event.properties.$survey_submission_id : event.uuid;
    const current = latest.get(key);
    if (!current || event.timestamp > current.timestamp) latest.set(key, event);
  }
  return [...latest.values()];
}

function statsOf(events: SurveyEvent[], persons: Set<string>, onlySeen: Set<string> | null): EventStats {
  // A loop, not Math.min(...times): a spread of some 125,000 arguments overflows the stack.
  let first = Infinity;
  let last = -Infinity;
  for (const event of events) {
    const time = event.timestamp.getTime();
    if (time < first) first = time;
    if (time > last) last = time;
  }
  const onlySeenEvents = onlySeen ? events.filter((event) => onlySeen.has(personOf(event))) : [];
  return {
    total_count: events.length,
    unique_persons: persons.size,
    first_seen: events.length ? new Date(first).toISOString() : null,
    last_seen: events.length ? new Date(last).toISOString() : null,
    unique_persons_only_seen: onlySeen?.size ?? 0,
    total_count_only_seen: onlySeenEvents.length,
  };
}

/** A submission's answer to the question at `index`, or undefined. */
export function answerOf(properties: Record<string, unknown>, question: { id: string }, index: number): unknown {
  const byId = properties[`$survey_response_${question.id}`];
  if (byId !== undefined && byId !== null && byId !== "") return byId;
  const legacy = properties[index === 0 ? "$survey_response" : `$survey_response_${index}`];
  return legacy === null || legacy === "" ? undefined : legacy;
}

function questionResult(question: SurveyQuestion, index: number, answered: SurveyEvent[]): QuestionResult {
  const result: QuestionResult = { id: question.id, index, type: question.type, question: question.question, answered: 0, counts: [], nps: null, csat: null, answers: [] };
  const tally = new Map<string, number>();
  const add = (value: string) => tally.set(value, (tally.get(value) ?? 0) + 1);
  const openAnswer = (event: SurveyEvent, response: string) => result.answers.push({ response, distinct_id: event.distinctId, person_id: event.personId, timestamp: event.timestamp.toISOString() });
  for (const event of answered) {
    const answer = answerOf(event.properties, question, index);
    if (answer === undefined) continue;
    result.answered++;
    if (question.type === "rating") add(String(answer));
    else if (question.type === "single_choice" || question.type === "multiple_choice") {
      for (const choice of Array.isArray(answer) ? answer : [answer]) {
        const text = String(choice);
        if (question.choices.includes(text)) add(text);
        else {
          add("Other");
          openAnswer(event, text);
        }
      }
    } else if (question.type === "open") openAnswer(event, String(answer));
    else add(String(answer));
  }
  if (question.type === "rating") {
    const from = question.scale === 10 ? 0 : 1;
    result.counts = Array.from({ length: question.scale - from + 1 }, (_, i) => String(from + i)).map((value) => ({ value, count: tally.get(value) ?? 0 }));
    const at = (low: number, high: number) => result.counts.filter(({ value }) => Number(value) >= low && Number(value) <= high).reduce((sum, { count }) => sum + count, 0);
    const total = result.counts.reduce((sum, { count }) => sum + count, 0);
    if (question.scale === 10) {
      const [promoters, passives, detractors] = [at(9, 10), at(7, 8), at(0, 6)];
      result.nps = { promoters, passives, detractors, score: total === 0 ? 0 : Math.round(((promoters - detractors) / total) * 1000) / 10 };
    }
    if (question.scale === 5) {
      const satisfied = at(4, 5);
      result.csat = { satisfied, score: rate(satisfied, total) };
    }
  } else if (question.type === "single_choice" || question.type === "multiple_choice") {
    result.counts = [...question.choices, ...(tally.has("Other") && !question.choices.includes("Other") ? ["Other"] : [])].map((value) => ({ value, count: tally.get(value) ?? 0 }));
  } else {
    result.counts = [...tally].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  }
  result.answers.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
  result.answers = result.answers.slice(0, OPEN_ANSWERS_SHOWN);
  return result;
}

export function computeResults(questions: readonly SurveyQuestion[], events: Record<(typeof SURVEY_EVENTS)[number], SurveyEvent[]>): SurveyResults {
  const sent = submissions(events["survey sent"]);
  const senders = new Set(sent.map(personOf));
  const dismissers = new Set(events["survey dismissed"].map(personOf).filter((person) => !senders.has(person)));
  const viewers = new Set(events["survey shown"].map(personOf));
  const onlySeen = new Set([...viewers].filter((person) => !senders.has(person) && !dismissers.has(person)));
  const stats = {
    "survey shown": statsOf(events["survey shown"], viewers, onlySeen),
    "survey dismissed": statsOf(events["survey dismissed"], dismissers, null),
    "survey sent": statsOf(sent, senders, null),
  };
  const shown = stats["survey shown"];
  const results = questions.map((question, index) => questionResult(question, index, sent));
  return {
    stats,
    rates: {
      response_rate: rate(stats["survey sent"].total_count, shown.total_count),
      dismissal_rate: rate(stats["survey dismissed"].total_count, shown.total_count),
      unique_users_response_rate: rate(senders.size, shown.unique_persons),
      unique_users_dismissal_rate: rate(dismissers.size, shown.unique_persons),
    },
    questions: results,
    funnel: [
      { step: "survey shown", persons: viewers.size },
      ...results.map((question, index) => ({ step: `question ${index + 1}`, persons: new Set(sent.filter((event) => answerOf(event.properties, questions[index]!, index) !== undefined).map(personOf)).size })),
      { step: "survey sent", persons: new Set(sent.filter((event) => event.properties.$survey_completed !== false).map(personOf)).size },
    ],
  };
}
