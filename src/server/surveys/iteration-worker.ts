/**
 * The recurring surveys' schedule in the background: a pass at start and then every hour, as
 * PostHog's periodic `update_survey_iteration` task (iterations are whole days, so an hour
 * late at most).
 */
import type { Database } from "@/server/db";
import { startPeriodicPass, stopPeriodicPass, type PassStart } from "@/server/periodic-pass";
import { advanceSurveyIterations } from "./service";

const KEY = Symbol.for("burrow.surveyIterations");

export function startSurveyIterations(db: Database, options: PassStart & { intervalMs?: number } = {}): void {
  startPeriodicPass(KEY, options.intervalMs ?? 60 * 60_000, "advancing recurring surveys", () => advanceSurveyIterations(db), options);
}

/** Stops the schedule, waiting for a pass under way. */
export function stopSurveyIterations(): Promise<void> {
  return stopPeriodicPass(KEY);
}
