/**
 * The per-person walks on hand-made event lists (no database): the UDF's rules one by one.
 */
import { describe, expect, it } from "vitest";
import { StepsWalker, TrendsWalker, UnorderedWalker, type FunnelPlan } from "./walk";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** Steps A, B, C = bits 0, 1, 2; exclusion X = bit 3. */
const A = 1;
const B = 2;
const C = 4;
const X = 8;
const OTHER = 0;

function plan(overrides: Partial<FunnelPlan> = {}): FunnelPlan {
  return { steps: 3, windowMs: 14 * DAY, order: "ordered", exclusionMasks: new Int32Array(4), attributionStep: null, ...overrides };
}

/** Events as [minute, mask] pairs. */
const events = (list: [number, number][], values: (string | null)[] | null = null) => ({ times: list.map(([m]) => m * MIN), masks: list.map(([, mask]) => mask), values });

const walk = (p: FunnelPlan, list: [number, number][]) => {
  const walker = new StepsWalker(p);
  const step = walker.walk(events(list));
  return { step, times: Array.from(walker.resultTimes.subarray(0, step + 1), (t) => t / MIN) };
};

describe("StepsWalker (ordered)", () => {
  it("counts the furthest step reached in order", () => {
    expect(walk(plan(), [[0, A], [10, B], [20, C]])).toEqual({ step: 2, times: [0, 10, 20] });
    expect(walk(plan(), [[0, A], [10, B]])).toEqual({ step: 1, times: [0, 10] });
  });

  it("does not count a step done before the one before it", () => {
    expect(walk(plan(), [[0, B], [10, A]]).step).toBe(0);
    // Steps signup (A), pay (B), movie (C); pay, signup, movie: only the first step.
    expect(walk(plan(), [[0, B], [10, A], [20, C]]).step).toBe(0);
    expect(walk(plan(), [[0, B], [5, C]]).step).toBe(-1);
  });

  it("uses the latest first step for what follows", () => {
    expect(walk(plan(), [[0, A], [30, A], [40, B]])).toEqual({ step: 1, times: [30, 40] });
  });

  it("measures the window from the first step, inclusively", () => {
    const five = plan({ windowMs: 5 * MIN });
    expect(walk(five, [[0, A], [5, B]]).step).toBe(1);
    expect(walk(five, [[0, A], [3, B], [6, C]]).step).toBe(1);
    expect(walk(plan({ windowMs: 5 * MIN - 1 }), [[0, A], [5, B]]).step).toBe(0);
  });

  it("converts steps at the same instant, in step order", () => {
    expect(walk(plan(), [[0, B], [0, A], [0, C]])).toEqual({ step: 2, times: [0, 0, 0] });
  });

  it("lets one event that is two steps fill only one of them at a time", () => {
    // A and B are both the same event name: two occurrences are needed.
    expect(walk(plan({ steps: 2 }), [[0, A | B]]).step).toBe(0);
    expect(walk(plan({ steps: 2 }), [[0, A | B], [5, A | B]]).step).toBe(1);
  });

  it("keeps the times of the first attempt to reach the furthest step", () => {
    expect(walk(plan(), [[0, A], [10, B], [20, C], [30, A], [35, B]])).toEqual({ step: 2, times: [0, 10, 20] });
  });
});

describe("StepsWalker (strict)", () => {
  it("is broken by any other event between steps", () => {
    const strict = plan({ order: "strict" });
    expect(walk(strict, [[0, A], [1, B], [2, C]]).step).toBe(2);
    expect(walk(strict, [[0, A], [1, OTHER], [2, B], [3, C]]).step).toBe(0);
    expect(walk(strict, [[0, A], [1, B], [2, OTHER], [3, C]]).step).toBe(1);
    // A later clean run still counts.
    expect(walk(strict, [[0, A], [1, OTHER], [2, A], [3, B], [4, C]]).step).toBe(2);
  });
});

