import { describe, expect, it } from "vitest";
import { RefreshedInBackground } from "./refreshed-in-background";

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

describe("RefreshedInBackground", () => {
  it("makes only a key's first read wait, and shares it between concurrent callers", async () => {
    let now = 0;
    const cache = new RefreshedInBackground<string, number>(1000, () => now);
    const read = deferred<number>();
    let reads = 0;
    const load = () => (reads++, read.promise);
    const first = cache.get("a", load);
    const second = cache.get("a", load);
    read.resolve(1);
    expect([await first, await second, reads]).toEqual([1, 1, 1]);
    now = 999;
    expect(await cache.get("a", load)).toBe(1);
    expect(reads).toBe(1);
  });

  it("answers the old value past the period while one read refreshes it", async () => {
    let now = 0;
    const cache = new RefreshedInBackground<string, number>(1000, () => now);
    await cache.get("a", async () => 1);
    now = 1000;
    const refresh = deferred<number>();
    let reads = 0;
    const load = () => (reads++, refresh.promise);
    expect(await cache.get("a", load)).toBe(1);
    expect(await cache.get("a", load)).toBe(1);
    expect(reads).toBe(1);
    refresh.resolve(2);
    await refresh.promise;
    await Promise.resolve();
    expect(await cache.get("a", load)).toBe(2);
  });

  it("keeps the old value when a refresh fails, and tries again a period later", async () => {
    let now = 0;
    const cache = new RefreshedInBackground<string, number>(1000, () => now);
    await cache.get("a", async () => 1);
    now = 1000;
    expect(await cache.get("a", () => Promise.reject(new Error("down")))).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    now = 1500;
    let reads = 0;
    expect(await cache.get("a", async () => (reads++, 3))).toBe(1);
    expect(reads).toBe(0);
    now = 2000;
    expect(await cache.get("a", async () => (reads++, 3))).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get("a", async () => 4)).toBe(3);
  });

  it("does not let a read that began before a write put back what it read", async () => {
    const cache = new RefreshedInBackground<string, number>(1000, () => 0);
    const stale = deferred<number>();
    const before = cache.get("a", () => stale.promise);
    cache.forget("a");
    const after = cache.get("a", async () => 2);
    stale.resolve(1);
    expect(await before).toBe(1);
    expect(await after).toBe(2);
    expect(await cache.get("a", async () => 9)).toBe(2);
    cache.set("a", 5);
    expect(await cache.get("a", async () => 9)).toBe(5);
  });
});
