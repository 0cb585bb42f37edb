/**
 * How far back the ClickHouse events list looks for a page. ClickHouse reads and sorts every
 * row its WHERE leaves, so the newest page is read from a recent time window when that
 * window holds the whole page (as PostHog's events query does): every event outside it is
 * older than every event in it. How wide a window must be depends on how busy the project
 * is (and how narrow the filters): minutes for a busy one, weeks for a quiet one. So the
 * first window is what the last page of the same project and filters needed, with room to
 * spare, and a window that falls short widens eightfold until a year, then the list reads
 * without one. A hint is only a starting point: a wrong or missing one costs queries, never
 * rows.
 */

const MINUTE_MS = 60_000;
/** With no hint: an hour, a page's worth for a project of a few thousand events a day. */
const FIRST_WINDOW_MS = 60 * MINUTE_MS;
const SMALLEST_WINDOW_MS = MINUTE_MS;
const WIDEST_WINDOW_MS = 366 * 24 * 60 * MINUTE_MS;
const WIDEN = 8;
/** The window a hint asks for is this many times the span the last page covered. */
const ROOM = 2;
const HINTS_LIMIT = 10_000;

export class ListWindows {
  /** Span (ms) the last page of a project and filter needed; Infinity when it needed every event. */
  private readonly spans = new Map<string, number>();

  /**
   * The windows (ms back from the newest bound) to try in turn for the page; `null` last,
   * meaning no window. `rangeMs` is how far back the filters themselves reach (Infinity
   * without `after`): a window that covers it is the same as none.
   */
  windows(key: string, rangeMs: number): (number | null)[] {
    const span = this.spans.get(key);
    if (span === Infinity) return [null];
    const windows: (number | null)[] = [];
    let window = span === undefined ? FIRST_WINDOW_MS : Math.max(SMALLEST_WINDOW_MS, Math.ceil(span * ROOM));
    while (window < WIDEST_WINDOW_MS && window < rangeMs) {
      windows.push(window);
      window *= WIDEN;
    }
    windows.push(null);
    return windows;
  }

  /**
   * What a page needed: `spanMs` from the newest bound back to its last row's time, or
   * Infinity when it came from a query with no window and held fewer rows than asked for.
   */
  remember(key: string, spanMs: number): void {
    if (this.spans.size >= HINTS_LIMIT && !this.spans.has(key)) this.spans.clear();
    this.spans.set(key, Math.max(0, spanMs));
  }
}