describe("StepsWalker exclusions", () => {
  // X between step 0 and step 1: guards reaching (1-based) step 2.
  const masks = new Int32Array(4);
  masks[2] = X;
  const excluding = plan({ exclusionMasks: masks });

  it("drops a person whose best attempt met an exclusion", () => {
    expect(walk(excluding, [[0, A], [5, X], [10, B], [20, C]]).step).toBe(-1);
    expect(walk(excluding, [[0, A], [5, X]]).step).toBe(-1);
  });

  it("ignores an exclusion after the guarded step, or before the funnel starts", () => {
    expect(walk(excluding, [[0, A], [10, B], [15, X], [20, C]]).step).toBe(2);
    expect(walk(excluding, [[0, X], [5, A], [10, B]]).step).toBe(1);
  });

  it("lets a later clean attempt rescue the person", () => {
    expect(walk(excluding, [[0, A], [5, X], [30, A], [40, B]]).step).toBe(1);
  });
});

describe("StepsWalker breakdown", () => {
  it("needs the attribution step's event to carry the value", () => {
    const walker = new StepsWalker(plan({ steps: 2, attributionStep: 1 }));
    const list = events([[0, A], [10, B]], ["Chrome", "Safari"]);
    expect(walker.walk(list, "Safari")).toBe(1);
    expect(walker.walk(list, "Chrome")).toBe(0);
  });

  it("walks only the events of the value under all_events", () => {
    const walker = new StepsWalker(plan({ steps: 2 }));
    const list = events([[0, A], [10, B]], ["Chrome", null]);
    expect(walker.walk(list, "Chrome", true)).toBe(0);
    expect(walker.walk(list, "", true)).toBe(-1);
  });
});

describe("UnorderedWalker", () => {
  const unordered = (list: [number, number][], windowMs = 14 * DAY, exclusion = 0) => {
    const masks = new Int32Array(4);
    masks[2] = exclusion;
    const walker = new UnorderedWalker(plan({ order: "unordered", windowMs, exclusionMasks: masks }));
    const step = walker.walk(events(list));
    return { step, times: Array.from(walker.resultTimes.subarray(0, step + 1), (t) => t / MIN) };
  };

  it("counts distinct steps in any order within the window", () => {
    expect(unordered([[0, C], [10, A], [20, B]])).toEqual({ step: 2, times: [0, 10, 20] });
    expect(unordered([[0, B], [10, B]])).toEqual({ step: 0, times: [0] });
    expect(unordered([[0, C], [10, A], [20, B]], 15 * MIN).step).toBe(1);
  });

  it("starts over after an exclusion", () => {
    expect(unordered([[0, A], [5, X], [10, B]], 14 * DAY, X).step).toBe(0);
  });
});

describe("TrendsWalker", () => {
  const periodOf = (t: number) => Math.floor(t / DAY);

  it("gives each entrance period its own attempt: converted (1) or entered only (-1)", () => {
    const walker = new TrendsWalker(plan({ steps: 2 }), 0);
    const list = events([
      [0, A],
      [10, B],
      [DAY / MIN + 5, A],
    ]);
    expect([...walker.walk(list, periodOf)].sort()).toEqual([
      [0, 1],
      [1, -1],
    ]);
  });

  it("counts entries only when they reached the from step", () => {
    const walker = new TrendsWalker(plan({ steps: 3 }), 1);
    expect([...walker.walk(events([[0, A]]), periodOf)]).toEqual([]);
    expect([...walker.walk(events([[0, A], [5, B]]), periodOf)]).toEqual([[0, -1]]);
  });
});

describe("TrendsWalker (strict, exclusions)", () => {
  const periodOf = (t: number) => Math.floor(t / DAY);

  it("breaks a strict attempt with any other event", () => {
    const walker = new TrendsWalker(plan({ steps: 2, order: "strict" }), 0);
    expect([...walker.walk(events([[0, A], [1, OTHER], [2, B]]), periodOf)]).toEqual([[0, -1]]);
    expect([...walker.walk(events([[0, A], [1, B]]), periodOf)]).toEqual([[0, 1]]);
  });

  it("leaves out an entry whose furthest step met an exclusion", () => {
    const masks = new Int32Array(3);
    masks[2] = X;
    const walker = new TrendsWalker(plan({ steps: 2, exclusionMasks: masks }), 0);
    expect([...walker.walk(events([[0, A], [1, X]]), periodOf)]).toEqual([]);
  });
});
