/**
 * When a subscription is sent: PostHog's rule (posthog/models/subscription.py), an RFC 5545
 * rrule of `frequency`, `interval`, `count`, `start_date`, `until_date`, and `byweekday` with
 * `bysetpos` (which applies only with weekdays), all in UTC. The next delivery is the first
 * occurrence strictly after max(from, now + 15 minutes): never in the past, and a pass that
 * runs a little early does not send the same occurrence twice.
 */
import * as rruleModule from "rrule";
import type { Weekday } from "rrule";

// rrule is CommonJS to Node's own ESM loader (the server bundle leaves node_modules to it),
// which finds no named exports in it: they are on `default` there, and on the module elsewhere.
const { RRule } = ((rruleModule as { default?: typeof rruleModule }).default ?? rruleModule) as typeof rruleModule;
type RRule = InstanceType<typeof RRule>;
import type { SubscriptionFrequency, SubscriptionWeekday } from "./contract";

export interface Schedule {
  frequency: SubscriptionFrequency;
  interval: number;
  count: number | null;
  byweekday: readonly SubscriptionWeekday[];
  bysetpos: number | null;
  startDate: Date;
  untilDate: Date | null;
}

const FREQ = { daily: RRule.DAILY, weekly: RRule.WEEKLY, monthly: RRule.MONTHLY, yearly: RRule.YEARLY } as const;
const WEEKDAY: Record<SubscriptionWeekday, Weekday> = {
  monday: RRule.MO,
  tuesday: RRule.TU,
  wednesday: RRule.WE,
  thursday: RRule.TH,
  friday: RRule.FR,
  saturday: RRule.SA,
  sunday: RRule.SU,
};
/** PostHog's buffer: a pass may run this much early. */
export const EARLY_MS = 15 * 60_000;

export function ruleOf(schedule: Schedule): RRule {
  const weekdays = schedule.byweekday.length > 0;
  return new RRule({
    freq: FREQ[schedule.frequency],
    interval: schedule.interval,
    count: schedule.count,
    dtstart: schedule.startDate,
    until: schedule.untilDate,
    byweekday: weekdays ? [...new Set(schedule.byweekday)].map((day) => WEEKDAY[day]) : null,
    bysetpos: weekdays && schedule.bysetpos !== null ? schedule.bysetpos : null,
  });
}

const DAY_MS = 86_400_000;
/** 400 Gregorian years are 146,097 days, whole weeks: leap days and weekdays repeat exactly. */
const CALENDAR_CYCLE_YEARS = 400;

/**
 * The schedule's start moved forward by whole periods to just before `after`: rrule's `after`
 * steps through every occurrence from the start (a daily schedule from the year 1 took 2 s of
 * the thread), and moving by whole periods (whole calendar cycles for months and years) keeps
 * every later occurrence. A `count` counts from the real start, so it walks (at most
 * `maxCount` occurrences).
 */
function startNear(schedule: Schedule, after: Date): Date {
  const start = schedule.startDate;
  if (schedule.count !== null || after.getTime() <= start.getTime()) return start;
  const stepMs = schedule.frequency === "daily" ? schedule.interval * DAY_MS : schedule.frequency === "weekly" ? schedule.interval * 7 * DAY_MS : null;
  if (stepMs !== null) {
    const steps = Math.floor((after.getTime() - start.getTime()) / stepMs) - 1;
    return steps > 0 ? new Date(start.getTime() + steps * stepMs) : start;
  }
  const stepYears = CALENDAR_CYCLE_YEARS * schedule.interval;
  const cycles = Math.floor((after.getUTCFullYear() - start.getUTCFullYear() - 1) / stepYears);
  if (cycles <= 0) return start;
  const moved = new Date(start);
  moved.setUTCFullYear(start.getUTCFullYear() + cycles * stepYears);
  return moved;
}

/** The next delivery after `from` (default now), never before now + 15 minutes; null once the schedule has ended. */
export function nextDeliveryDate(schedule: Schedule, from: Date | null = null, now: Date = new Date()): Date | null {
  const floor = new Date(now.getTime() + EARLY_MS);
  const after = from && from.getTime() > floor.getTime() ? from : floor;
  return ruleOf({ ...schedule, startDate: startNear(schedule, after) }).after(after, false);
}

/** The fields whose change moves the next delivery (PostHog's RRULE_FIELDS). */
export function sameSchedule(a: Schedule, b: Schedule): boolean {
  return ruleOf(a).toString() === ruleOf(b).toString();
}

const UNIT = { daily: "day", weekly: "week", monthly: "month", yearly: "year" } as const;
const POSITION: Record<number, string> = { 1: "first", 2: "second", 3: "third", 4: "fourth", [-1]: "last" };

/** PostHog's `summary`: "sent every 2 months on the first Wednesday". */
export function scheduleSummary(schedule: Pick<Schedule, "frequency" | "interval" | "byweekday" | "bysetpos">): string {
  const unit = UNIT[schedule.frequency];
  if (!unit) return "sent on a schedule";
  let summary = `sent every ${schedule.interval > 1 ? `${schedule.interval} ${unit}s` : unit}`;
  if (schedule.byweekday.length > 0 && schedule.bysetpos) {
    const position = POSITION[schedule.bysetpos];
    if (!position) return "sent on a schedule";
    const day = schedule.byweekday.length === 1 ? schedule.byweekday[0]!.charAt(0).toUpperCase() + schedule.byweekday[0]!.slice(1) : "day";
    summary += ` on the ${position} ${day}`;
  }
  return summary;
}
