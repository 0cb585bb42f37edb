import os from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { ServerLoad, stepAsideForUrgent, TimeSlice, urgently } from "./event-loop";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("TimeSlice", () => {
  it("gives the loops that yielded one slice between two polls of the event loop, in turn", async () => {
    // A timer fires once per turn of the loop (each turn here holds ≥ 10 ms of work): the turn an item was worked in.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setTimeout(tick, 1);
    };
    setTimeout(tick, 1);
    /** Items worked per turn (each takes at least 1 ms). */
    const itemsIn = new Map<number, number>();
    const ITEMS = 40;
    const progress = [0, 0, 0, 0];
    let othersWhenFirstDone: number | null = null;
    const loop = async (id: number) => {
      const slice = new TimeSlice();
      for (let item = 0; item < ITEMS; item++) {
        const until = performance.now() + 1;
        while (performance.now() < until);
        progress[id] = progress[id]! + 1;
        itemsIn.set(turn, (itemsIn.get(turn) ?? 0) + 1);
        await slice.pace();
      }
      othersWhenFirstDone ??= Math.min(...progress.filter((_, other) => other !== id));
    };
    await Promise.all(progress.map((_, id) => loop(id)));
    ticking = false;
    // Turn 0 is this test's own, where each loop ran its first slice before yielding.
    itemsIn.delete(0);
    expect(itemsIn.size).toBeGreaterThan(8);
    // With a turn each, the four loops worked 4 × 20 ms between two polls; now loops resume
    // while the turn's 10 ms last, and the last one resumed runs its 10 ms slice: at most ~20.
    expect(Math.max(...itemsIn.values())).toBeLessThanOrEqual(22);
    // First come, first served: when one loop is done, none of the others is far behind.
    expect(othersWhenFirstDone).toBeGreaterThanOrEqual(ITEMS / 2);
  });
});

describe("urgent requests and bulk work that steps aside", () => {
  /** Settles when the promise does; "waiting" if it has not within `ms`. */
  const within = (promise: Promise<unknown>, ms: number) => Promise.race([promise.then(() => "went"), sleep(ms).then(() => "waiting")]);

  it("costs bulk work nothing while no urgent request is in progress", () => {
    expect(stepAsideForUrgent()).toBeUndefined();
  });

  it("holds bulk work until the urgent requests in progress are answered, then lets it go", async () => {
    let answerFirst!: () => void;
    let answerSecond!: () => void;
    const first = urgently(() => new Promise<string>((resolve) => (answerFirst = () => resolve("first"))));
    const second = urgently(() => new Promise<string>((resolve) => (answerSecond = () => resolve("second"))));
    const bulk = stepAsideForUrgent(10_000)!;
    expect(bulk).toBeInstanceOf(Promise);
    answerFirst();
    expect(await first).toBe("first");
    expect(await within(bulk, 50)).toBe("waiting");
    answerSecond();
    expect(await second).toBe("second");
    expect(await within(bulk, 1_000)).toBe("went");
    expect(stepAsideForUrgent()).toBeUndefined();
  });

  it("waits no longer than its bound while urgent requests keep coming", async () => {
    let answer!: () => void;
    const urgent = urgently(() => new Promise<void>((resolve) => (answer = resolve)));
    const started = performance.now();
    await stepAsideForUrgent(40);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(35);
    expect(waited).toBeLessThan(1_000);
    answer();
    await urgent;
  });

  it("counts an urgent request that failed as answered", async () => {
    await expect(urgently(() => Promise.reject(new Error("flags failed")))).rejects.toThrow("flags failed");
    expect(stepAsideForUrgent()).toBeUndefined();
  });
});

describe("ServerLoad", () => {
  it("judges this thread by its busy share of each window", async () => {
    let thread = { busy: 0, total: 1_000 };
    const idleCores = () => ({ busy: 0, total: performance.now() });
    const load = new ServerLoad({ thread: 0.8, cores: 0.9, windowMs: 50 }, idleCores, () => thread);
    await sleep(60);
    thread = { busy: 50, total: 1_100 };
    expect(load.high()).toBe(false);
    await sleep(60);
    thread = { busy: 140, total: 1_200 };
    expect(load.high()).toBe(true);
    // Within the window that follows, the verdict stands.
    thread = { busy: 140, total: 1_210 };
    expect(load.high()).toBe(true);
    await sleep(60);
    thread = { busy: 150, total: 1_300 };
    expect(load.high()).toBe(false);
  });

  it("is high after a window this thread spent spinning", async () => {
    // Only "high" is asserted on the real thread: a quiet window cannot be promised in a test
    // worker, whose thread also runs what earlier files left behind.
    const load = new ServerLoad({ thread: 0.8, cores: 1.01, windowMs: 100 });
    const until = performance.now() + 150;
    while (performance.now() < until);
    expect(load.high()).toBe(true);
  });

  it("judges the cores by their busy share of each window", async () => {
    let cores = { busy: 1_000, total: 10_000 };
    const load = new ServerLoad({ thread: 1.01, cores: 0.9, windowMs: 50 }, () => cores);
    await sleep(60);
    cores = { busy: 1_850, total: 11_000 };
    expect(load.high()).toBe(false);
    await sleep(60);
    cores = { busy: 2_800, total: 12_000 };
    expect(load.high()).toBe(true);
    await sleep(60);
    cores = { busy: 2_800, total: 12_000 };
    expect(load.high()).toBe(false);
  });

  it("is high while every core is busy, though this thread waits", async () => {
    // Whether the cores were idle before cannot be asserted here: the test runner's other workers share them.
    const load = new ServerLoad({ thread: 1.01, cores: 0.9, windowMs: 200 });
    // A thread spinning on each core for a while.
    const spinners = Array.from({ length: os.cpus().length }, () => new Worker("const end = Date.now() + 600; while (Date.now() < end);", { eval: true }));
    try {
      await sleep(400);
      expect(load.high()).toBe(true);
    } finally {
      await Promise.all(spinners.map((spinner) => spinner.terminate()));
    }
  });
});
