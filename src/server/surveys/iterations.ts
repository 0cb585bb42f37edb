/**
 * A recurring survey's iterations (PostHog's `iteration_count` × `iteration_frequency_days`
 * from its launch, posthog/tasks/update_survey_iteration.py): which one runs on a given day,
 * and when the last one is over. Days are UTC calendar days, as PostHog's task compares dates.
 */
const DAY_MS = 86_400_000;

/** The start of each iteration: the launch, then every `everyDays` days. None without a schedule. */
export function iterationStartDates(start: Date | null, count: number | null | undefined, everyDays: number | null | undefined): string[] {
  if (!start || !count || !everyDays) return [];
  return Array.from({ length: count }, (_, index) => new Date(start.getTime() + index * everyDays * DAY_MS).toISOString());
}

const utcDay = (time: Date) => Math.floor(time.getTime() / DAY_MS);

/**
 * Where the schedule stands on `today`: the 1-based iteration whose window (its start day and
 * the `everyDays` days after it) holds today, or 0 when none does; `ended` once the day after
 * the last window has come (the survey then stops).
 */
export function iterationOn(startDates: readonly string[], everyDays: number | null, today: Date): { current: number; ended: boolean } {
  if (startDates.length === 0 || !everyDays) return { current: 0, ended: false };
  const day = utcDay(today);
  const starts = startDates.map((start) => utcDay(new Date(start)));
  const ended = day > starts[starts.length - 1]! + everyDays;
  const index = starts.findIndex((start) => day - start >= 0 && day - start <= everyDays);
  return { current: index + 1, ended };
}
