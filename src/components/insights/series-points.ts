/**
 * Which points of a line get a visible dot: every point while the buckets are few enough to
 * tell apart (a sparse series must not vanish into the axis), else only the points a line
 * would hide — a value with nothing on either side.
 */

/** Above this many buckets, dots would run together into a thick line. */
export const DOTS_UP_TO = 40;

export function pointShown(data: readonly number[], index: number): boolean {
  if (data.length <= DOTS_UP_TO) return true;
  const value = data[index] ?? 0;
  return value !== 0 && (data[index - 1] ?? 0) === 0 && (data[index + 1] ?? 0) === 0;
}
