/** PostHog's update_survey_iteration cases (posthog/tasks/test/test_update_survey_iteration.py): 3 iterations of 60 days. */
import { describe, expect, it } from "vitest";
import { iterationOn, iterationStartDates } from "./iterations";

const DAY = 86_400_000;
const today = new Date("2026-11-29T10:00:00Z");
const launchedDaysAgo = (days: number) => iterationStartDates(new Date(today.getTime() - days * DAY), 3, 60);

describe("a recurring survey's iteration", () => {
  it("starts an iteration every 60 days from the launch", () => {
    expect(iterationStartDates(new Date("2026-01-01T12:00:00Z"), 3, 60)).toEqual(["2026-01-01T12:00:00.000Z", "2026-03-02T12:00:00.000Z", "2026-05-01T12:00:00.000Z"]);
    expect(iterationStartDates(new Date(), 3, 0)).toEqual([]);
    expect(iterationStartDates(null, 3, 60)).toEqual([]);
  });

  it("is the third, 180 days after the launch (PostHog: test_can_update_survey_iteration)", () => {
    expect(iterationOn(launchedDaysAgo(180), 60, today)).toEqual({ current: 3, ended: false });
  });

  it("has ended 181 days after the launch (test_survey_ends_after_final_iteration)", () => {
    expect(iterationOn(launchedDaysAgo(181), 60, today)).toMatchObject({ ended: true });
  });

  it("is the first on the launch day and still on day 60, where the second begins (the earlier window wins, as PostHog's loop)", () => {
    expect(iterationOn(launchedDaysAgo(0), 60, today).current).toBe(1);
    expect(iterationOn(launchedDaysAgo(60), 60, today).current).toBe(1);
    expect(iterationOn(launchedDaysAgo(61), 60, today).current).toBe(2);
  });

  it("is none before the launch, and without a frequency (test_can_guard_for_current_survey_iteration_overflow)", () => {
    expect(iterationOn(launchedDaysAgo(-5), 60, today)).toEqual({ current: 0, ended: false });
    expect(iterationOn(launchedDaysAgo(180), 0, today)).toEqual({ current: 0, ended: false });
    expect(iterationOn([], 60, today)).toEqual({ current: 0, ended: false });
  });
});
