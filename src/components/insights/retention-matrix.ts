/**
 * A RetentionQuery result (one row per cohort, `values` = [{count, label}] per period, the
 * first being the cohort's size) as the coloured matrix PostHog draws: each cell's share of
 * its cohort and the shade that shows it.
 */
import { breakdownName } from "./series-names";
import { isObject } from "@/server/input/json-object";

export interface RetentionResultRow {
  values: { count: number; label?: string }[];
  label: string;
  date: string;
  breakdown_value?: unknown;
}

export interface RetentionCell {
  period: number;
  count: number;
  /** count / cohort size, 0..1 (0 for an empty cohort). */
  share: number;
  /** After the query's range: no data can be there yet, so the cell is drawn blank. */
  future: boolean;
}

export interface RetentionCohort {
  /** Row index in the result. */
  index: number;
  /** The cohort's index among its breakdown value's cohorts (InsightActorsQuery's `interval`). */
  interval: number;
  /** The raw breakdown value (InsightActorsQuery's `breakdown`), null without breakdown. */
  breakdownValue: unknown;
  label: string;
  date: string;
  size: number;
  breakdown: string | null;
  cells: RetentionCell[];
}

export interface RetentionMatrix {
  /** Column headings: "Day 0", "Day 1", … (the first row's labels). */
  periods: string[];
  cohorts: RetentionCohort[];
}

function isRow(value: unknown): value is RetentionResultRow {
  return isObject(value) && Array.isArray(value.values) && value.values.every((cell) => isObject(cell) && typeof cell.count === "number");
}

/**
 * The matrix of `results`, or null if it is not retention's shape. Rows of one breakdown
 * value are consecutive cohorts; a cell whose period falls after the last cohort of its
 * group lies beyond the range (PostHog pads those with zeros) and is marked `future`.
 */
export function retentionMatrix(results: unknown): RetentionMatrix | null {
  if (!Array.isArray(results) || !results.every(isRow)) return null;
  const rows = results as RetentionResultRow[];
  const width = Math.max(0, ...rows.map((row) => row.values.length));
  const periods = Array.from({ length: width }, (_, period) => rows[0]?.values[period]?.label ?? `Period ${period}`);
  // Cohorts per breakdown value: the last one in each group is the range's last interval.
  const groupSize = new Map<string, number>();
  const groupIndex: number[] = [];
  for (const row of rows) {
    const key = JSON.stringify(row.breakdown_value ?? null);
    groupIndex.push(groupSize.get(key) ?? 0);
    groupSize.set(key, (groupSize.get(key) ?? 0) + 1);
  }
  const cohorts = rows.map((row, index) => {
    const size = row.values[0]?.count ?? 0;
    const inGroup = groupSize.get(JSON.stringify(row.breakdown_value ?? null))!;
    return {
      index,
      interval: groupIndex[index]!,
      breakdownValue: row.breakdown_value ?? null,
      label: row.label,
      date: row.date,
      size,
      breakdown: row.breakdown_value === null || row.breakdown_value === undefined ? null : breakdownName(row.breakdown_value),
      cells: row.values.map((cell, period) => ({
        period,
        count: cell.count,
        share: size > 0 ? cell.count / size : 0,
        future: groupIndex[index]! + period >= inGroup,
      })),
    };
  });
  return { periods, cohorts };
}

/**
 * A cell's colours: the brand colour at an opacity that grows with the share (a faint tint
 * even at 0%, so the grid reads as a grid), white text once the tint is dark enough.
 */
export function retentionShade(share: number): { background: string; color: string } {
  const clamped = Math.min(1, Math.max(0, share));
  const alpha = Math.round((0.06 + 0.94 * clamped) * 100) / 100;
  return { background: `rgba(79, 70, 229, ${alpha})`, color: alpha >= 0.5 ? "#ffffff" : "#1f2937" };
}

export interface RetentionCurvePoint {
  period: string;
  /** The share of all cohorts' members back in this period, 0..1, over the cohorts the period has reached; null when none has. */
  share: number | null;
}

/**
 * PostHog's retention graph, one line for every cohort together: per period, the members of
 * the cohorts that period has reached (not `future`, not empty) who came back, over those
 * cohorts' sizes — so a late period, reached by few cohorts, is their share alone.
 */
export function retentionCurve(matrix: RetentionMatrix): RetentionCurvePoint[] {
  return matrix.periods.map((period, index) => {
    let back = 0;
    let size = 0;
    for (const cohort of matrix.cohorts) {
      const cell = cohort.cells[index];
      if (!cell || cell.future || cohort.size === 0) continue;
      back += cell.count;
      size += cohort.size;
    }
    return { period, share: size === 0 ? null : back / size };
  });
}
