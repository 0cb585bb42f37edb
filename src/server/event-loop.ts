/**
 * Long work on the server's one thread (a 100,000-event `/batch/`: validation, persons,
 * and on the embedded database every query, since PGlite runs its wasm in this thread)
 * must let other requests in. Promises alone never do: a chain of awaits that resolve at
 * once, or PGlite's queries one after another, runs to the end as microtasks while every
 * socket waits. Before this, such a batch held `/_health` for 4–12 s.
 */
import os from "node:os";
import { performance } from "node:perf_hooks";

/**
 * How much of one check phase of the event loop the loops that yielded (TimeSlice) may have
 * together: once a phase has given this out, the rest wait for the next turn, after the
 * sockets had theirs. With a turn each, four large `/batch/` requests ran 4 × 20 ms between
 * two polls, and a request needing several polls waited for each (bench:batch-stall).
 */
const PHASE_SHARE_MS = 10;

/** The loops waiting to resume, first come first served (one check-phase callback each). */
const resumeQueue: Array<() => void> = [];
let phaseStarted = 0;
let markerPending = false;

function markPhase() {
  markerPending = false;
  phaseStarted = performance.now();
}

/** A callback in the next check phase that resumes the longest-waiting loop, preceded by one that notes when that phase began. */
function scheduleResume() {
  if (!markerPending) {
    markerPending = true;
    setImmediate(markPhase);
  }
  setImmediate(resumeNext);
}

function resumeNext() {
  if (performance.now() - phaseStarted >= PHASE_SHARE_MS) return scheduleResume();
  resumeQueue.shift()?.();
}

/** Resolves on a later turn of the event loop, after pending I/O (other requests) had its turn, and after the loops that yielded before. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    resumeQueue.push(resolve);
    scheduleResume();
  });
}

/**
 * Flag requests in progress (urgent): an SDK holds a page's first render, or a server its
 * answer, for them. Bulk ingestion that arrives meanwhile steps aside until none is left, for at
 * most BULK_STEP_ASIDE_MS: with the thread busy ingesting, a flag request waited for whole
 * turns of other requests' work (bench:hot's `/decide` beside `/batch/`, p50 15–31 ms).
 */
let urgentInProgress = 0;
const steppingAside = new Set<() => void>();

/** How long a bulk request waits at most for urgent ones (its own answer is that much later at worst). */
export const BULK_STEP_ASIDE_MS = 30;

/** Runs `work` as urgent: bulk requests arriving meanwhile wait (stepAsideForUrgent). */
export async function urgently<T>(work: () => Promise<T>): Promise<T> {
  urgentInProgress++;
  try {
    return await work();
  } finally {
    if (--urgentInProgress === 0) for (const go of [...steppingAside]) go();
  }
}

/**
 * For bulk work about to start: nothing while no urgent request is in progress; else resolves
 * once none is, or after `maxMs`, whichever comes first.
 */
export function stepAsideForUrgent(maxMs = BULK_STEP_ASIDE_MS): Promise<void> | undefined {
  if (urgentInProgress === 0) return undefined;
  return new Promise((resolve) => {
    const go = () => {
      clearTimeout(timer);
      steppingAside.delete(go);
      resolve();
    };
    const timer = setTimeout(go, maxMs);
    steppingAside.add(go);
  });
}

/**
 * How long a loop may hold the thread before it lets others in. Short enough that a request
 * arriving meanwhile waits a few milliseconds, long enough that the yields cost nothing
 * measurable (one a 10 ms slice).
 */
const SLICE_MS = 10;

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

/** Busy and total time (ms) since some start: a share of it is a utilization. */
export interface BusyTimes {
  busy: number;
  total: number;
}

/** The cores' busy and total times since boot. */
function coreTimes(): BusyTimes {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** This thread's event loop: active and total time since it started. */
function threadTimes(): BusyTimes {
  const { active, idle } = performance.eventLoopUtilization();
  return { busy: active, total: active + idle };
}

/** The busy share of what passed between two readings (0 when no time did). */
const busyShare = (before: BusyTimes, after: BusyTimes) => (after.total > before.total ? (after.busy - before.busy) / (after.total - before.total) : 0);

/**
 * Whether the server is saturated lately, for background work that shares it with requests
 * (and steps back while it is, since whatever it runs then, a request waits for): this thread
 * busy most of the time (its event-loop utilization), or the machine's cores nearly all busy
 * (the database and the load's clients on the same cores, as on one small server). Measured
 * over windows of `windowMs`; reading the cores' times is one small file read per window.
 */
export class ServerLoad {
  private thread: BusyTimes;
  private cores: BusyTimes;
  private at = performance.now();
  private busy = false;

  constructor(
    private readonly options = { thread: 0.8, cores: 0.9, windowMs: 250 },
    // The machine's cores are shared (with the test runner's other workers, too), and a test
    // worker's thread runs what earlier files left behind: tests read their own.
    private readonly readCores: () => BusyTimes = coreTimes,
    private readonly readThread: () => BusyTimes = threadTimes,
  ) {
    this.cores = readCores();
    this.thread = readThread();
  }

  /** The last whole window's verdict (a new window starts when this one is over). */
  high(): boolean {
    const now = performance.now();
    if (now - this.at < this.options.windowMs) return this.busy;
    const thread = this.readThread();
    const cores = this.readCores();
    this.busy = busyShare(this.thread, thread) > this.options.thread || busyShare(this.cores, cores) > this.options.cores;
    this.thread = thread;
    this.cores = cores;
    this.at = now;
    return this.busy;
  }
}
