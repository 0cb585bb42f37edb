/** A survey as PostHog's API shows it (SurveySerializer), and as posthog-js's public list does. */
import { toUserBasic } from "@/server/accounts/present";
import type { PublicSurvey, SurveyResource } from "./contract";
import type { SurveyRow } from "./store";

export type { SurveyResource } from "./contract";

type FlagRow = SurveyRow["linkedFlag"];

const objectOf = (value: unknown): Record<string, unknown> | null => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null);
const listOf = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? (value as Record<string, unknown>[]) : []);
const iso = (value: Date | null) => value?.toISOString() ?? null;

function minimalFlag(flag: FlagRow) {
  if (!flag) return null;
  return { id: flag.id, team_id: flag.projectId, name: flag.name, key: flag.key, filters: objectOf(flag.filters) ?? {}, deleted: flag.deleted, active: flag.active };
}

/** A flag the survey names, unless it was deleted since. */
const liveKey = (flag: FlagRow) => (flag && !flag.deleted ? flag.key : null);

export function presentSurvey(row: SurveyRow): SurveyResource {
  const sampling = objectOf(row.sampling) ?? {};
  const linkedVariant = (objectOf(row.conditions)?.linkedFlagVariant as string | undefined) ?? null;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type as SurveyResource["type"],
    schedule: row.schedule as SurveyResource["schedule"],
    linked_flag: minimalFlag(row.linkedFlag),
    linked_flag_id: row.linkedFlagId,
    linked_insight_id: row.linkedInsightId,
    targeting_flag: minimalFlag(row.targetingFlag),
    internal_targeting_flag: minimalFlag(row.internalTargetingFlag),
    questions: listOf(row.questions),
    conditions: objectOf(row.conditions),
    appearance: objectOf(row.appearance),
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy ? toUserBasic(row.createdBy) : null,
    start_date: iso(row.startDate),
    end_date: iso(row.endDate),
    archived: row.archived,
    responses_limit: row.responsesLimit,
    feature_flag_keys: [
      { key: "linked_flag_key", value: liveKey(row.linkedFlag) },
      { key: "targeting_flag_key", value: liveKey(row.targetingFlag) },
      { key: "internal_targeting_flag_key", value: liveKey(row.internalTargetingFlag) },
      ...(linkedVariant ? [{ key: "linked_flag_variant", value: linkedVariant }] : []),
    ],
    iteration_count: row.iterationCount,
    iteration_frequency_days: row.iterationFrequencyDays,
    iteration_start_dates: Array.isArray(row.iterationStartDates) ? (row.iterationStartDates as string[]) : [],
    current_iteration: row.currentIteration,
    current_iteration_start_date: iso(row.currentIterationStartDate),
    response_sampling_start_date: (sampling.response_sampling_start_date as string | undefined) ?? null,
    response_sampling_interval_type: (sampling.response_sampling_interval_type as string | undefined) ?? null,
    response_sampling_interval: (sampling.response_sampling_interval as number | undefined) ?? null,
    response_sampling_limit: (sampling.response_sampling_limit as number | undefined) ?? null,
    response_sampling_daily_limits: null,
    enable_partial_responses: row.enablePartialResponses,
    user_access_level: "editor",
  };
}

export function presentPublicSurvey(row: SurveyRow): PublicSurvey {
  return {
    id: row.id,
    name: row.name,
    type: row.type as PublicSurvey["type"],
    linked_flag_key: liveKey(row.linkedFlag),
    targeting_flag_key: liveKey(row.targetingFlag),
    internal_targeting_flag_key: liveKey(row.internalTargetingFlag),
    questions: listOf(row.questions),
    conditions: objectOf(row.conditions),
    appearance: objectOf(row.appearance),
    start_date: iso(row.startDate),
    end_date: iso(row.endDate),
    current_iteration: row.currentIteration,
    current_iteration_start_date: iso(row.currentIterationStartDate),
    schedule: row.schedule as PublicSurvey["schedule"],
    enable_partial_responses: row.enablePartialResponses,
  };
}
