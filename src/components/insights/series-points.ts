/**
 * Which points of a line get a visible dot: every point while the buckets are few (a sparse
 * series must not vanish into the axis); on longer charts only the non-zero ones (a month of
 * zeros would be a dotted baseline); past that only the points a line would hide — a value
 * with nothing on either side.
 */

/** Up to this many buckets, every point has its dot. */
export const ALL_DOTS_UP_TO = 14;
/** Up to this many, the non-zero points; above, dots would run together into a thick line. */
export const DOTS_UP_TO = 40;

export function pointShown(data: readonly number[], index: number): boolean {
  if (data.length <= ALL_DOTS_UP_TO) return true;
  const value = data[index] ?? 0;
  if (data.length <= DOTS_UP_TO) return value !== 0;
  return value !== 0 && (data[index - 1] ?? 0) === 0 && (data[index + 1] ?? 0) === 0;
}
