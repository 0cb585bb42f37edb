import os from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { ServerLoad } from "./event-loop";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
