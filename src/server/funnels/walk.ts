/**
 * The per-person funnel: PostHog's funnel UDF (funnel-udf/src/steps.rs, unordered_steps.rs,
 * trends.rs) re-thought in TypeScript over one actor's events as actorEvents gives them
 * (times in epoch milliseconds, ascending; a bit mask per event: bit i = step i for
 * i < steps, then one bit per exclusion). The walkers keep their state in typed arrays
 * reused from actor to actor: a million events allocate next to nothing.
 *
 * Vocabulary: steps are 1-based inside the walk (`entered[s]` = the best attempt that has
 * done steps 1..s, `entered[0]` = "now"), 0-based outside (a person's result is the
 * furthest step reached, 0-based, or -1 when not counted).
 */
import type { FunnelOrderType } from "./contract";

export interface FunnelPlan {
  /** Steps of the walk (a trends walk stops at funnelToStep). */
  steps: number;
  windowMs: number;
  order: FunnelOrderType;
  /**
   * `exclusionMasks[s]` (s = 2..steps): the mask bits of exclusions that forbid reaching
   * step s from step s-1 — an exclusion from `from` to `to` (0-based) covers s = from+2..to+1.
   */
  exclusionMasks: Int32Array;
  /** Breakdown attribution "step": the 0-based step whose event must carry the person's value; null otherwise. */
  attributionStep: number | null;
}

/** One actor's events, as actorEvents gives them, with the breakdown value of each (null: none read). */
export interface WalkEvents {
  times: readonly number[];
  masks: readonly number[];
  values: readonly (string | null)[] | null;
}

/** A breakdown value of an event: a missing value reads as "" (PostHog's `ifNull(toString(prop), '')`). */
export const valueOf = (values: readonly (string | null)[] | null, index: number): string => (values ? (values[index] ?? "") : "");

/**
 * The steps walk (ordered and strict), exactly as the UDF's `loop_prop_val`/`process_event`:
 * per event, for each step it matches, in descending order (exclusions first), an attempt
 * that has done the previous step within the window (measured from its first step,
 * inclusive) advances; a step-1 event starts a new attempt. The person's result is the
 * furthest step of any attempt, with the times of the first attempt that got there.
 */
export class StepsWalker {
  private readonly n: number;
  /** Start (step-1 time) of entered[s]; NaN: none. */
  private readonly start: Float64Array;
  private readonly excluded: Uint8Array;
  /** Row s: the step times of entered[s] (s entries). */
  private readonly stepTimes: Float64Array;
  /** Row s: the event indices of entered[s] (an event is used once when same-time events are split). */
  private readonly stepEvents: Int32Array;
  private maxStep = 0;
  private maxStart = NaN;
  private maxExcluded = false;
  /** After `walk`: the time (ms) of each step of the person's counted attempt, steps 0..result. */
  readonly resultTimes: Float64Array;
  /** Events of the walk (indices into the actor's events; all of them, or those carrying the value under all_events). */
  private order: Int32Array = new Int32Array(64);

  // The actor being walked.
  private times: readonly number[] = [];
  private masks: readonly number[] = [];
  private values: readonly (string | null)[] | null = null;
  private value: string | null = null;

  constructor(private readonly plan: FunnelPlan) {
    const n = plan.steps;
    this.n = n;
    this.start = new Float64Array(n + 1);
    this.excluded = new Uint8Array(n + 1);
    this.stepTimes = new Float64Array((n + 1) * n);
    this.stepEvents = new Int32Array((n + 1) * n);
    this.resultTimes = new Float64Array(n);
  }

