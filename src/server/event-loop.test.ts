import { describe, expect, it } from "vitest";
import { EventLoopLoad } from "./event-loop";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("EventLoopLoad", () => {
  it("is high after a window the thread spent busy, and low again after one it spent waiting", async () => {
    const load = new EventLoopLoad(0.8, 100);
    await sleep(150);
    expect(load.high()).toBe(false);
    // The thread held for most of a window (as a saturating load holds it).
    const until = performance.now() + 150;
    while (performance.now() < until);
    expect(load.high()).toBe(true);
    // Within the window that follows the verdict stands; after a quiet one it is low.
    expect(load.high()).toBe(true);
    await sleep(150);
    expect(load.high()).toBe(false);
  });
});
