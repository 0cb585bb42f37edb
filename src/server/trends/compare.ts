/**
 * The previous period of a trends chart (compareFilter): by default the same number of
 * buckets just before the range's first one, so the two series line up point by point; with
 * `compare_to` ("-1w", "-30d", "-1m", …) the range moved back by that much on the zone's
 * wall clock (PostHog's QueryCompareToDateRange: the start moved, the length kept).
 */
import { compareToShift, shiftInstant, shiftWall, UNIT_OF, type Unit } from "@/server/analytics/compare-to";
import { bucketStarts, startOfInterval, type ResolvedDateRange } from "@/server/analytics/date-range";

/** The previous period of `range`: as many buckets, ending just before it, or moved back by `compareTo`. */
export function previousRange(range: ResolvedDateRange, compareTo: true | string): ResolvedDateRange {
  const count = bucketStarts(range).length;
  let unit: Unit;
  let n: number;
  if (compareTo === true) {
    unit = UNIT_OF[range.interval];
    n = -count;
  } else {
    ({ unit, n } = compareToShift(compareTo));
  }
  const shift = (instant: Date) => shiftInstant(instant, unit, n, range.zone);
  const firstBucket = startOfInterval(shiftWall(range.firstBucket, unit, n), range.interval);
  // As many buckets as the current period, so the points pair up.
  const lastBucket = count === 0 ? shiftWall(firstBucket, UNIT_OF[range.interval], -1) : shiftWall(firstBucket, UNIT_OF[range.interval], count - 1);
  return { ...range, from: shift(range.from), to: shift(range.to), firstBucket, lastBucket, dateFrom: shift(range.dateFrom), dateTo: shift(range.dateTo) };
}