  /**
   * Walks one actor for breakdown value `value` (null without a breakdown); `onlyValue`
   * keeps only the events carrying it (all_events attribution). Returns the 0-based
   * furthest step, or -1: not counted (no first step, or the best attempt was excluded).
   */
  walk(events: WalkEvents, value: string | null = null, onlyValue = false): number {
    const { n } = this;
    this.times = events.times;
    this.masks = events.masks;
    this.values = events.values;
    this.value = value;
    this.start.fill(NaN);
    this.excluded.fill(0);
    this.maxStep = 0;
    this.maxStart = NaN;
    this.maxExcluded = false;

    const count = this.selectEvents(events, value, onlyValue);
    const order = this.order;
    const times = this.times;
    const masks = this.masks;
    for (let a = 0; a < count; ) {
      const t = times[order[a]!]!;
      let b = a + 1;
      let sameMasks = true;
      while (b < count && times[order[b]!] === t) {
        if (masks[order[b]!] !== masks[order[a]!]) sameMasks = false;
        b++;
      }
      this.start[0] = t;
      this.excluded[0] = 0;
      if (b - a === 1 || sameMasks) {
        for (let k = a; k < b; k++) this.processEvent(order[k]!);
      } else {
        // Different steps at one instant: each step on its own, in ascending step order, so
        // that A and B at the same time convert; exclusions and strict resets are skipped (the UDF's rule).
        for (let s = 1; s <= n; s++) {
          const bit = 1 << (s - 1);
          for (let k = a; k < b; k++) if (masks[order[k]!]! & bit) this.processStep(order[k]!, t, s, false, true);
        }
      }
      if (!Number.isNaN(this.start[n]!)) break;
      a = b;
    }
    if (this.maxStep === 0 || this.maxExcluded) return -1;
    return this.maxStep - 1;
  }

  private selectEvents(events: WalkEvents, value: string | null, onlyValue: boolean): number {
    const total = events.times.length;
    if (this.order.length < total) this.order = new Int32Array(Math.max(total, this.order.length * 2));
    let count = 0;
    for (let i = 0; i < total; i++) if (!onlyValue || valueOf(events.values, i) === value) this.order[count++] = i;
    return count;
  }

  private processEvent(e: number): void {
    const { n, plan } = this;
    const t = this.times[e]!;
    const mask = this.masks[e]!;
    for (let s = n; s >= 2; s--) if (mask & plan.exclusionMasks[s]!) this.processStep(e, t, s, true, false);
    for (let s = n; s >= 1; s--) if (mask & (1 << (s - 1))) this.processStep(e, t, s, false, false);
    if (plan.order === "strict") {
      // Any event that is not step i breaks every attempt waiting at step i.
      for (let i = 1; i <= n; i++) {
        if (!(mask & (1 << (i - 1)))) {
          this.start[i] = NaN;
          this.excluded[i] = 0;
        }
      }
    }
  }

  private processStep(e: number, t: number, s: number, exclusion: boolean, split: boolean): void {
    const { n, plan, start } = this;
    const prev = s - 1;
    const prevStart = start[prev]!;
    // NaN (no attempt at prev) fails both tests.
    if (!(t - prevStart <= plan.windowMs)) return;
    if (start[s] === prevStart) return; // this attempt already did step s
    if (exclusion) {
      if (!this.excluded[prev]) {
        this.excluded[prev] = 1;
        if (this.maxStep === prev && t - this.maxStart <= plan.windowMs) this.maxExcluded = true;
      }
      return;
    }
    if (plan.attributionStep !== null && prev === plan.attributionStep && valueOf(this.values, e) !== this.value) return;
    const row = prev * n;
    if (split) for (let k = 0; k < prev; k++) if (this.stepEvents[row + k] === e) return;
    const prevExcluded = this.excluded[prev] === 1;
    if (!prevExcluded) {
      const to = s * n;
      start[s] = prevStart;
      this.excluded[s] = 0;
      for (let k = 0; k < prev; k++) {
        this.stepTimes[to + k] = this.stepTimes[row + k]!;
        this.stepEvents[to + k] = this.stepEvents[row + k]!;
      }
      this.stepTimes[to + prev] = t;
      this.stepEvents[to + prev] = e;
    }
    if (s > this.maxStep || (s === this.maxStep && this.maxExcluded)) {
      this.maxStep = s;
      this.maxStart = prevStart;
      this.maxExcluded = prevExcluded;
      for (let k = 0; k < prev; k++) this.resultTimes[k] = this.stepTimes[row + k]!;
      this.resultTimes[prev] = t;
    }
  }
}

/**
 * The unordered walk (unordered_steps.rs): a window sliding over the person's events; each
 * step event joins the queue of a step it matches (the one whose latest event is oldest),
 * events older than the window before the current one leave; the result is the most
 * distinct steps ever together in the window, with the times of their first events in
 * time order. An exclusion event (exclusions span the whole funnel here) empties the window.
 */
