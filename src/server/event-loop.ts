/**
 * Long work on the server's one thread (a 100,000-event `/batch/`: validation, persons,
 * and on the embedded database every query, since PGlite runs its wasm in this thread)
 * must let other requests in. Promises alone never do: a chain of awaits that resolve at
 * once, or PGlite's queries one after another, runs to the end as microtasks while every
 * socket waits. Before this, such a batch held `/_health` for 4–12 s.
 */
import { performance as nodePerformance } from "node:perf_hooks";

/** Resolves on a later turn of the event loop, after pending I/O (other requests) had its turn. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * How long a loop may hold the thread before it lets others in. Short enough that a request
 * arriving meanwhile waits tens of milliseconds, long enough that the yields cost nothing
 * measurable (one a 20 ms slice).
 */
const SLICE_MS = 20;

/**
 * A loop's share of the thread: `await slice.pace()` once per item yields to the event
 * loop only when the current slice is used up, so a short request pays nothing.
 */
export class TimeSlice {
  private started = performance.now();

  constructor(private readonly ms = SLICE_MS) {}

  /** Nothing (an `await` of it costs one microtask, no promise) until the slice is used up; then the yield. */
  pace(): Promise<void> | undefined {
    if (performance.now() - this.started < this.ms) return undefined;
    return yieldToEventLoop().then(() => {
      this.started = performance.now();
    });
  }
}

/**
 * Whether this thread has been busy most of the time lately (its event-loop utilization over
 * windows of `windowMs`): background work that shares the thread with requests steps back
 * while it is, since whatever it runs then, a request waits for.
 */
export class EventLoopLoad {
  private last = nodePerformance.eventLoopUtilization();
  private lastAt = performance.now();
  private busy = false;

  constructor(
    private readonly threshold = 0.8,
    private readonly windowMs = 250,
  ) {}

  /** The last whole window's verdict (a new window starts when this one is over). */
  high(): boolean {
    const now = performance.now();
    if (now - this.lastAt >= this.windowMs) {
      const current = nodePerformance.eventLoopUtilization();
      this.busy = nodePerformance.eventLoopUtilization(current, this.last).utilization > this.threshold;
      this.last = current;
      this.lastAt = now;
    }
    return this.busy;
  }
}
