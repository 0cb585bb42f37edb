import os from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { ServerLoad } from "./event-loop";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ServerLoad", () => {
  it("is high after a window this thread spent busy, and low again after a quiet one", async () => {
    // Cores out of the verdict: only this thread's share counts here.
    const load = new ServerLoad({ thread: 0.8, cores: 1.01, windowMs: 100 });
    await sleep(150);
    expect(load.high()).toBe(false);
    const until = performance.now() + 150;
    while (performance.now() < until);
    expect(load.high()).toBe(true);
    // Within the window that follows, the verdict stands.
    expect(load.high()).toBe(true);
    await sleep(150);
    expect(load.high()).toBe(false);
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