export class UnorderedWalker {
  private readonly n: number;
  /** Per step: the event index at the queue's front (-1: empty), queue length, latest time. */
  private readonly front: Int32Array;
  private readonly length: Int32Array;
  private readonly latest: Float64Array;
  private assigned: Int8Array = new Int8Array(64);
  private completed = 0;
  private maxStep = 0;
  readonly resultTimes: Float64Array;
  private readonly fronts: Float64Array;
  private times: readonly number[] = [];
  private readonly stepMask: number;
  private readonly exclusionMask: number;

  constructor(private readonly plan: FunnelPlan) {
    const n = plan.steps;
    this.n = n;
    this.front = new Int32Array(n);
    this.length = new Int32Array(n);
    this.latest = new Float64Array(n);
    this.resultTimes = new Float64Array(n);
    this.fronts = new Float64Array(n);
    this.stepMask = n >= 31 ? -1 : (1 << n) - 1;
    let exclusions = 0;
    for (const mask of plan.exclusionMasks) exclusions |= mask;
    this.exclusionMask = exclusions;
  }

  walk(events: WalkEvents, value: string | null = null, onlyValue = false): number {
    const total = events.times.length;
    if (this.assigned.length < total) this.assigned = new Int8Array(Math.max(total, this.assigned.length * 2));
    this.times = events.times;
    this.assigned.fill(-1, 0, total);
    this.clear();
    this.maxStep = 0;
    const { masks } = events;
    for (let a = 0; a < total; ) {
      const t = events.times[a]!;
      let b = a + 1;
      while (b < total && events.times[b] === t) b++;
      let exclusionAt = false;
      for (let e = a; e < b; e++) {
        if (onlyValue && valueOf(events.values, e) !== value) continue;
        if (masks[e]! & this.stepMask) this.push(e, masks[e]!);
        else if (masks[e]! & this.exclusionMask) exclusionAt = true;
      }
      if (exclusionAt) {
        // As the UDF: the steps of that instant, then the exclusions, then the steps again.
        this.clear();
        for (let e = a; e < b; e++) {
          if (onlyValue && valueOf(events.values, e) !== value) continue;
          if (masks[e]! & this.stepMask) this.push(e, masks[e]!);
        }
      }
      a = b;
    }
    return this.maxStep === 0 ? -1 : this.maxStep - 1;
  }

  private clear(): void {
    this.front.fill(-1);
    this.length.fill(0);
    this.latest.fill(-Infinity);
    this.completed = 0;
  }

  private push(e: number, mask: number): void {
    const { n, times } = this;
    const t = times[e]!;
    let step = -1;
    for (let s = 0; s < n; s++) if (mask & (1 << s) && (step === -1 || this.latest[s]! < this.latest[step]!)) step = s;
    if (this.length[step] === 0) {
      this.completed++;
      this.front[step] = e;
    }
    this.assigned[e] = step;
    this.length[step]!++;
    this.latest[step] = t;
    // Events older than the window before this one leave their queues.
    for (let s = 0; s < n; s++) {
      while (this.length[s]! > 0 && t - times[this.front[s]!]! > this.plan.windowMs) {
        this.length[s]!--;
        if (this.length[s] === 0) {
          this.front[s] = -1;
          this.latest[s] = -Infinity;
          this.completed--;
        } else {
          let next = this.front[s]! + 1;
          while (this.assigned[next] !== s) next++;
          this.front[s] = next;
        }
      }
    }
    if (this.completed > this.maxStep) {
      this.maxStep = this.completed;
      let k = 0;
      for (let s = 0; s < n; s++) if (this.length[s]! > 0) this.fronts[k++] = times[this.front[s]!]!;
      const sorted = this.fronts.subarray(0, k).sort();
      this.resultTimes.set(sorted);
    }
  }
}

/** A person's outcome in one entrance period of funnel trends: 1 converted, -1 entered but did not. */
export type TrendOutcome = 1 | -1;

interface PeriodState {
  start: Float64Array;
  excluded: Uint8Array;
  maxStep: number;
  maxTime: number;
  /** 0: not excluded; 1: partially (an exclusion after the furthest step); 2: fully (a step reached past an exclusion). */
  maxExclusion: 0 | 1 | 2;
}

