import { describe, expect, it, vi } from "vitest";
import { kickPeriodicPass, startPeriodicPass, stopPeriodicPass } from "./periodic-pass";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a periodic pass", () => {
  it("runs at once and then on its timer, never two at a time, and stopping waits for the pass under way", async () => {
    const key = Symbol("test pass");
    let running = 0;
    let most = 0;
    let passes = 0;
    let finished = 0;
    startPeriodicPass(key, 10, "test pass", async () => {
      passes++;
      running++;
      most = Math.max(most, running);
      await sleep(35);
      running--;
      finished++;
    });
    startPeriodicPass(key, 10, "test pass", async () => expect.fail("a second start while running does nothing"));
    expect(passes).toBe(1);
    // The timer (10 ms) fires several times during each 35 ms pass: a second pass at a time would show in `most`.
    await vi.waitFor(() => expect(passes).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    await stopPeriodicPass(key);
    expect(passes).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
    expect(finished).toBe(passes);
    const after = passes;
    await sleep(40);
    expect(passes).toBe(after);
  });

  it("tells a long pass that a stop was asked, and keeps running after a failed pass", async () => {
    const key = Symbol("stopping pass");
    const seen: boolean[] = [];
    let calls = 0;
    startPeriodicPass(key, 5, "stopping pass", async (stopping) => {
      if (++calls === 1) throw new Error("first pass fails");
      await sleep(20);
      seen.push(stopping());
    });
    await sleep(15);
    await stopPeriodicPass(key);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBe(true);
  });

  it("runs a kicked pass at once, or right after the one under way, and ignores a kick when not started", async () => {
    const key = Symbol("kicked pass");
    kickPeriodicPass(key);
    let passes = 0;
    let finished = 0;
    // Each pass ends when the test says so, not on a timer a loaded machine could run late.
    const ends: (() => void)[] = [];
    startPeriodicPass(key, 60_000, "kicked pass", async () => {
      passes++;
      await new Promise<void>((resolve) => ends.push(resolve));
      finished++;
    });
    expect(passes).toBe(1);
    kickPeriodicPass(key);
    kickPeriodicPass(key);
    expect(passes).toBe(1);
    ends[0]!();
    await vi.waitFor(() => expect(passes).toBe(2));
    ends[1]!();
    await vi.waitFor(() => expect(finished).toBe(2));
    expect(passes).toBe(2);
    kickPeriodicPass(key);
    expect(passes).toBe(3);
    ends[2]!();
    await stopPeriodicPass(key);
    kickPeriodicPass(key);
    expect(passes).toBe(3);
  });

  it("with firstPassAfterMs, runs the first pass that much later (a kick before then at once), and a stop before it runs none", async () => {
    const key = Symbol("delayed pass");
    const at: number[] = [];
    const started = performance.now();
    startPeriodicPass(key, 60_000, "delayed pass", async () => void at.push(performance.now() - started), { firstPassAfterMs: 60 });
    await sleep(30);
    expect(at).toEqual([]);
    await sleep(60);
    expect(at).toHaveLength(1);
    expect(at[0]).toBeGreaterThanOrEqual(59);
    await stopPeriodicPass(key);

    const kicked = Symbol("kicked before its first pass");
    let kickedPasses = 0;
    startPeriodicPass(kicked, 60_000, "kicked before its first pass", async () => void kickedPasses++, { firstPassAfterMs: 60_000 });
    kickPeriodicPass(kicked);
    expect(kickedPasses).toBe(1);
    await stopPeriodicPass(kicked);

    const stopped = Symbol("stopped before its first pass");
    let stoppedPasses = 0;
    startPeriodicPass(stopped, 60_000, "stopped before its first pass", async () => void stoppedPasses++, { firstPassAfterMs: 20 });
    await stopPeriodicPass(stopped);
    await sleep(50);
    expect(stoppedPasses).toBe(0);
  });
});
