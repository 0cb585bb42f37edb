import { describe, expect, it } from "vitest";
import { canonicalJson, ResultCache } from "./cache";

function setup(limits = { ttlMs: 1000, maxEntries: 3, maxWeight: 100 }) {
  let now = 0;
  let computed = 0;
  const cache = new ResultCache<string>(limits, () => now);
  const compute = (value: string, weight = 1) => async () => {
    computed++;
    return { value, weight };
  };
  return { cache, compute, tick: (ms: number) => (now += ms), computed: () => computed };
}

describe("ResultCache", () => {
  it("serves a fresh entry, recomputes after the TTL or when forced", async () => {
    const { cache, compute, tick, computed } = setup();
    expect(await cache.get("k", "blocking", compute("a"))).toEqual({ value: "a", computedAt: new Date(0), cached: false });
    tick(999);
    expect(await cache.get("k", "blocking", compute("b"))).toEqual({ value: "a", computedAt: new Date(0), cached: true });
    expect(await cache.get("k", "force", compute("c"))).toMatchObject({ value: "c", cached: false });
    tick(1000);
    expect(await cache.get("k", "cache_only", compute("d"))).toBeNull();
    expect(await cache.get("k", "blocking", compute("e"))).toMatchObject({ value: "e", cached: false, computedAt: new Date(1999) });
    expect(computed()).toBe(3);
  });

  it("evicts the least recently used entry past maxEntries", async () => {
    const { cache, compute } = setup();
    for (const key of ["a", "b", "c"]) await cache.get(key, "blocking", compute(key));
    cache.peek("a");
    await cache.get("d", "blocking", compute("d"));
    expect(["a", "b", "c", "d"].map((key) => cache.peek(key)?.value ?? null)).toEqual(["a", null, "c", "d"]);
  });

  it("evicts by weight, and keeps no entry heavier than the whole budget", async () => {
    const { cache, compute } = setup();
    await cache.get("a", "blocking", compute("a", 60));
    await cache.get("b", "blocking", compute("b", 30));
    await cache.get("c", "blocking", compute("c", 30));
    expect([cache.peek("a"), cache.size]).toEqual([null, 2]);
    expect(await cache.get("huge", "blocking", compute("huge", 101))).toMatchObject({ value: "huge", cached: false });
    expect([cache.peek("huge"), cache.size]).toEqual([null, 2]);
  });

  it("shares one running computation between callers, and forgets failures", async () => {
    const { cache, computed } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const slow = async () => {
      runs++;
      await gate;
      return { value: "slow", weight: 1 };
    };
    const both = Promise.all([cache.get("k", "blocking", slow), cache.get("k", "blocking", slow)]);
    release();
    expect((await both).map((r) => r!.value)).toEqual(["slow", "slow"]);
    expect([runs, computed()]).toEqual([1, 0]);
    await expect(cache.get("bad", "blocking", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await cache.get("bad", "blocking", async () => ({ value: "ok", weight: 1 }))).toMatchObject({ value: "ok" });
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every level and drops undefined", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"f":1}]},"b":1}');
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
  });
});