/**
 * The funnel trends walk (trends.rs): an attempt per entrance period (the period of its
 * first step-1 event; later step-1 events of the period move its start), every attempt
 * advancing on each later step event within the window. A period's outcome is 1 once an
 * attempt reaches the last step, else -1 if it reached `fromStep` (0-based) without an
 * exclusion after it; a fully excluded attempt anywhere keeps only the conversions.
 */
export class TrendsWalker {
  private readonly n: number;

  constructor(
    private readonly plan: FunnelPlan,
    private readonly fromStep: number,
  ) {
    this.n = plan.steps;
  }

  /** `periodOf(t)`: the entrance period (an index) of a step-1 event at time t. */
  walk(events: WalkEvents, periodOf: (time: number) => number, value: string | null = null, onlyValue = false): Map<number, TrendOutcome> {
    const { n, plan } = this;
    const periods = new Map<number, PeriodState>();
    const results = new Map<number, TrendOutcome>();
    const { times, masks, values } = events;
    const stepBits = n >= 31 ? -1 : (1 << n) - 1;
    for (let e = 0; e < times.length; e++) {
      const mask = masks[e]!;
      if (onlyValue && valueOf(values, e) !== value) continue;
      const t = times[e]!;
      const unmatched = (s: number) => plan.attributionStep !== null && s - 1 === plan.attributionStep && valueOf(values, e) !== value;
      for (let s = n; s >= 2; s--) if (mask & plan.exclusionMasks[s]!) this.advance(periods, results, t, s, true, false);
      for (let s = n; s >= 1; s--) {
        if (!(mask & (1 << (s - 1)))) continue;
        if (s === 1) {
          if (unmatched(1)) continue;
          const period = periodOf(t);
          if (results.has(period)) continue;
          const state = periods.get(period);
          if (!state || (state.maxStep === 1 && state.maxExclusion !== 0)) {
            const fresh: PeriodState = { start: new Float64Array(n + 1).fill(NaN), excluded: new Uint8Array(n + 1), maxStep: 1, maxTime: t, maxExclusion: 0 };
            fresh.start[1] = t;
            periods.set(period, fresh);
          } else {
            state.start[1] = t;
          }
        } else {
          this.advance(periods, results, t, s, false, unmatched(s));
        }
      }
      if (plan.order === "strict") {
        for (const state of periods.values()) {
          for (let i = 1; i <= n; i++) {
            if (!(mask & stepBits & (1 << (i - 1)))) {
              state.start[i] = NaN;
              state.excluded[i] = 0;
            }
          }
        }
      }
    }
    const fullyExcluded = [...periods.values()].some((state) => state.maxExclusion === 2);
    if (!fullyExcluded) {
      for (const [period, state] of periods) {
        if (!results.has(period) && state.maxStep >= this.fromStep + 1 && state.maxExclusion !== 1) results.set(period, -1);
      }
    }
    return results;
  }

  private advance(periods: Map<number, PeriodState>, results: Map<number, TrendOutcome>, t: number, s: number, exclusion: boolean, unmatched: boolean): void {
    const { n, plan } = this;
    for (const [period, state] of periods) {
      const prevStart = state.start[s - 1]!;
      if (!(t - prevStart <= plan.windowMs) || state.start[s] === prevStart) continue;
      const prevExcluded = state.excluded[s - 1] === 1;
      if (exclusion) {
        if (!prevExcluded) {
          state.excluded[s - 1] = 1;
          if (state.maxStep === s - 1 && t - state.maxTime <= plan.windowMs) state.maxExclusion = 1;
        }
        continue;
      }
      if (unmatched) continue;
      if (!prevExcluded) {
        state.start[s] = prevStart;
        state.excluded[s] = 0;
      }
      if (!Number.isNaN(state.start[n]!)) {
        results.set(period, 1);
        periods.delete(period);
      } else if (s > state.maxStep || (s === state.maxStep && state.maxExclusion === 1)) {
        state.maxStep = s;
        state.maxTime = t;
        state.maxExclusion = prevExcluded ? 2 : 0;
      }
    }
  }
}
