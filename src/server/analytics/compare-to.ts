/**
 * PostHog's `compareFilter.compare_to` ("-1w", "-30d", "-1m", …): the period compared with is
 * the current one moved back by that much on the zone's wall clock (QueryCompareToDateRange).
 * Shared by the kinds that compare (trends, web analytics).
 */
import { instantOf, wallOf, type Interval } from "./date-range";

/** A relative date back in time: hours, days, weeks, months, quarters or years. */
export const COMPARE_TO = /^-\d{1,4}[hdwmqy]$/;
export const COMPARE_TO_MESSAGE = "compare_to must be a relative date such as '-1w' (a number of hours, days, weeks, months or years back).";

export type Unit = "h" | "d" | "w" | "m" | "q" | "y";

/** The unit a chart interval moves by. */
export const UNIT_OF: Record<Interval, Unit> = { hour: "h", day: "d", week: "w", month: "m" };

/** A wall date moved by `n` units; months keep their day where the target month has it, else its last day. */
export function shiftWall(wall: Date, unit: Unit, n: number): Date {
  const d = new Date(wall.getTime());
  if (unit === "h") d.setUTCHours(d.getUTCHours() + n);
  else if (unit === "d") d.setUTCDate(d.getUTCDate() + n);
  else if (unit === "w") d.setUTCDate(d.getUTCDate() + 7 * n);
  else {
    const months = unit === "m" ? n : unit === "q" ? 3 * n : 12 * n;
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + months);
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    d.setUTCDate(Math.min(day, last));
  }
  return d;
}

/** A checked `compare_to` as the unit and (negative) count it moves by. */
export function compareToShift(compareTo: string): { unit: Unit; n: number } {
  const match = /^-(\d+)([hdwmqy])$/.exec(compareTo);
  if (!match) throw new Error(`not a compare_to: ${compareTo}`);
  return { unit: match[2] as Unit, n: -Number(match[1]) };
}

/** An instant moved by `n` units on `zone`'s wall clock. */
export function shiftInstant(instant: Date, unit: Unit, n: number, zone: string): Date {
  return instantOf(shiftWall(wallOf(instant, zone), unit, n), zone);
}

/** An instant moved back by `compareTo` on `zone`'s wall clock. */
export function shiftedBack(instant: Date, compareTo: string, zone: string): Date {
  const { unit, n } = compareToShift(compareTo);
  return shiftInstant(instant, unit, n, zone);
}
